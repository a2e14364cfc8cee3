"""Spec 2.5, app count: ``can_run_app`` and the ``maxApplications`` denial.

A new app needs one free slot at every capped level from root to its queue, for the user and for
its (would-be) group; an app that is already running is never blocked.
"""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for


def start(engine, path, app, user="alice", groups=()):
    return engine.increase(path, app, user, list(groups), {})


@pytest.mark.parametrize("cap", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("who", ["named", "wildcard"])
def test_user_cap_admits_exactly_cap_apps(cap, who):
    users = ["alice"] if who == "named" else ["*"]
    engine = make_engine(limits={"root.a": [lim(users=users, apps=cap)]})
    for i in range(cap):
        assert engine.can_run_app("root.a", f"app{i}", "alice", [])
        assert start(engine, "root.a", f"app{i}").allowed
    assert not engine.can_run_app("root.a", "extra", "alice", [])
    decision = start(engine, "root.a", "extra")
    assert (decision.allowed, decision.reason) == (False, "maxApplications")
    # every running app still passes
    for i in range(cap):
        assert engine.can_run_app("root.a", f"app{i}", "alice", [])
        assert engine.increase("root.a", f"app{i}", "alice", [], M(1)).allowed


@pytest.mark.parametrize("cap", [1, 2, 4])
def test_group_cap_is_shared_by_members(cap):
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=cap)]})
    for i in range(cap):
        assert start(engine, "root.a", f"app{i}", user=f"user{i}", groups=["dev"]).allowed
    decision = start(engine, "root.a", "late", user="late", groups=["dev"])
    assert (decision.allowed, decision.reason, decision.group) == (False, "maxApplications", "dev")
    assert not engine.can_run_app("root.b", "late", "late", ["dev"])
    # a non-member is not affected
    assert start(engine, "root.a", "free", user="late", groups=["ops"]).allowed


@pytest.mark.parametrize(
    "paths",
    [
        ["root.parent.leaf", "root.parent.child1"],
        ["root.parent.child1", "root.parent.child2"],
        ["root.parent.leaf", "root.parent.leaf"],
        ["root.parent", "root.parent.dyn"],
    ],
)
def test_ancestor_cap_counts_apps_in_the_whole_subtree(paths):
    engine = make_engine(limits={"root.parent": [lim(users=["*"], apps=2)]})
    assert start(engine, paths[0], "one").allowed
    assert start(engine, paths[1], "two").allowed
    for path in ("root.parent", "root.parent.leaf", "root.parent.child2", "root.parent.x"):
        assert not engine.can_run_app(path, "three", "alice", [])
        assert start(engine, path, "three").reason == "maxApplications"
    # outside the capped subtree nothing is counted
    assert start(engine, "root.a", "three").allowed


def test_root_cap_counts_all_queues():
    engine = make_engine(limits={"root": [lim(users=["alice"], apps=3)]})
    for app, path in (("x", "root.a"), ("y", "root.b"), ("z", "root.parent.leaf")):
        assert start(engine, path, app).allowed
    assert start(engine, "root.dynamic", "w").reason == "maxApplications"
    assert start(engine, "root.dynamic", "w", user="bob").allowed


def test_every_capped_level_must_have_room():
    engine = make_engine(
        limits={
            "root": [lim(users=["*"], apps=3)],
            "root.parent.leaf": [lim(users=["*"], apps=1)],
        }
    )
    assert start(engine, "root.parent.leaf", "l1").allowed
    assert start(engine, "root.parent.leaf", "l2").reason == "maxApplications"
    assert start(engine, "root.a", "a1").allowed
    assert start(engine, "root.b", "b1").allowed
    assert start(engine, "root.b", "b2").reason == "maxApplications"


def test_cap_zero_means_unlimited():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(10**9))]})
    for i in range(100):
        assert start(engine, "root.a", f"app{i}").allowed


def test_user_and_group_app_checks_both_must_pass():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], apps=5), lim(groups=["dev"], apps=1)]}
    )
    assert start(engine, "root.a", "a1", groups=["dev"]).allowed
    # alice has room, dev has not
    assert not engine.can_run_app("root.a", "a2", "alice", ["dev"])
    assert start(engine, "root.a", "a2", groups=["dev"]).reason == "maxApplications"
    # with no group the same app only needs alice's room
    assert engine.can_run_app("root.a", "a2", "alice", [])
    assert start(engine, "root.a", "a2").allowed


