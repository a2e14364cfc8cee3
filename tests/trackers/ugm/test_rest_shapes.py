"""Spec section 3 (and the queues view of the brief): exact field names, omission rules, sorting,
integer base units, explicit zero limits, negative usage."""

from __future__ import annotations

import json

import pytest

from tests.trackers.ugm.support import (
    M,
    fill,
    lim,
    make_engine,
    qconf,
    queue_node,
    user_node,
)

USER_KEYS = {"userName", "groups", "queues"}
GROUP_KEYS = {"groupName", "applications", "queues"}
NODE_KEYS = {
    "queuePath",
    "resourceUsage",
    "runningApplications",
    "maxResources",
    "maxApplications",
    "children",
}
QUEUE_KEYS = {
    "queuename",
    "maxResource",
    "guaranteedResource",
    "allocatedResource",
    "maxRunningApps",
    "runningApps",
    "properties",
    "children",
}


def walk(node):
    yield node
    for child in node.get("children", []):
        yield from walk(child)


def check_node(node):
    """Every tracker node obeys the omission rules."""
    assert set(node) <= NODE_KEYS
    assert isinstance(node["queuePath"], str)
    for key in ("resourceUsage", "runningApplications", "maxResources", "children"):
        if key in node:
            assert node[key], f"{key} present but empty in {node}"
    if "maxApplications" in node:
        assert isinstance(node["maxApplications"], int)
        assert node["maxApplications"] > 0
    if "resourceUsage" in node:
        assert all(type(v) is int and v != 0 for v in node["resourceUsage"].values())
    if "maxResources" in node:
        assert all(type(v) is int and v >= 0 for v in node["maxResources"].values())
    if "runningApplications" in node:
        assert node["runningApplications"] == sorted(node["runningApplications"])
    if "children" in node:
        paths = [c["queuePath"] for c in node["children"]]
        assert paths == sorted(paths)
        for child in node["children"]:
            assert child["queuePath"].rsplit(".", 1)[0] == node["queuePath"]


def check_everything(engine):
    users = engine.users_usage()
    assert isinstance(users, list)
    assert [u["userName"] for u in users] == sorted(u["userName"] for u in users)
    for user in users:
        assert set(user) <= USER_KEYS
        assert {"userName", "queues"} <= set(user)
        if "groups" in user:
            assert user["groups"]
            assert all(isinstance(g, str) for g in user["groups"].values())
        assert user["queues"]["queuePath"] == "root"
        for node in walk(user["queues"]):
            check_node(node)
        assert engine.user_usage(user["userName"]) == user
    groups = engine.groups_usage()
    assert isinstance(groups, list)
    assert [g["groupName"] for g in groups] == sorted(g["groupName"] for g in groups)
    for group in groups:
        assert set(group) <= GROUP_KEYS
        assert {"groupName", "queues"} <= set(group)
        if "applications" in group:
            assert group["applications"]
            assert group["applications"] == sorted(group["applications"])
        assert group["queues"]["queuePath"] == "root"
        for node in walk(group["queues"]):
            check_node(node)
        assert engine.group_usage(group["groupName"]) == group
    root = engine.queues_usage()
    assert root["queuename"] == "root"
    for queue in walk(root):
        assert set(queue) <= QUEUE_KEYS
        assert {"queuename", "runningApps"} <= set(queue)
        assert type(queue["runningApps"]) is int
        for key in ("maxResource", "guaranteedResource", "allocatedResource", "properties"):
            if key in queue:
                assert queue[key]
        if "maxRunningApps" in queue:
            assert queue["maxRunningApps"] > 0
        if "children" in queue:
            assert queue["children"]
            names = [c["queuename"] for c in queue["children"]]
            assert names == sorted(names)
    # everything is plain JSON
    json.dumps([users, groups, root])


LIMITS = {
    "root": [
        lim(users=["*"], res={"memory": 1000, "gpu": 0}, apps=10),
        lim(groups=["dev"], res=M(2000)),
        lim(groups=["*"], apps=4),
    ],
    "root.parent.leaf": [lim(users=["zoe", "adam"], res={"memory": 100, "vcore": 2}, apps=2)],
}


