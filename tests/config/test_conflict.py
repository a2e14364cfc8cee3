"""The active version moves only by compare-and-set: a change from a stale base is refused."""

import pytest

from quotaweb.config.models import ActiveConfig, ConfigVersion
from quotaweb.config.services import ConfigConflict, config_apply, limit_update, queue_update
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db


def test_the_second_admin_is_refused_and_told_what_changed(active_small, admin):
    limit_update(
        partition="default", queue_path="root.eng", index=0,
        values={"max_resources": {"memory": "30Gi", "vcore": "20"}},
        author=admin, comment="first admin", base_version=1,
    )

    with pytest.raises(ConfigConflict) as caught:
        queue_update(
            partition="default", queue_path="root.eng", values={"max_applications": 9},
            author=admin, comment="second admin", base_version=1,
        )

    conflict = caught.value
    assert (conflict.base_version, conflict.active_version) == (1, 2)
    assert conflict.changes == [
        {
            "kind": "limit", "change": "changed", "partition": "default",
            "queuePath": "root.eng", "index": 0,
            "old": {"description": "alice", "users": ["alice"], "groups": [],
                    "max_resources": {"memory": "40Gi", "vcore": "20"}, "max_applications": 4},
            "new": {"description": "alice", "users": ["alice"], "groups": [],
                    "max_resources": {"memory": "30Gi", "vcore": "20"}, "max_applications": 4},
        }
    ]
    assert "version 2 is active now" in str(conflict)
    assert ConfigVersion.objects.count() == 2
    assert ActiveConfig.objects.get().version_id == 2
    assert active_small.version("default") == 2


def test_a_first_import_against_an_existing_config_is_a_conflict(active_small):
    other = SMALL_YAML.replace("maxapplications: 6", "maxapplications: 7")

    with pytest.raises(ConfigConflict) as caught:
        config_apply(yaml_text=other, author=None, base_version=None)

    assert caught.value.active_version == 1
    # From nothing to version 1: everything of version 1 is new.
    assert {(c["kind"], c["change"]) for c in caught.value.changes} == {
        ("partition", "added"), ("queue", "added"), ("limit", "added")
    }
    assert ConfigVersion.objects.count() == 1
