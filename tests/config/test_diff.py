"""A diff between two versions: the unified YAML diff and a structured list of changes."""

import pytest

from quotaweb.config.changes import config_diff
from quotaweb.config.selectors import version_get
from quotaweb.config.services import config_apply
from tests.configs import SMALL_YAML

NEWER = (
    SMALL_YAML.replace("maxapplications: 6", "maxapplications: 8")
    .replace("max: {memory: 100Gi, vcore: \"100\"}", "max: {memory: 120Gi, vcore: \"100\"}")
    + "          - name: ops\n            maxapplications: 5\n"
)


def test_structured_changes_name_queues_and_limits_with_old_and_new_values():
    diff = config_diff(old=SMALL_YAML, new=NEWER)

    summary = [(c["kind"], c["change"], c.get("queuePath"), c.get("index")) for c in diff.changes]
    assert summary == [
        ("queue", "changed", "root.eng", None),
        ("limit", "changed", "root.eng", 2),
        ("queue", "added", "root.ops", None),
    ]
    eng, ml, ops = diff.changes
    assert (eng["old"]["max"], eng["new"]["max"]) == (
        {"memory": "100Gi", "vcore": "100"}, {"memory": "120Gi", "vcore": "100"}
    )
    assert (ml["old"]["max_applications"], ml["new"]["max_applications"]) == (6, 8)
    assert ops["old"] is None
    assert ops["new"]["max_applications"] == 5


def test_the_unified_diff_shows_the_changed_lines():
    diff = config_diff(old=SMALL_YAML, new=NEWER, old_label="version 1", new_label="version 2")

    assert diff.unified.startswith("--- version 1\n+++ version 2\n")
    assert "-                maxapplications: 6\n" in diff.unified
    assert "+                maxapplications: 8\n" in diff.unified


def test_removed_things_and_identical_documents():
    assert config_diff(old=SMALL_YAML, new=SMALL_YAML).changes == []

    removed = config_diff(old=NEWER, new=SMALL_YAML).changes

    assert [(c["kind"], c["change"], c["queuePath"]) for c in removed][-1] == (
        "queue", "removed", "root.ops"
    )


def test_a_partition_that_appears(sample_yaml):
    changes = config_diff(old=SMALL_YAML, new=sample_yaml).changes

    gpu = [c for c in changes if c["partition"] == "gpu"]
    assert gpu[0]["kind"] == "partition"
    assert gpu[0]["change"] == "added"
    assert {c["change"] for c in gpu} == {"added"}


@pytest.mark.django_db
def test_diff_between_two_stored_versions(active_small):
    config_apply(yaml_text=NEWER, author=None, base_version=1)

    diff = config_diff(old=version_get(number=1).yaml, new=version_get(number=2).yaml)

    assert len(diff.changes) == 3