def busy():
    engine = make_engine(
        limits=LIMITS,
        queues={
            "root.a": qconf(
                max={"memory": 5000, "vcore": 8},
                guaranteed={"memory": 1000},
                apps=6,
                properties={"application.sort.policy": "fifo"},
            )
        },
    )
    fill(engine, "root.parent.leaf", "zoe", {"memory": 50, "vcore": 500}, app="z2", groups=["dev"])
    fill(engine, "root.parent.leaf", "zoe", {"memory": 10}, app="z1", groups=["qa"])
    fill(engine, "root.a", "mike", {"memory": 7}, app="m1", groups=[])
    fill(engine, "root.a.dyn", "bea", {}, app="b1", groups=["dev"])
    engine.decrease("root.a", "m1", "mike", {"memory": 9}, False)
    return engine


def test_all_shapes_follow_the_omission_rules():
    check_everything(make_engine())
    check_everything(make_engine(limits=LIMITS))
    check_everything(busy())


def test_empty_engine_lists_are_empty_lists():
    engine = make_engine()
    assert engine.users_usage() == []
    assert engine.groups_usage() == []


def test_user_object_exact():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=3)]})
    fill(engine, "root.a", "alice", {"memory": 10, "vcore": 1000}, app="app-1", groups=["dev"])
    assert engine.user_usage("alice") == {
        "userName": "alice",
        "groups": {"app-1": "dev"},
        "queues": {
            "queuePath": "root",
            "resourceUsage": {"memory": 10, "vcore": 1000},
            "runningApplications": ["app-1"],
            "children": [
                {
                    "queuePath": "root.a",
                    "resourceUsage": {"memory": 10, "vcore": 1000},
                    "runningApplications": ["app-1"],
                }
            ],
        },
    }


def test_group_object_exact():
    engine = make_engine(limits={"root.a": [lim(groups=["dev"], res={"memory": 100}, apps=3)]})
    fill(engine, "root.a", "alice", {"memory": 10, "vcore": 1000}, app="app-1", groups=["dev"])
    assert engine.group_usage("dev") == {
        "groupName": "dev",
        "applications": ["app-1"],
        "queues": {
            "queuePath": "root",
            "resourceUsage": {"memory": 10, "vcore": 1000},
            "runningApplications": ["app-1"],
            "children": [
                {
                    "queuePath": "root.a",
                    "resourceUsage": {"memory": 10, "vcore": 1000},
                    "runningApplications": ["app-1"],
                    "maxResources": {"memory": 100},
                    "maxApplications": 3,
                }
            ],
        },
    }


def test_named_user_without_usage_exact():
    engine = make_engine(
        limits={"root.a": [lim(users=["alice"], res={"memory": 100, "nvidia.com/gpu": 0})]}
    )
    assert engine.users_usage() == [
        {
            "userName": "alice",
            "queues": {
                "queuePath": "root",
                "children": [
                    {"queuePath": "root.a", "maxResources": {"memory": 100, "nvidia.com/gpu": 0}}
                ],
            },
        }
    ]


def test_max_resources_keep_explicit_zero_entries():
    engine = busy()
    assert user_node(engine, "zoe", "root")["maxResources"] == {"memory": 1000, "gpu": 0}
    assert user_node(engine, "mike", "root")["maxResources"] == {"memory": 1000, "gpu": 0}


def test_negative_usage_is_shown():
    engine = busy()
    assert user_node(engine, "mike", "root.a")["resourceUsage"] == {"memory": -2}
    assert user_node(engine, "mike", "root")["resourceUsage"] == {"memory": -2}


def test_users_are_sorted_and_app_lists_ascend():
    engine = busy()
    assert [u["userName"] for u in engine.users_usage()] == ["adam", "bea", "mike", "zoe"]
    leaf = user_node(engine, "zoe", "root.parent.leaf")
    assert leaf["runningApplications"] == ["z1", "z2"]
    assert engine.user_usage("zoe")["groups"] == {"z1": "*", "z2": "dev"}
    assert engine.group_usage("dev")["applications"] == ["b1", "z2"]


def test_groups_are_sorted_and_star_is_listed():
    engine = busy()
    assert [g["groupName"] for g in engine.groups_usage()] == ["*", "dev"]
    assert engine.group_usage("*")["applications"] == ["z1"]


def test_children_are_sorted_by_queue_path():
    engine = make_engine()
    for name in ("zz", "b", "a-1", "A2", "a"):
        fill(engine, f"root.{name}", "alice", M(1), app=f"app-{name}")
    root = engine.user_usage("alice")["queues"]
    paths = [c["queuePath"] for c in root["children"]]
    assert paths == sorted(paths)
    assert set(paths) == {"root.zz", "root.b", "root.a-1", "root.a2", "root.a"}


