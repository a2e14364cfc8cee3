"""Spec 2.2, 2.6, D2: an increase is check-and-apply in one step; a denial changes nothing, and an
allowed increase updates the user and the app's group together (never one without the other)."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import (
    M,
    fill,
    group_used,
    lim,
    make_engine,
    qconf,
    snapshot,
    tree_paths,
    used,
)

LIMITS = {
    "root": [
        lim(users=["*"], res=M(100), apps=2),
        lim(groups=["dev"], res=M(150), apps=3),
        lim(groups=["*"], res=M(50), apps=1),
    ],
}
QUEUES = {"root.b": qconf(max=M(120), apps=2)}


def fresh():
    return make_engine(limits=LIMITS, queues=QUEUES)


DENIALS = [
    # (set-up increases, the denied request, expected reason)
    ([], ("root.a", "n", "alice", ["dev"], M(101)), "userQuota"),
    (
        [("root.a", "x", "alice", ["dev"], M(100))],
        ("root.a", "x", "alice", ["dev"], M(1)),
        "userQuota",
    ),
    (
        [("root.a", "x", "alice", ["dev"], {}), ("root.a", "y", "alice", ["dev"], {})],
        ("root.a", "z", "alice", ["dev"], {}),
        "maxApplications",
    ),
    (
        [("root.a", "x", "bob", ["dev"], M(100)), ("root.a", "y", "carol", ["dev"], M(50))],
        ("root.a", "z", "alice", ["dev"], M(1)),
        "groupQuota",
    ),
    (
        [("root.a", "x", "bob", ["qa"], M(40))],
        ("root.a", "x", "bob", ["qa"], M(11)),
        "groupQuota",
    ),
    (
        [("root.a", "x", "bob", ["qa"], {})],
        ("root.a", "n", "alice", ["hr"], {}),
        "maxApplications",
    ),
    (
        [("root.b", "x", "bob", [], M(100))],
        ("root.b", "n", "alice", [], M(21)),
        "queueQuota",
    ),
    (
        [("root.b", "x", "bob", [], {}), ("root.b", "y", "carol", [], {})],
        ("root.b", "n", "alice", [], {}),
        "queueMaxApplications",
    ),
    ([], ("root.b.dyn.deep", "n", "newcomer", ["dev", "qa"], M(121)), "userQuota"),
]


@pytest.mark.parametrize(("setup", "denied", "reason"), DENIALS)
def test_denial_changes_nothing(setup, denied, reason):
    engine = fresh()
    for call in setup:
        assert engine.increase(*call).allowed
    before = snapshot(engine)
    seq = engine.seq
    changes = engine.changes_since(seq)
    decision = engine.increase(*denied)
    assert (decision.allowed, decision.reason) == (False, reason)
    assert engine.seq == seq
    assert snapshot(engine) == before
    assert engine.changes_since(seq) == changes


@pytest.mark.parametrize(("setup", "denied", "reason"), DENIALS)
def test_denial_repeated_many_times_still_changes_nothing(setup, denied, reason):
    engine = fresh()
    for call in setup:
        engine.increase(*call)
    before = snapshot(engine)
    for _ in range(5):
        assert engine.increase(*denied).reason == reason
    assert snapshot(engine) == before


def test_denied_new_user_is_not_created():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(10))]})
    assert not engine.increase("root.a.new.queue", "a1", "ghost", [], M(11)).allowed
    assert engine.user_usage("ghost") is None
    assert engine.users_usage() == []
    assert "root.a.new" not in tree_paths(engine.queues_usage(), key="queuename")


def test_denied_new_app_of_a_known_user_is_not_linked_or_running():
    engine = make_engine(
        limits={"root": [lim(users=["*"], res=M(10)), lim(groups=["dev"], apps=5)]}
    )
    fill(engine, "root.a", "alice", M(10), app="a1", groups=["dev"])
    assert not engine.increase("root.b", "a2", "alice", ["dev"], M(1)).allowed
    user = engine.user_usage("alice")
    assert user["groups"] == {"a1": "dev"}
    assert user["queues"]["runningApplications"] == ["a1"]
    assert [c["queuePath"] for c in user["queues"]["children"]] == ["root.a"]
    assert engine.group_usage("dev")["applications"] == ["a1"]


def test_user_fails_so_group_is_not_increased():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], res=M(10)), lim(groups=["dev"], res=M(100))]}
    )
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(11)).reason == "userQuota"
    assert group_used(engine, "dev", "root") == {}
    assert "applications" not in engine.group_usage("dev")


def test_group_fails_so_user_is_not_increased():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], res=M(100)), lim(groups=["dev"], res=M(10))]}
    )
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(11)).reason == "groupQuota"
    alice = engine.user_usage("alice")
    assert "resourceUsage" not in alice["queues"]
    assert "runningApplications" not in alice["queues"]
    assert "groups" not in alice


def test_group_app_cap_fails_so_user_is_not_increased():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=1)]})
    fill(engine, "root.a", "bob", M(1), app="b1", groups=["dev"])
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(5)).reason == "maxApplications"
    assert engine.user_usage("alice") is None


@pytest.mark.parametrize("amount", [1, 25, 50])
def test_allowed_increase_updates_user_and_group_on_the_whole_path(amount):
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.parent.leaf", "alice", M(amount), app="a1", groups=["dev"])
    for path in ("root", "root.parent", "root.parent.leaf"):
        assert used(engine, "alice", path) == {"memory": amount}
        assert group_used(engine, "dev", path) == {"memory": amount}
    assert used(engine, "alice", "root.a") == {}
