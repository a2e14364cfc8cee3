"""Spec 2.10 and D1: one engine per partition; nothing crosses a partition boundary."""

from __future__ import annotations

from tests.trackers.ugm.support import (
    M,
    config_yaml,
    lim,
    parse,
    partition_doc,
    partition_for,
    used,
    user_names,
)
from trackers import Engine


def two_engines(limits_default=None, limits_gpu=None):
    text = config_yaml(
        partition_doc(name="default", limits=limits_default or {}),
        partition_doc(name="gpu", limits=limits_gpu or {}),
    )
    config = parse(text)
    default, gpu = config.partitions
    assert (default.name, gpu.name) == ("default", "gpu")
    return Engine(default), Engine(gpu)


def test_limits_of_one_partition_do_not_apply_to_the_other():
    default, gpu = two_engines(limits_default={"root": [lim(users=["*"], res=M(10), apps=1)]})
    assert default.headroom("root.a", "x", "alice", []) == {"memory": 10}
    assert gpu.headroom("root.a", "x", "alice", []) is None
    assert gpu.increase("root.a", "x", "alice", [], M(1000)).allowed
    assert gpu.increase("root.a", "y", "alice", [], {}).allowed


def test_usage_in_the_same_queue_path_is_kept_apart():
    default, gpu = two_engines(
        limits_default={"root": [lim(users=["*"], res=M(100))]},
        limits_gpu={"root": [lim(users=["*"], res=M(100))]},
    )
    assert default.increase("root.x", "a1", "alice", [], M(80)).allowed
    assert gpu.increase("root.x", "a1", "alice", [], M(80)).allowed
    assert used(default, "alice", "root.x") == {"memory": 80}
    assert used(gpu, "alice", "root.x") == {"memory": 80}
    assert default.headroom("root.x", "a1", "alice", []) == {"memory": 20}


def test_listings_show_only_their_partition():
    default, gpu = two_engines(
        limits_default={"root": [lim(users=["dora"], apps=1), lim(groups=["dev"], apps=1)]},
        limits_gpu={"root": [lim(users=["gus"], apps=1)]},
    )
    assert user_names(default) == ["dora"]
    assert user_names(gpu) == ["gus"]
    assert [g["groupName"] for g in default.groups_usage()] == ["dev"]
    assert gpu.groups_usage() == []
    gpu.increase("root.a", "g1", "zed", [], M(1))
    assert default.user_usage("zed") is None
    assert gpu.queues_usage()["allocatedResource"] == {"memory": 1}
    assert "allocatedResource" not in default.queues_usage()


def test_group_links_are_per_partition():
    default, gpu = two_engines(
        limits_default={"root": [lim(groups=["dev"], apps=5), lim(groups=["ops"], apps=5)]},
        limits_gpu={"root": [lim(groups=["ops"], apps=5), lim(groups=["dev"], apps=5)]},
    )
    assert default.increase("root.a", "same", "alice", ["dev", "ops"], {}).group == "dev"
    assert gpu.increase("root.a", "same", "alice", ["dev", "ops"], {}).group == "ops"


def test_sequence_numbers_are_per_engine():
    default, gpu = two_engines()
    start = gpu.seq
    default.increase("root.a", "a1", "alice", [], M(1))
    assert gpu.seq == start
    assert gpu.changes_since(start).users == frozenset()


def test_config_switch_of_one_partition_leaves_the_other_alone():
    default, gpu = two_engines(limits_gpu={"root": [lim(users=["*"], res=M(10))]})
    gpu.increase("root.a", "a1", "alice", [], M(5))
    start = gpu.seq
    default.apply_config(partition_for(limits={"root": [lim(users=["*"], res=M(1))]}))
    assert gpu.seq == start
    assert gpu.headroom("root.a", "a1", "alice", []) == {"memory": 5}
