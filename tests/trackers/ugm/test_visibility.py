"""Spec 2.8 and D6: which trackers and which nodes are listed, and which limit each node shows."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import (
    M,
    fill,
    group_names,
    group_node,
    lim,
    make_engine,
    tree_paths,
    user_names,
    user_node,
)


def paths_of_user(engine, user):
    return tree_paths(engine.user_usage(user)["queues"])


def paths_of_group(engine, group):
    return tree_paths(engine.group_usage(group)["queues"])


# ------------------------------------------------------------------ materialised at load


@pytest.mark.parametrize(
    ("path", "expected_paths"),
    [
        ("root", {"root"}),
        ("root.a", {"root", "root.a"}),
        ("root.parent.leaf", {"root", "root.parent", "root.parent.leaf"}),
        ("root.new.deep", {"root", "root.new", "root.new.deep"}),
    ],
)
def test_named_user_is_listed_with_its_limit_path_and_no_usage(path, expected_paths):
    engine = make_engine(limits={path: [lim(users=["alice"], res=M(100), apps=3)]})
    assert user_names(engine) == ["alice"]
    obj = engine.user_usage("alice")
    assert paths_of_user(engine, "alice") == expected_paths
    assert "groups" not in obj
    node = user_node(engine, "alice", path)
    assert node["maxResources"] == {"memory": 100}
    assert node["maxApplications"] == 3
    for shown in expected_paths:
        shown_node = user_node(engine, "alice", shown)
        assert "resourceUsage" not in shown_node
        assert "runningApplications" not in shown_node


def test_named_user_at_several_levels_gets_every_branch():
    engine = make_engine(
        limits={
            "root.parent.leaf": [lim(users=["alice"], res=M(10))],
            "root.b": [lim(users=["alice"], apps=2)],
        }
    )
    assert paths_of_user(engine, "alice") == {
        "root",
        "root.parent",
        "root.parent.leaf",
        "root.b",
    }
    assert user_node(engine, "alice", "root.b")["maxApplications"] == 2
    assert "maxResources" not in user_node(engine, "alice", "root.b")
    parent = user_node(engine, "alice", "root.parent")
    assert "maxResources" not in parent
    assert "maxApplications" not in parent


def test_every_user_of_an_entry_is_listed():
    engine = make_engine(limits={"root.a": [lim(users=["sue", "bob", "amy"], apps=1)]})
    assert user_names(engine) == ["amy", "bob", "sue"]


def test_user_wildcard_is_not_a_tracker():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(100))]})
    assert engine.users_usage() == []
    assert engine.user_usage("*") is None


def test_shown_nodes_display_the_wildcard_where_the_user_is_not_named():
    engine = make_engine(
        limits={
            "root": [lim(users=["*"], res=M(100), apps=4)],
            "root.parent.leaf": [lim(users=["alice"], res=M(50), apps=2)],
        }
    )
    root = user_node(engine, "alice", "root")
    assert root["maxResources"] == {"memory": 100}
    assert root["maxApplications"] == 4
    assert "maxResources" not in user_node(engine, "alice", "root.parent")
    assert user_node(engine, "alice", "root.parent.leaf")["maxResources"] == {"memory": 50}


def test_named_groups_are_listed_and_star_only_with_a_group_wildcard():
    with_star = make_engine(
        limits={"root.a": [lim(groups=["dev", "ops"], apps=2), lim(groups=["*"], res=M(9))]}
    )
    assert group_names(with_star) == ["*", "dev", "ops"]
    star = group_node(with_star, "*", "root.a")
    assert star["maxResources"] == {"memory": 9}
    assert paths_of_group(with_star, "*") == {"root", "root.a"}
    assert paths_of_group(with_star, "dev") == {"root", "root.a"}
    assert group_node(with_star, "dev", "root.a")["maxApplications"] == 2
    without_star = make_engine(limits={"root.a": [lim(groups=["dev"], apps=2)]})
    assert group_names(without_star) == ["dev"]
    assert without_star.group_usage("*") is None


def test_group_object_without_apps_has_no_applications_field():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=2)]})
    obj = engine.group_usage("dev")
    assert obj["groupName"] == "dev"
    assert "applications" not in obj
    assert obj["queues"]["queuePath"] == "root"


# ------------------------------------------------------------------ usage makes things visible


def test_user_with_usage_is_listed_and_shows_only_the_used_path():
    engine = make_engine()
    fill(engine, "root.parent.leaf", "alice", M(10), app="a1")
    assert user_names(engine) == ["alice"]
    assert paths_of_user(engine, "alice") == {"root", "root.parent", "root.parent.leaf"}


def test_usage_and_named_limit_branches_are_merged():
    engine = make_engine(limits={"root.b": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.parent.child2", "alice", M(10), app="a1")
    assert paths_of_user(engine, "alice") == {
        "root",
        "root.b",
        "root.parent",
        "root.parent.child2",
    }
    engine.decrease("root.parent.child2", "a1", "alice", M(10), True)
    assert paths_of_user(engine, "alice") == {"root", "root.b"}


def test_wildcard_capped_user_node_shows_the_wildcard_limit():
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(100), apps=2)]})
    fill(engine, "root.a", "bob", M(10), app="b1")
    node = user_node(engine, "bob", "root.a")
    assert node["maxResources"] == {"memory": 100}
    assert node["maxApplications"] == 2
    assert node["resourceUsage"] == {"memory": 10}


def test_wildcard_capped_user_disappears_when_empty():  # D6
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(100), apps=2)]})
    fill(engine, "root.a", "bob", M(10), app="b1")
    engine.decrease("root.a", "b1", "bob", M(10), True)
    assert engine.user_usage("bob") is None
    assert user_names(engine) == []


def test_wildcard_paths_are_not_added_to_other_users():
    engine = make_engine(
        limits={
            "root.b": [lim(users=["*"], res=M(100))],
            "root.a": [lim(users=["alice"], res=M(50))],
        }
    )
    assert paths_of_user(engine, "alice") == {"root", "root.a"}
    fill(engine, "root.parent", "carol", M(1), app="c1")
    assert paths_of_user(engine, "carol") == {"root", "root.parent"}


def test_user_with_a_running_app_and_no_usage_is_listed():
    engine = make_engine()
    fill(engine, "root.a", "alice", {}, app="a1")
    assert user_names(engine) == ["alice"]
    assert user_node(engine, "alice", "root.a")["runningApplications"] == ["a1"]


def test_group_with_usage_is_listed_and_shows_apps():
    engine = make_engine(limits={"root.parent": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.parent.leaf", "alice", M(10), app="a1", groups=["dev"])
    fill(engine, "root.parent.leaf", "bob", M(5), app="b1", groups=["dev"])
    obj = engine.group_usage("dev")
    assert obj["applications"] == ["a1", "b1"]
    assert paths_of_group(engine, "dev") == {"root", "root.parent", "root.parent.leaf"}
    leaf = group_node(engine, "dev", "root.parent.leaf")
    assert leaf["resourceUsage"] == {"memory": 15}
    assert leaf["runningApplications"] == ["a1", "b1"]
    assert "maxResources" not in leaf
    assert group_node(engine, "dev", "root.parent")["maxResources"] == {"memory": 100}


def test_user_object_lists_only_apps_with_a_group():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=5)]})
    fill(engine, "root.a", "alice", M(1), app="with", groups=["dev"])
    fill(engine, "root.a", "alice", M(1), app="without", groups=["qa"])
    obj = engine.user_usage("alice")
    assert obj["groups"] == {"with": "dev"}
    assert engine.user_usage("alice")["queues"]["runningApplications"] == ["with", "without"]


def test_unknown_names_give_none():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], apps=1), lim(groups=["dev"], apps=1)]}
    )
    assert engine.user_usage("bob") is None
    assert engine.group_usage("ops") is None
    assert engine.user_usage("Alice") is None
    assert engine.group_usage("Dev") is None
