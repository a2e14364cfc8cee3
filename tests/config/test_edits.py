"""Queue and limit edits go through the same validate, version and apply path as an upload."""

import pytest

from quotaweb.config import edits
from quotaweb.config.models import ConfigVersion, LimitEntry, Partition, Queue
from quotaweb.config.selectors import queue_tail
from quotaweb.config.services import (
    ConfigRejected,
    config_apply,
    config_edit,
    limit_create,
    limit_delete,
    limit_update,
    queue_create,
    queue_delete,
    queue_update,
)
from tests.config_rows import config_from_rows

pytestmark = pytest.mark.django_db

ENG = {"partition": "default", "queue_path": "root.eng"}


def _on_queue(errors, queue_path: str) -> list[dict]:
    """The errors about one queue, with the field below the queue's key path as a form sees it."""
    return [
        {**error, "tail": queue_tail(error.get("field", ""))}
        for error in errors if error.get("path") == queue_path
    ]


def _descriptions(path="root.eng"):
    return list(LimitEntry.objects.filter(queue__path=path).values_list("description", flat=True))


def _queue_paths(gateway):
    def walk(node):
        yield node["queuename"]
        for child in node.get("children", ()):
            yield from walk(child)

    return list(walk(gateway.queues_usage("default")))


def test_queue_create_adds_a_version_rows_and_engine_queue(active_small, admin):
    version = queue_create(
        partition="default", parent_path="root.eng",
        values={"name": "ML", "max": {"memory": "50Gi"}, "max_applications": 3},
        author=admin, comment="new team", base_version=1,
    )

    assert (version.number, version.comment, version.author) == (2, "new team", admin)
    queue = Queue.objects.get(path="root.eng.ml")
    assert (queue.name, queue.max, queue.max_applications, queue.has_resources) == (
        "ml", {"memory": "50Gi"}, 3, True
    )
    assert "root.eng.ml" in _queue_paths(active_small)
    assert active_small.version("default") == 2


def test_queue_create_with_a_sibling_name_is_refused(active_small, admin):
    with pytest.raises(ConfigRejected) as caught:
        queue_create(
            partition="default", parent_path="root", values={"name": "ENG"},
            author=admin, base_version=1,
        )

    assert caught.value.errors[0]["path"].startswith("root")
    assert ConfigVersion.objects.count() == 1


def test_queue_update_error_lands_on_the_limit_field(active_small, admin):
    with pytest.raises(ConfigRejected) as caught:
        queue_update(
            **ENG, values={"max": {"memory": "30Gi", "vcore": "100"}},
            author=admin, base_version=1,
        )

    on_eng = _on_queue(caught.value.errors, "root.eng")
    # alice (40Gi) and the ml group (60Gi) are both above the new 30Gi max.
    assert {error["tail"] for error in on_eng} == {
        "limits[0].maxresources", "limits[2].maxresources"
    }
    assert Queue.objects.get(path="root.eng").max == {"memory": "100Gi", "vcore": "100"}


def test_queue_update_and_delete(active_small, admin):
    queue_update(**ENG, values={"max_applications": 9, "submit_acl": "alice"},
                 author=admin, base_version=1)
    eng = Queue.objects.get(path="root.eng")
    assert (eng.max_applications, eng.submit_acl) == (9, "alice")
    assert _descriptions() == ["alice", "everyone else", "ml group"]

    queue_delete(**ENG, author=admin, base_version=2)

    assert list(Queue.objects.values_list("path", flat=True)) == ["root"]
    assert _queue_paths(active_small) == ["root"]


