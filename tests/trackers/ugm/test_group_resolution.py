"""Spec 2.4 and D3: the single group an application is tracked against, and when it is fixed."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import (
    M,
    fill,
    group_names,
    group_used,
    lim,
    make_engine,
    partition_for,
)


def resolve(engine, path, groups, user="alice", app="app1"):
    decision = engine.increase(path, app, user, list(groups), {})
    assert decision.allowed, decision.message
    return decision.group


def linked(engine, user):
    return engine.user_usage(user).get("groups", {})


# ------------------------------------------------------------------ the algorithm


ROOT_DEV_OPS = {"root": [lim(groups=["dev"], apps=9), lim(groups=["ops"], apps=9)]}


@pytest.mark.parametrize(
    ("limits", "path", "groups", "expected"),
    [
        # 1. no groups -> no group, even with a group wildcard
        (ROOT_DEV_OPS, "root.a", [], None),
        ({"root": [lim(groups=["dev"], apps=9), lim(groups=["*"], apps=9)]}, "root.a", [], None),
        # 2a. config order wins over the order of the user's groups
        (ROOT_DEV_OPS, "root.a", ["ops", "dev"], "dev"),
        (ROOT_DEV_OPS, "root.a", ["dev", "ops"], "dev"),
        ({"root": [lim(groups=["ops", "dev"], apps=9)]}, "root.a", ["dev", "ops"], "ops"),
        ({"root": [lim(groups=["b", "a"], apps=9)]}, "root.a", ["a", "b"], "b"),
        ({"root": [lim(groups=["b"], apps=9), lim(groups=["a"], apps=9)]}, "root", ["a", "b"], "b"),
        # only the groups the user is in count
        (ROOT_DEV_OPS, "root.a", ["qa", "ops"], "ops"),
        (ROOT_DEV_OPS, "root.a", ["qa"], None),
        # 2b. group wildcard at the level when no named group matches
        (
            {"root": [lim(groups=["dev"], apps=9), lim(groups=["*"], apps=9)]},
            "root.a",
            ["qa"],
            "*",
        ),
        (
            {"root": [lim(groups=["dev"], apps=9), lim(groups=["*"], apps=9)]},
            "root.a",
            ["qa", "dev"],
            "dev",
        ),
        # 2c. climb to the parent level
        ({"root.parent": [lim(groups=["dev"], apps=9)]}, "root.parent.leaf", ["dev"], "dev"),
        ({"root.parent": [lim(groups=["dev"], apps=9)]}, "root.parent", ["dev"], "dev"),
        ({"root": [lim(groups=["dev"], apps=9)]}, "root.parent.leaf", ["dev"], "dev"),
        ({"root": [lim(groups=["dev"], apps=9)]}, "root.x.dynamic.deep", ["dev"], "dev"),
        # the nearest level with a match wins
        (
            {"root": [lim(groups=["dev"], apps=9)], "root.parent": [lim(groups=["ops"], apps=9)]},
            "root.parent.leaf",
            ["dev", "ops"],
            "ops",
        ),
        (
            {"root": [lim(groups=["dev"], apps=9)], "root.parent": [lim(groups=["ops"], apps=9)]},
            "root.parent.leaf",
            ["dev"],
            "dev",
        ),
        (
            {"root": [lim(groups=["dev"], apps=9)], "root.parent": [lim(groups=["ops"], apps=9)]},
            "root.a",
            ["ops"],
            None,
        ),
        # a deeper wildcard shadows named groups higher up
        (
            {
                "root": [lim(groups=["dev"], apps=9)],
                "root.a": [lim(groups=["ops"], apps=9), lim(groups=["*"], apps=9)],
            },
            "root.a",
            ["dev"],
            "*",
        ),
        (
            {
                "root": [lim(groups=["dev"], apps=9)],
                "root.a": [lim(groups=["ops"], apps=9), lim(groups=["*"], apps=9)],
            },
            "root.b",
            ["dev"],
            "dev",
        ),
        # a group named only deeper than the app's queue is never used
        ({"root.parent.leaf": [lim(groups=["dev"], apps=9)]}, "root.parent", ["dev"], None),
        ({"root.parent.leaf": [lim(groups=["dev"], apps=9)]}, "root", ["dev"], None),
        # ... nor one named on a sibling branch
        ({"root.b": [lim(groups=["dev"], apps=9)]}, "root.a", ["dev"], None),
        # 3. no match anywhere -> no group
        ({}, "root.a", ["dev"], None),
        ({"root": [lim(users=["*"], apps=9)]}, "root.a", ["dev"], None),
    ],
)
def test_resolution(limits, path, groups, expected):
    engine = make_engine(limits=limits)
    assert resolve(engine, path, groups) == expected
    links = linked(engine, "alice")
    if expected is None:
        assert "app1" not in links
    else:
        assert links["app1"] == expected
        assert "app1" in engine.group_usage(expected)["applications"]


@pytest.mark.parametrize("groups", [[], ["qa"], ["dev"], ["qa", "dev"]])
def test_decision_group_for_a_denied_increase_is_the_would_be_group(groups):
    engine = make_engine(
        limits={
            "root": [
                lim(users=["*"], res=M(1)),
                lim(groups=["dev"], apps=9),
                lim(groups=["*"], apps=9),
            ]
        }
    )
    decision = engine.increase("root.a", "app1", "alice", groups, M(2))
    assert not decision.allowed
    expected = None if not groups else ("dev" if "dev" in groups else "*")
    assert decision.group == expected


# ------------------------------------------------------------------ side effects


def test_only_one_group_is_charged_for_a_member_of_two():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], res=M(100)), lim(groups=["ops"], res=M(100))]}
    )
    fill(engine, "root.a", "alice", M(70), app="a1", groups=["ops", "dev"])
    assert group_used(engine, "dev", "root") == {"memory": 70}
    assert group_used(engine, "ops", "root") == {}
    # ops is untouched: a pure ops member can still use all of it
    assert engine.increase("root.a", "b1", "bob", ["ops"], M(100)).allowed


def test_deeper_wildcard_keeps_the_app_off_the_named_group_above():
    engine = make_engine(
        limits={
            "root": [lim(groups=["dev"], res=M(10))],
            "root.a": [lim(groups=["ops"], res=M(500)), lim(groups=["*"], res=M(500))],
        }
    )
    decision = engine.increase("root.a", "a1", "alice", ["dev"], M(100))
    assert decision.allowed
    assert decision.group == "*"
    assert group_used(engine, "dev", "root") == {}
    assert group_used(engine, "*", "root.a") == {"memory": 100}
    # dev's root cap still applies to dev apps elsewhere
    assert engine.increase("root.b", "b1", "alice", ["dev"], M(11)).reason == "groupQuota"


def test_group_is_fixed_for_the_app_whatever_groups_later_calls_pass():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], res=M(100)), lim(groups=["ops"], res=M(100))]}
    )
    assert resolve(engine, "root.a", ["dev"]) == "dev"
    for groups in (["ops"], [], ["ops", "dev"], ["qa"]):
        decision = engine.increase("root.a", "app1", "alice", groups, M(10))
        assert decision.allowed
        assert decision.group == "dev"
    assert group_used(engine, "dev", "root") == {"memory": 40}
    assert group_used(engine, "ops", "root") == {}


def test_no_group_is_fixed_too_until_the_app_is_removed():
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    assert resolve(engine, "root.a", []) is None
    decision = engine.increase("root.a", "app1", "alice", ["dev"], M(10))
    assert decision.group is None
    assert group_used(engine, "dev", "root") == {}
    engine.decrease("root.a", "app1", "alice", M(10), True)
    assert resolve(engine, "root.a", ["dev"]) == "dev"


def test_group_headroom_of_a_linked_app_uses_the_linked_group():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], res=M(100)), lim(groups=["ops"], res=M(30))]}
    )
    assert resolve(engine, "root.a", ["dev"]) == "dev"
    assert engine.headroom("root.a", "app1", "alice", ["ops"]) == {"memory": 100}
    assert engine.headroom("root.a", "other", "alice", ["ops"]) == {"memory": 30}


def test_each_app_of_a_user_resolves_on_its_own():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], apps=9)], "root.a": [lim(groups=["ops"], apps=9)]}
    )
    assert resolve(engine, "root.a", ["dev", "ops"], app="x") == "ops"
    assert resolve(engine, "root.b", ["dev", "ops"], app="y") == "dev"
    assert resolve(engine, "root.b", [], app="z") is None
    assert linked(engine, "alice") == {"x": "ops", "y": "dev"}


def test_remove_app_unlinks_and_the_next_increase_resolves_again():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], apps=9), lim(groups=["ops"], apps=9)]}
    )
    assert resolve(engine, "root.a", ["dev"]) == "dev"
    engine.decrease("root.a", "app1", "alice", {}, True)
    assert engine.user_usage("alice") is None or "app1" not in linked(engine, "alice")
    assert "app1" not in engine.group_usage("dev").get("applications", [])
    assert resolve(engine, "root.a", ["ops"]) == "ops"


def test_remove_app_false_keeps_the_link():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], apps=9), lim(groups=["ops"], apps=9)]}
    )
    fill(engine, "root.a", "alice", M(5), app="app1", groups=["dev"])
    engine.decrease("root.a", "app1", "alice", M(5), False)
    assert linked(engine, "alice") == {"app1": "dev"}
    assert resolve(engine, "root.a", ["ops"]) == "dev"


def test_named_group_tracker_exists_only_by_config_or_by_apps():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=9)]})
    assert group_names(engine) == ["dev"]
    resolve(engine, "root.a", ["ops", "qa"])
    assert group_names(engine) == ["dev"]
    assert engine.group_usage("ops") is None
    assert engine.group_usage("qa") is None


# ------------------------------------------------------------------ D3: link at first success


def test_denied_increase_does_not_link_the_app():
    engine = make_engine(
        limits={"root": [lim(users=["*"], res=M(5)), lim(groups=["dev"], res=M(100))]}
    )
    decision = engine.increase("root.a", "app1", "alice", ["dev"], M(6))
    assert not decision.allowed
    assert engine.user_usage("alice") is None
    assert "app1" not in engine.group_usage("dev").get("applications", [])


def test_group_is_resolved_at_the_first_successful_increase_not_at_a_check():
    first = {"root": [lim(users=["*"], res=M(5)), lim(groups=["dev"], apps=9)]}
    second = {
        "root": [
            lim(users=["*"], res=M(50)),
            lim(groups=["ops"], apps=9),
            lim(groups=["dev"], apps=9),
        ]
    }
    engine = make_engine(limits=first)
    # checks and a denial under the first config
    assert engine.headroom("root.a", "app1", "alice", ["dev", "ops"]) == {"memory": 5}
    assert engine.can_run_app("root.a", "app1", "alice", ["dev", "ops"])
    assert not engine.increase("root.a", "app1", "alice", ["dev", "ops"], M(6)).allowed
    engine.apply_config(partition_for(limits=second))
    decision = engine.increase("root.a", "app1", "alice", ["dev", "ops"], M(6))
    assert decision.allowed
    assert decision.group == "ops"  # YuniKorn would have fixed "dev" at the first check


def test_headroom_and_can_run_app_do_not_link_or_create_anything():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=1)]})
    before = engine.seq
    for _ in range(3):
        engine.headroom("root.a", "app1", "alice", ["dev"])
        engine.can_run_app("root.a", "app1", "alice", ["dev"])
    assert engine.seq == before
    assert engine.user_usage("alice") is None
    assert "applications" not in engine.group_usage("dev")
