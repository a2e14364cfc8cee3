"""``over_limits``: who uses more than a partition's limits allow, judged as the engine judges an
increase (named user limit, else the user wildcard; named groups; applications), for the limits
in force or for a candidate's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for
from trackers import InvalidRequest, over_limits

LIMITS = {
    "root.a": [lim(users=["alice"], res=M(10)), lim(users=["*"], res=M(4), apps=1),
               lim(groups=["dev"], res=M(10))],
}


def _engine():
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(100)),
                                            lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.a", "alice", M(8), groups=["dev"])
    fill(engine, "root.a", "bob", M(5), app="b1")
    fill(engine, "root.a", "bob", M(1), app="b2")
    fill(engine, "root.a", "carol", M(3), groups=["dev"])
    return engine


def test_a_candidate_lists_each_user_and_group_above_one_of_its_limits():
    found = _engine().over_limits(partition_for(limits=LIMITS))

    assert found == [
        {"partition": "default", "kind": "user", "name": "bob", "queuePath": "root.a",
         "usage": M(6), "limit": M(4), "runningApplications": 2, "maxApplications": 1},
        {"partition": "default", "kind": "group", "name": "dev", "queuePath": "root.a",
         "usage": M(11), "limit": M(10), "runningApplications": 1, "maxApplications": 0},
    ]


def test_users_under_their_own_named_limit_are_not_listed_for_the_wildcard():
    found = _engine().over_limits(partition_for(limits=LIMITS))

    names = {(item["kind"], item["name"]) for item in found}
    assert ("user", "alice") not in names  # 8 under her named 10, though above the wildcard 4
    assert ("user", "carol") not in names  # 3 under the wildcard 4


def test_the_limits_in_force_are_judged_when_no_candidate_is_given():
    engine = _engine()
    assert engine.over_limits() == []


def test_the_pure_function_reads_usage_objects_in_the_engine_shapes():
    engine = _engine()
    assert over_limits(
        partition_for(limits=LIMITS), users=engine.users_usage(), groups=engine.groups_usage()
    ) == engine.over_limits(partition_for(limits=LIMITS))


def test_another_partitions_limits_are_refused():
    with pytest.raises(InvalidRequest):
        _engine().over_limits(partition_for(name="other"))


def test_snapshots_taken_a_moment_before_are_judged_as_usage_now():
    engine = _engine()
    engine.apply_config(partition_for(limits=LIMITS))
    users, groups = engine.users_usage(), engine.groups_usage()
    # After the snapshots, bob drops back under the wildcard limit (1 application, 1 B).
    engine.decrease("root.a", "b1", "bob", M(5), remove_app=True)

    from_snapshots = engine.over_limits(users=users, groups=groups)

    assert [(item["kind"], item["name"]) for item in from_snapshots] == [
        ("user", "bob"), ("group", "dev")
    ]
    assert [(item["kind"], item["name"]) for item in engine.over_limits()] == [("group", "dev")]


PATHS = ["root.a", "root.a.b", "root.a-x", "root.a-x.c", "root.z"]
# Caps where no capped queue is above another (a child's cap may not exceed its parent's).
LEAVES = ["root.a.b", "root.a-x.c", "root.z"]


@settings(max_examples=60, deadline=None)
@given(
    fills=st.lists(st.tuples(st.sampled_from(PATHS), st.sampled_from(["u0", "u1", "u2"]),
                             st.integers(1, 6), st.sampled_from([(), ("dev",), ("ops",)])),
                   min_size=1, max_size=12),
    caps=st.dictionaries(st.sampled_from(LEAVES), st.tuples(st.integers(1, 8), st.integers(0, 2)),
                         min_size=1, max_size=4),
)
def test_the_engine_judges_its_trackers_as_the_pure_function_judges_their_trees(fills, caps):
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(1000))]})
    for number, (path, user, amount, groups) in enumerate(fills):
        fill(engine, path, user, M(amount), app=f"app-{number}", groups=groups)
    limits = {path: [lim(users=["*"], res=M(amount), apps=apps),
                     lim(groups=["dev"], res=M(amount + 1))]
              for path, (amount, apps) in caps.items()}
    candidate = partition_for(limits=limits)
    # Trees built and judged (the usage objects) against the trackers' levels read as they are:
    # the same entries in the same order ("root.a-x" sorts before "root.a.b" as text, after it
    # in a tree).
    assert engine.over_limits(candidate) == over_limits(
        candidate, users=engine.users_usage(), groups=engine.groups_usage()
    )