def test_edits_that_cannot_be_made(active_small, admin):
    with pytest.raises(edits.EditRefused, match=edits.ERR_ROOT_DELETE):
        queue_delete(partition="default", queue_path="root", author=admin, base_version=1)
    with pytest.raises(edits.NotFound, match=r"has no queue 'root\.nope'"):
        queue_update(partition="default", queue_path="root.nope", values={},
                     author=admin, base_version=1)
    with pytest.raises(edits.NotFound, match="has no limit entry 7"):
        limit_delete(**ENG, index=7, author=admin, base_version=1)
    with pytest.raises(edits.NotFound, match="no partition 'gpu'"):
        limit_delete(partition="gpu", queue_path="root", index=0, author=admin, base_version=1)
    with pytest.raises(edits.EditRefused, match=edits.ERR_NAME_REQUIRED):
        queue_create(partition="default", parent_path="root", values={"max_applications": 1},
                     author=admin, base_version=1)
    with pytest.raises(TypeError, match="unknown limit fields: maxresources"):
        limit_create(**ENG, values={"maxresources": {}}, author=admin, base_version=1)
    assert ConfigVersion.objects.count() == 1


def test_limit_create_update_move_delete(active_small, admin):
    limit_create(
        **ENG, position=0, values={"description": "bob", "users": ["bob"],
                                   "max_resources": {"memory": "10Gi"}, "max_applications": 1},
        author=admin, base_version=1,
    )
    assert _descriptions() == ["bob", "alice", "everyone else", "ml group"]

    limit_update(**ENG, index=0, values={"max_applications": 2}, author=admin, base_version=2)
    assert LimitEntry.objects.get(description="bob").max_applications == 2

    config_edit(edits=[edits.limit_move(**ENG, index=3, to_index=0)], author=admin,
                base_version=3)
    assert _descriptions() == ["ml group", "bob", "alice", "everyone else"]

    limit_delete(**ENG, index=1, author=admin, base_version=4)
    assert _descriptions() == ["ml group", "alice", "everyone else"]
    with active_small.engine("default") as engine:
        assert engine.user_usage("bob") is None
    assert active_small.version("default") == 5


def test_a_user_limit_above_its_queue_max_is_refused_on_that_field(active_small, admin):
    with pytest.raises(ConfigRejected) as caught:
        limit_update(**ENG, index=0, values={"max_resources": {"memory": "200Gi"}},
                     author=admin, base_version=1)

    [error] = _on_queue(caught.value.errors, "root.eng")
    assert (error["code"], error["tail"]) == ("L12", "limits[0].maxresources")
    assert LimitEntry.objects.get(description="alice").max_resources["memory"] == "40Gi"


def test_moving_the_user_wildcard_before_a_named_user_is_refused(active_small, admin):
    with pytest.raises(ConfigRejected) as caught:
        config_edit(edits=[edits.limit_move(**ENG, index=1, to_index=0)], author=admin,
                    base_version=1)

    assert [error["code"] for error in caught.value.errors] == ["L4"]
    assert _descriptions() == ["alice", "everyone else", "ml group"]


def test_a_staged_draft_of_three_edits_is_one_version(active_small, admin):
    version = config_edit(
        edits=[
            edits.queue_create(partition="default", parent_path="root", values={"name": "ops"}),
            edits.limit_create(partition="default", queue_path="root.ops",
                               values={"users": ["*"], "max_applications": 3}),
            edits.queue_update(partition="default", queue_path="root.eng",
                               values={"max_applications": 20}),
        ],
        author=admin, comment="draft", base_version=1,
    )

    assert version.number == 2
    assert ConfigVersion.objects.count() == 2
    assert _descriptions("root.ops") == [None]
    assert Queue.objects.get(path="root.eng").max_applications == 20


def test_root_limits_written_at_the_partition_are_edited_there(yunikorn_yaml, admin):
    config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)

    limit_update(partition="default", queue_path="root", index=0,
                 values={"max_applications": 60}, author=admin, base_version=1)

    assert Partition.objects.get(name="default").limits[0]["max_applications"] == 60
    root = config_from_rows().partition("default")
    assert root.limits == root.root.limits
    assert root.root.limits[0].max_applications == 60
