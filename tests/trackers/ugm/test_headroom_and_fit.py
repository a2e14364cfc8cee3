"""Spec 2.5, resources: headroom per tracker, combined headroom, and the fit test of a request."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for

# ------------------------------------------------------------------ headroom values


def test_no_limit_anywhere_is_unlimited():
    engine = make_engine()
    assert engine.headroom("root.a", "x", "alice", ["dev"]) is None
    decision = engine.increase("root.a", "x", "alice", ["dev"], {"memory": 10**15, "vcore": 10**9})
    assert decision.allowed
    assert decision.headroom is None


def test_app_count_only_limits_give_unlimited_headroom():
    engine = make_engine(limits={"root": [lim(users=["*"], apps=1), lim(groups=["dev"], apps=1)]})
    assert engine.headroom("root.a", "x", "alice", ["dev"]) is None


@pytest.mark.parametrize("used", [0, 1, 40, 99, 100])
def test_headroom_is_cap_minus_usage(used):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    if used:
        fill(engine, "root.a", "alice", M(used))
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 100 - used}


def test_headroom_lists_only_types_of_the_caps():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.a", "alice", {"memory": 10, "vcore": 5000, "gpu": 1})
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 90}


def test_headroom_is_the_minimum_over_levels_and_the_union_of_types():
    engine = make_engine(
        limits={
            "root": [lim(users=["*"], res={"memory": 100})],
            "root.parent": [lim(users=["*"], res={"gpu": 4})],
            "root.parent.leaf": [lim(users=["*"], res={"memory": 50, "gpu": 3})],
        }
    )
    assert engine.headroom("root.parent.leaf", "x", "u", []) == {"memory": 50, "gpu": 3}
    fill(engine, "root.a", "u", M(70), app="elsewhere")
    # the root cap is now the tighter one for memory
    assert engine.headroom("root.parent.leaf", "x", "u", []) == {"memory": 30, "gpu": 3}
    fill(engine, "root.parent.child1", "u", {"gpu": 2}, app="sibling")
    # root.parent's gpu cap counts the sibling's gpu
    assert engine.headroom("root.parent.leaf", "x", "u", []) == {"memory": 30, "gpu": 2}


def test_headroom_counts_usage_of_every_app_of_the_user_below_the_capped_node():
    engine = make_engine(limits={"root.parent": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.parent.leaf", "alice", M(10), app="a")
    fill(engine, "root.parent.child1", "alice", M(20), app="b")
    fill(engine, "root.parent", "alice", M(30), app="c")
    fill(engine, "root.a", "alice", M(1000), app="d")  # outside: not counted
    assert engine.headroom("root.parent.child2", "new", "alice", []) == {"memory": 40}


def test_combined_headroom_example_of_the_spec():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], res=M(50)), lim(groups=["dev"], res={"vcore": 4})]}
    )
    assert engine.headroom("root.a", "x", "alice", ["dev"]) == {"memory": 50, "vcore": 4000}
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 50}
    assert engine.headroom("root.a", "x", "bob", ["dev"]) == {"vcore": 4000}


def test_combined_headroom_is_the_minimum_where_both_list_a_type():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], res=M(50)), lim(groups=["dev"], res=M(80))]}
    )
    assert engine.headroom("root.a", "x", "alice", ["dev"]) == {"memory": 50}
    fill(engine, "root.a", "bob", M(60), app="b", groups=["dev"])
    assert engine.headroom("root.a", "x", "alice", ["dev"]) == {"memory": 20}


@pytest.mark.parametrize(("old", "new", "used"), [(100, 50, 80), (100, 10, 100), (10, 1, 10)])
def test_headroom_goes_negative_after_a_lowered_cap(old, new, used):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(old))]})
    fill(engine, "root.a", "alice", M(used), app="a1")
    engine.apply_config(partition_for(limits={"root.a": [lim(users=["alice"], res=M(new))]}))
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": new - used}
    assert engine.increase("root.a", "a1", "alice", [], M(1)).reason == "userQuota"
    assert engine.increase("root.a", "a1", "alice", [], M(0)).allowed
    assert engine.increase("root.a", "a1", "alice", [], {"gpu": 5}).allowed


def test_headroom_of_an_unknown_user_under_a_wildcard_is_the_cap():
    engine = make_engine(limits={"root.a": [lim(users=["*"], res={"memory": 7, "gpu": 0})]})
    assert engine.headroom("root.a", "x", "nobody", []) == {"memory": 7, "gpu": 0}
    assert engine.users_usage() == []


# ------------------------------------------------------------------ the fit test

CAP = {"memory": 100, "gpu": 0, "vcore": 2}  # vcore "2" -> 2000 millicores


@pytest.mark.parametrize(
    ("request_", "fits"),
    [
        ({}, True),
        ({"memory": 0}, True),
        ({"memory": 100}, True),  # equality fits
        ({"memory": 101}, False),
        ({"memory": 1}, True),
        ({"gpu": 0}, True),  # zero of a blocked type fits
        ({"gpu": 1}, False),  # a type capped at 0 blocks any positive amount
        ({"memory": 50, "gpu": 1}, False),
        ({"memory": 50, "gpu": 0}, True),
        ({"vcore": 2000}, True),
        ({"vcore": 2001}, False),
        ({"memory": 100, "vcore": 2000, "gpu": 0}, True),
        ({"memory": 100, "vcore": 2001}, False),
        ({"disk": 10**12}, True),  # a type in no cap is unlimited
        ({"nvidia.com/gpu": 5}, True),
        ({"memory": 100, "disk": 10**12, "ephemeral-storage": 1}, True),
        ({"memory": 101, "disk": 1}, False),
    ],
)
def test_fit_of_a_request_against_the_cap(request_, fits):
    cap = {"memory": "100", "gpu": "0", "vcore": "2"}
    engine = make_engine(
        limits={"root.a": [{"users": ["alice"], "maxresources": cap}]},
    )
    decision = engine.increase("root.a", "x", "alice", [], request_)
    assert decision.allowed is fits
    assert decision.reason == (None if fits else "userQuota")


@pytest.mark.parametrize(
    ("used", "request_", "fits"),
    [
        (60, {"memory": 40}, True),
        (60, {"memory": 41}, False),
        (100, {"memory": 1}, False),
        (100, {"memory": 0}, True),
        (100, {}, True),
        (100, {"gpu": 1}, True),
        (0, {"memory": 100}, True),
    ],
)
def test_fit_against_remaining_headroom(used, request_, fits):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    if used:
        fill(engine, "root.a", "alice", M(used), app="first")
    assert engine.increase("root.a", "first", "alice", [], request_).allowed is fits


@pytest.mark.parametrize(
    ("request_", "fits"),
    [({"memory": 0}, True), ({}, True), ({"memory": 1}, False), ({"gpu": 3}, True)],
)
def test_negative_headroom_behaves_like_zero(request_, fits):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.a", "alice", M(90), app="a1")
    engine.apply_config(partition_for(limits={"root.a": [lim(users=["alice"], res=M(40))]}))
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": -50}
    assert engine.increase("root.a", "a1", "alice", [], request_).allowed is fits


def test_empty_request_still_needs_an_app_slot():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100), apps=1)]})
    fill(engine, "root.a", "alice", M(100), app="a1")
    assert engine.increase("root.a", "a1", "alice", [], {}).allowed
    decision = engine.increase("root.a", "a2", "alice", [], {})
    assert decision.reason == "maxApplications"


def test_an_empty_request_makes_the_app_running():
    engine = make_engine()
    assert engine.increase("root.a", "a1", "alice", [], {}).allowed
    node = engine.user_usage("alice")["queues"]
    assert node["runningApplications"] == ["a1"]
    assert "resourceUsage" not in node


@pytest.mark.parametrize("amount", [10, 50, 99])
def test_group_fit_uses_the_group_headroom(amount):
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.a", "bob", M(amount), app="b1", groups=["dev"])
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(101 - amount)).reason == "groupQuota"
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(100 - amount)).allowed


# ------------------------------------------------------------------ decision.headroom


@pytest.mark.parametrize(("cap", "ask"), [(100, 30), (100, 100), (100, 0), (5, 1)])
def test_allowed_decision_reports_what_remains_after_it(cap, ask):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(cap))]})
    decision = engine.increase("root.a", "x", "alice", [], M(ask))
    assert decision.allowed
    assert decision.headroom == {"memory": cap - ask}
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": cap - ask}


def test_denied_decision_reports_the_headroom_at_the_time():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.a", "alice", M(70), app="x")
    decision = engine.increase("root.a", "x", "alice", [], M(31))
    assert not decision.allowed
    assert decision.headroom == {"memory": 30}


def test_decision_headroom_combines_user_and_group():
    engine = make_engine(
        limits={"root": [lim(users=["alice"], res=M(50)), lim(groups=["dev"], res={"gpu": 4})]}
    )
    decision = engine.increase("root.a", "x", "alice", ["dev"], {"memory": 20, "gpu": 1})
    assert decision.allowed
    assert decision.headroom == {"memory": 30, "gpu": 3}


def test_decision_headroom_of_unmentioned_types_is_not_listed():
    engine = make_engine(limits={"root": [lim(users=["alice"], res=M(50))]})
    decision = engine.increase("root.a", "x", "alice", [], {"memory": 20, "gpu": 7})
    assert decision.headroom == {"memory": 30}
