"""``headroom`` and ``absUsedCapacity`` of the queue nodes, computed YuniKorn's way from real
usage (allocations through the API):

- headroom: max minus allocated in the max's types, the tighter per type with the parent's
  headroom; a queue without a max shows its parent's; none at all without a max above (omitted);
- absUsedCapacity: per type of the max that has usage, the integer percentage, truncated.
"""

from __future__ import annotations

import pytest

from quotaweb.config.services import config_apply
from quotaweb.config.yunikorn import INT64_MIN, abs_used_capacity
from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.api.yunikorn_support import HIERARCHY_YAML, WS, nodes_by_path
from tests.configs import store_and_load
from trackers.resources import INT64_MAX

pytestmark = pytest.mark.django_db

QUEUES = f"{WS}/partition/default/queues"


@pytest.fixture
def busy(admin_api):
    """6 GiB and 2 vcores in root.org.team.leaf, 1 GiB in root.free."""
    gateway = store_and_load(HIERARCHY_YAML)
    for key, queue, memory in (("k1", "root.org.team.leaf", 6 * GiB), ("k2", "root.free", GiB)):
        sent = body(key, queue=queue, memory=memory, app=f"app-{key}")
        if key == "k1":
            sent["resource"]["vcore"] = 2000
        response = admin_api.post(ALLOCATIONS, sent, format="json")
        assert response.status_code == 201, response.json()
    return gateway


def test_headroom_is_max_minus_allocated_the_tighter_with_the_parents(viewer_token, busy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    # org: 30 GiB and 10 vcores, 6 GiB and 2 vcores used below it.
    assert nodes["root.org"]["headroom"] == {"memory": 24 * GiB, "vcore": 8000}
    # team has no max: its parent's headroom.
    assert nodes["root.org.team"]["headroom"] == {"memory": 24 * GiB, "vcore": 8000}
    # leaf: its own 10 GiB less 6, and org's vcore room (leaf names no vcore).
    assert nodes["root.org.team.leaf"]["headroom"] == {"memory": 4 * GiB, "vcore": 8000}
    # open: nothing used, no max: org's.
    assert nodes["root.org.open"]["headroom"] == {"memory": 24 * GiB, "vcore": 8000}


def test_without_a_max_above_there_is_no_headroom(viewer_token, busy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    assert "headroom" not in nodes["root"]
    assert "headroom" not in nodes["root.free"]
    assert nodes["root.free"]["allocatedResource"] == {"memory": GiB}


def test_abs_used_capacity_is_the_integer_percent_of_max_per_type_with_usage(viewer_token, busy):
    nodes = nodes_by_path(viewer_token.get(QUEUES).json())

    assert nodes["root.org"]["absUsedCapacity"] == {"memory": 20, "vcore": 20}
    # leaf's max names memory only.
    assert nodes["root.org.team.leaf"]["absUsedCapacity"] == {"memory": 60}
    for path in ("root", "root.org.team", "root.org.open", "root.free"):
        # No max, or a max whose types have no usage: omitted, not empty.
        assert "absUsedCapacity" not in nodes[path], path


def test_a_lowered_max_gives_negative_headroom_and_more_than_100_percent(viewer_token, busy):
    config_apply(
        yaml_text=HIERARCHY_YAML.replace("max: {memory: 10Gi}", "max: {memory: 4Gi}"),
        author=None, base_version=1,
    )

    leaf = nodes_by_path(viewer_token.get(QUEUES).json())["root.org.team.leaf"]

    assert leaf["maxResource"] == {"memory": 4 * GiB}
    assert leaf["headroom"] == {"memory": -2 * GiB, "vcore": 8000}
    assert leaf["absUsedCapacity"] == {"memory": 150}


@pytest.mark.parametrize(("maximum", "used", "percent"), [
    ({"memory": 3}, {"memory": 1}, {"memory": 33}),
    # Truncated toward zero, as Go's int64 conversion does, never rounded.
    ({"memory": 3}, {"memory": 2}, {"memory": 66}),
    ({"memory": 3}, {"memory": -1}, {"memory": -33}),
    # Types of max without usage, and usage outside max, are left out.
    ({"memory": 10, "vcore": 10}, {"memory": 5, "gpu": 1}, {"memory": 50}),
    # A 0 max: Go's infinite quotient ends at int64's bounds.
    ({"gpu": 0}, {"gpu": 1}, {"gpu": INT64_MAX}),
    ({"gpu": 0}, {"gpu": -1}, {"gpu": INT64_MIN}),
    ({"memory": 1}, {"memory": 2**62}, {"memory": INT64_MAX}),
])
def test_abs_used_capacity_follows_yunikorn_arithmetic(maximum, used, percent):
    assert abs_used_capacity(maximum, used) == percent