def test_limits_are_shown_in_base_units():
    engine = busy()
    assert user_node(engine, "zoe", "root.parent.leaf")["maxResources"] == {
        "memory": 100,
        "vcore": 2000,
    }
    assert user_node(engine, "zoe", "root.parent.leaf")["maxApplications"] == 2


def test_user_with_only_ungrouped_apps_has_no_groups_field():
    engine = busy()
    assert "groups" not in engine.user_usage("mike")
    assert engine.user_usage("bea")["groups"] == {"b1": "dev"}


def test_a_snapshot_does_not_change_afterwards():
    engine = busy()
    users = engine.users_usage()
    frozen = json.dumps(users, sort_keys=True)
    fill(engine, "root.parent.leaf", "zoe", M(1), app="z1")
    engine.decrease("root.a", "m1", "mike", M(1), True)
    assert json.dumps(users, sort_keys=True) == frozen


# ------------------------------------------------------------------ queues view


def test_queue_root_exact_without_usage():
    engine = make_engine(tree={"a": {}})
    assert engine.queues_usage() == {
        "queuename": "root",
        "runningApps": 0,
        "children": [{"queuename": "root.a", "runningApps": 0}],
    }


def test_queue_node_fields():
    engine = busy()
    node = queue_node(engine, "root.a")
    assert node["maxResource"] == {"memory": 5000, "vcore": 8000}
    assert node["guaranteedResource"] == {"memory": 1000}
    assert node["maxRunningApps"] == 6
    assert node["properties"] == {"application.sort.policy": "fifo"}
    assert node["runningApps"] == 2  # m1 and b1 (in the dynamic child)
    assert node["allocatedResource"] == {"memory": -2}
    dyn = queue_node(engine, "root.a.dyn")
    assert dyn is not None
    assert dyn["runningApps"] == 1
    assert "allocatedResource" not in dyn


def test_queue_allocation_is_summed_over_users():
    engine = make_engine()
    fill(engine, "root.parent.leaf", "u1", {"memory": 10, "vcore": 100}, app="x")
    fill(engine, "root.parent.child1", "u2", {"memory": 5}, app="y")
    fill(engine, "root.parent.child1", "u3", {"memory": 1}, app="z")
    assert queue_node(engine, "root.parent")["allocatedResource"] == {"memory": 16, "vcore": 100}
    assert queue_node(engine, "root.parent")["runningApps"] == 3
    assert queue_node(engine, "root.parent.child1")["allocatedResource"] == {"memory": 6}
    assert queue_node(engine, "root")["allocatedResource"] == {"memory": 16, "vcore": 100}
    assert queue_node(engine, "root")["runningApps"] == 3
    assert queue_node(engine, "root.a")["runningApps"] == 0
    assert "allocatedResource" not in queue_node(engine, "root.a")


def test_configured_queues_are_all_listed_and_sorted():
    engine = make_engine()
    root = engine.queues_usage()
    assert [c["queuename"] for c in root["children"]] == ["root.a", "root.b", "root.parent"]
    parent = queue_node(engine, "root.parent")
    assert [c["queuename"] for c in parent["children"]] == [
        "root.parent.child1",
        "root.parent.child2",
        "root.parent.leaf",
    ]
    assert "children" not in queue_node(engine, "root.a")


@pytest.mark.parametrize("path", ["root.dyn", "root.a.dyn", "root.x.y.z"])
def test_dynamic_queues_are_listed_while_they_have_usage(path):
    engine = make_engine()
    fill(engine, path, "alice", M(5), app="a1")
    parts = path.split(".")
    for i in range(2, len(parts) + 1):
        node = queue_node(engine, ".".join(parts[:i]))
        assert node is not None
        assert node["allocatedResource"] == {"memory": 5}
    engine.decrease(path, "a1", "alice", M(5), True)
    assert queue_node(engine, path) is None
    assert queue_node(engine, "root.a") is not None


def test_queue_view_allocation_has_no_zero_entries():
    engine = make_engine()
    fill(engine, "root.a", "alice", {"memory": 5, "vcore": 10}, app="a1")
    engine.decrease("root.a", "a1", "alice", {"vcore": 10}, False)
    assert queue_node(engine, "root.a")["allocatedResource"] == {"memory": 5}
