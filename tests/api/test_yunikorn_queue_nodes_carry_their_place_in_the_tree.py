"""Every node of ``/ws/v1/partition/{p}/queues`` carries the PartitionQueueDAOInfo fields of its
place in the tree, with YuniKorn's names, types and omissions: ``status``, ``partition``,
``isLeaf`` and ``isManaged`` (never left out), ``parent`` (not on root), ``childNames`` (only
with children), ``template`` from a child template (inherited by parent queues, never on a leaf),
and no ``pendingResource`` (quotaweb tracks no pending requests)."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.api.yunikorn_support import HIERARCHY_YAML, TEMPLATE_INFO, WS, nodes_by_path
from tests.configs import store_and_load

pytestmark = pytest.mark.django_db

QUEUES = f"{WS}/partition/default/queues"


@pytest.fixture
def hierarchy(db):
    return store_and_load(HIERARCHY_YAML)


def test_every_node_names_its_status_partition_leafness_and_management(viewer_token, hierarchy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    assert sorted(nodes) == [
        "root", "root.free", "root.org", "root.org.open", "root.org.team", "root.org.team.leaf",
    ]
    for node in nodes.values():
        assert node["status"] == "Active"
        assert node["partition"] == "default"
        assert node["isManaged"] is True
        assert type(node["isLeaf"]) is bool
        assert type(node["runningApps"]) is int
        assert "pendingResource" not in node
    leaves = {path for path, node in nodes.items() if node["isLeaf"]}
    assert leaves == {"root.free", "root.org.open", "root.org.team.leaf"}


def test_leaves_have_no_children_and_parents_name_theirs(viewer_token, hierarchy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    for node in nodes.values():
        if node["isLeaf"]:
            # Nothing to expand: YuniKorn omits the empty lists.
            assert "children" not in node
            assert "childNames" not in node
        else:
            assert node["childNames"] == [child["queuename"] for child in node["children"]]
    assert nodes["root"]["childNames"] == ["root.free", "root.org"]
    # team is configured as a parent queue: not a leaf even though nothing runs below it yet.
    assert nodes["root.org.team"]["isLeaf"] is False


def test_parent_is_the_path_above_and_root_has_none(viewer_token, hierarchy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    assert "parent" not in nodes["root"]
    assert nodes["root.org"]["parent"] == "root"
    assert nodes["root.org.team.leaf"]["parent"] == "root.org.team"


def test_the_child_template_is_shown_on_its_queue_and_the_parents_below(viewer_token, hierarchy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    assert nodes["root.org"]["template"] == TEMPLATE_INFO
    # A parent without a template of its own inherits its parent's (YuniKorn's addChildQueue).
    assert nodes["root.org.team"]["template"] == TEMPLATE_INFO
    for path in ("root", "root.free", "root.org.open", "root.org.team.leaf"):
        assert "template" not in nodes[path], path


def test_a_dynamic_queue_is_unmanaged(admin_api, viewer_token, hierarchy):
    response = admin_api.post(
        ALLOCATIONS, body("k1", queue="root.org.team.dyn", memory=GiB), format="json"
    )
    assert response.status_code == 201, response.json()

    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    dynamic = nodes["root.org.team.dyn"]
    assert dynamic["isManaged"] is False
    assert dynamic["isLeaf"] is True
    assert dynamic["parent"] == "root.org.team"
    assert nodes["root.org.team"]["childNames"] == ["root.org.team.dyn", "root.org.team.leaf"]


def test_the_other_partition_names_itself(viewer_token, hierarchy):
    tree = viewer_token.get(f"{WS}/partition/gpu/queues").json()

    assert {node["partition"] for node in nodes_by_path(tree).values()} == {"gpu"}