def test_user_cap_blocks_even_when_the_group_has_room():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], apps=1), lim(groups=["dev"], apps=10)]}
    )
    assert start(engine, "root.a", "a1", groups=["dev"]).allowed
    decision = start(engine, "root.a", "a2", groups=["dev"])
    assert (decision.reason, decision.group) == ("maxApplications", "dev")


def test_wildcard_group_cap_counts_every_app_resolved_to_star():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=5), lim(groups=["*"], apps=2)]})
    assert start(engine, "root.a", "x", user="u1", groups=["qa"]).allowed
    assert start(engine, "root.a", "y", user="u2", groups=["hr"]).allowed
    assert start(engine, "root.a", "z", user="u3", groups=["ops"]).reason == "maxApplications"
    assert start(engine, "root.a", "z", user="u3", groups=["dev"]).allowed
    # an app with no groups has no group: the '*' cap does not apply
    assert start(engine, "root.a", "w", user="u4", groups=[]).allowed


@pytest.mark.parametrize("remove_app", [True, False])
def test_only_removing_the_app_frees_its_slot(remove_app):
    engine = make_engine(limits={"root.a": [lim(users=["*"], apps=1)]})
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(10), remove_app)
    assert engine.can_run_app("root.a", "a2", "alice", []) is remove_app
    assert start(engine, "root.a", "a2").allowed is remove_app


def test_group_slot_is_freed_by_remove_app():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=1)]})
    fill(engine, "root.a", "alice", M(1), app="a1", groups=["dev"])
    assert start(engine, "root.a", "b1", user="bob", groups=["dev"]).reason == "maxApplications"
    engine.decrease("root.a", "a1", "alice", M(1), True)
    assert start(engine, "root.a", "b1", user="bob", groups=["dev"]).allowed


def test_running_app_is_never_blocked_after_the_cap_is_lowered():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], apps=3)]})
    for app in ("a1", "a2", "a3"):
        fill(engine, "root.a", "alice", M(1), app=app)
    engine.apply_config(partition_for(limits={"root.a": [lim(users=["alice"], apps=1)]}))
    for app in ("a1", "a2", "a3"):
        assert engine.can_run_app("root.a", app, "alice", [])
        assert engine.increase("root.a", app, "alice", [], M(1)).allowed
    assert start(engine, "root.a", "a4").reason == "maxApplications"
    # two removals still leave the count at the new cap
    engine.decrease("root.a", "a1", "alice", M(2), True)
    engine.decrease("root.a", "a2", "alice", M(2), True)
    assert start(engine, "root.a", "a4").reason == "maxApplications"
    engine.decrease("root.a", "a3", "alice", M(2), True)
    assert start(engine, "root.a", "a4").allowed


def test_can_run_app_with_no_limits_is_true_and_creates_nothing():
    engine = make_engine()
    assert engine.can_run_app("root.a", "x", "alice", ["dev"]) is True
    assert engine.users_usage() == []


@pytest.mark.parametrize("running", [0, 1, 2])
def test_can_run_app_agrees_with_increase(running):
    engine = make_engine(limits={"root.a": [lim(users=["*"], apps=2)]})
    for i in range(running):
        start(engine, "root.a", f"r{i}")
    expected = running < 2
    assert engine.can_run_app("root.a", "new", "alice", []) is expected
    assert start(engine, "root.a", "new").allowed is expected


def test_running_group_apps_are_never_blocked_after_the_group_cap_is_lowered():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=3)]})
    for user in ("u1", "u2", "u3"):
        fill(engine, "root.a", user, M(1), app=f"{user}-app", groups=["dev"])
    engine.apply_config(partition_for(limits={"root": [lim(groups=["dev"], apps=1)]}))
    for user in ("u1", "u2", "u3"):
        assert engine.increase("root.a", f"{user}-app", user, ["dev"], M(1)).allowed
    assert start(engine, "root.a", "late", user="u4", groups=["dev"]).reason == "maxApplications"
