"""A switch compiles again only what changed: a partition the edit leaves alone keeps its
compiled limits, and in the partition it changes, every other queue keeps its compiled settings
and caps (the objects themselves); the engines answer from the new version."""

import pytest

from quotaweb.config.services import limit_update
from tests.configs import TREE_YAML

pytestmark = pytest.mark.django_db


def _compiled(gateway, partition):
    with gateway.engine(partition) as engine:
        return engine.compiled()


def test_an_edit_recompiles_only_the_queue_it_changes(active_tree):
    gpu = _compiled(active_tree, "gpu")
    before = _compiled(active_tree, "default")
    assert "gpu" in TREE_YAML  # two partitions, one edited

    limit_update(
        partition="default", queue_path="root.eng", index=0, values={"max_applications": 3},
        author=None, base_version=1,
    )

    assert _compiled(active_tree, "gpu").table is gpu.table
    after = _compiled(active_tree, "default")
    assert after.table is not before.table
    assert after.table.queues["root"] is before.table.queues["root"]
    assert after.table.levels["root.eng"] is not before.table.levels["root.eng"]
    assert after.table.user_cap("alice", "root.eng").max_applications == 3
    assert active_tree.version("default") == 2
