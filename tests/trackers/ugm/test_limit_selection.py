"""Spec 2.3: which limit entry applies to a user or a group at each queue level.

A user gets the entry naming him at a level, else that level's user wildcard, else nothing there;
every level is resolved on its own and all levels from root to the app's queue constrain. A named
group only ever gets its own entries; the ``*`` group tracker gets the group-wildcard entries.
"""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, user_node


def headroom(engine, path, user, groups=(), app="probe"):
    return engine.headroom(path, app, user, list(groups))


# ------------------------------------------------------------------ named user vs user wildcard


@pytest.mark.parametrize(
    ("named", "wildcard", "user", "expected"),
    [
        (50, 100, "alice", 50),  # named smaller than wildcard
        (200, 100, "alice", 200),  # named wins even when larger (same level: never compared)
        (50, 100, "bob", 100),  # someone else gets the wildcard
        (50, 100, "Alice", 100),  # user names are case-sensitive
        (50, 100, "alice2", 100),
        (1, 100, "alice", 1),
    ],
)
def test_named_entry_beats_wildcard_at_the_same_level(named, wildcard, user, expected):
    engine = make_engine(
        limits={"root.a": [lim(users=["alice"], res=M(named)), lim(users=["*"], res=M(wildcard))]}
    )
    assert headroom(engine, "root.a", user) == {"memory": expected}


@pytest.mark.parametrize("path", ["root.a", "root.b", "root.parent.leaf", "root.x.dynamic"])
def test_wildcard_at_root_caps_every_user_everywhere(path):
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(100))]})
    for user in ("alice", "bob", "system:serviceaccount:ns:sa"):
        assert headroom(engine, path, user) == {"memory": 100}


@pytest.mark.parametrize("user", ["alice", "bob", "carol"])
def test_wildcard_cap_is_per_user_not_a_shared_pool(user):
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(100))]})
    for other in ("alice", "bob", "carol"):
        if other != user:
            fill(engine, "root.a", other, M(100), app=f"app-{other}")
    assert headroom(engine, "root.a", user) == {"memory": 100}
    assert engine.increase("root.a", "mine", user, [], M(100)).allowed


@pytest.mark.parametrize("listed", [["sue", "bob"], ["bob", "sue"], ["sue", "bob", "tim"]])
def test_one_entry_listing_several_users_gives_each_the_full_cap(listed):
    engine = make_engine(limits={"root.a": [lim(users=listed, res=M(100), apps=1)]})
    for user in listed:
        decision = engine.increase("root.a", f"app-{user}", user, [], M(100))
        assert decision.allowed, decision.message
    # each has used his own cap
    for user in listed:
        assert headroom(engine, "root.a", user) == {"memory": 0}
        assert not engine.can_run_app("root.a", f"second-{user}", user, [])


def test_named_user_is_still_capped_by_wildcard_at_other_levels():
    # wildcard at root, alice named at root.a (must fit in the wildcard: H1)
    engine = make_engine(
        limits={
            "root": [lim(users=["*"], res=M(100))],
            "root.a": [lim(users=["alice"], res=M(50))],
        }
    )
    assert headroom(engine, "root.a", "alice") == {"memory": 50}
    assert headroom(engine, "root.b", "alice") == {"memory": 100}
    fill(engine, "root.a", "alice", M(50), app="a1")
    assert headroom(engine, "root.a", "alice") == {"memory": 0}
    # the root wildcard counts her root.a usage too
    assert headroom(engine, "root.b", "alice") == {"memory": 50}
    assert engine.increase("root.b", "b1", "alice", [], M(51)).reason == "userQuota"
    assert engine.increase("root.b", "b1", "alice", [], M(50)).allowed


def test_wildcard_at_the_level_of_a_named_user_does_not_apply_to_him():
    engine = make_engine(
        limits={"root.a": [lim(users=["alice"], res={"gpu": 2}), lim(users=["*"], res=M(10))]}
    )
    # alice: only her named entry (gpu), memory is unlimited for her
    assert headroom(engine, "root.a", "alice") == {"gpu": 2}
    assert engine.increase("root.a", "x", "alice", [], {"memory": 10**9}).allowed
    assert headroom(engine, "root.a", "bob") == {"memory": 10}


def test_levels_combine_component_wise():
    engine = make_engine(
        limits={
            "root": [lim(users=["*"], res={"memory": 100, "gpu": 8})],
            "root.parent": [lim(users=["*"], res={"memory": 60})],
            "root.parent.leaf": [lim(users=["*"], res={"gpu": 2})],
        }
    )
    assert headroom(engine, "root.parent.leaf", "u") == {"memory": 60, "gpu": 2}
    assert headroom(engine, "root.parent.child1", "u") == {"memory": 60, "gpu": 8}
    assert headroom(engine, "root.a", "u") == {"memory": 100, "gpu": 8}


def test_a_limit_deeper_than_the_queue_does_not_apply():
    engine = make_engine(limits={"root.parent.leaf": [lim(users=["*"], res=M(10))]})
    assert headroom(engine, "root.parent", "u") is None
    assert headroom(engine, "root.parent.child1", "u") is None
    assert headroom(engine, "root.parent.leaf", "u") == {"memory": 10}


def test_a_limit_on_a_sibling_does_not_apply():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10))]})
    assert headroom(engine, "root.b", "alice") is None
    assert engine.increase("root.b", "x", "alice", [], M(10**6)).allowed


@pytest.mark.parametrize(
    "path", ["root.a.dyn", "root.a.dyn.deeper", "root.a.x.y.z", "root.a.@team#1"]
)
def test_limits_of_configured_ancestors_apply_to_dynamic_queues(path):
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(10), apps=1)]})
    assert headroom(engine, path, "u") == {"memory": 10}
    assert engine.increase(path, "app1", "u", [], M(10)).allowed
    assert engine.increase(path, "app1", "u", [], M(1)).reason == "userQuota"
    assert engine.increase(path, "app2", "u", [], {}).reason == "maxApplications"


def test_partition_level_limits_act_as_root_limits():
    engine = make_engine(partition_limits=[lim(users=["test-user"], res=M(100), apps=1)])
    assert headroom(engine, "root.a", "test-user") == {"memory": 100}
    assert engine.increase("root.a", "app1", "test-user", [], M(100)).allowed
    assert engine.increase("root.b", "app2", "test-user", [], {}).reason == "maxApplications"
    assert user_node(engine, "test-user", "root")["maxResources"] == {"memory": 100}


def test_limit_entry_with_only_maxapplications_leaves_resources_unlimited():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], apps=2)]})
    assert headroom(engine, "root.a", "alice") is None
    assert engine.increase("root.a", "app1", "alice", [], M(10**12)).allowed


def test_limit_entry_with_only_maxresources_leaves_app_count_unlimited():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(1000))]})
    for i in range(50):
        assert engine.increase("root.a", f"app{i}", "alice", [], M(1)).allowed


# ------------------------------------------------------------------ groups


def test_named_group_gets_its_own_entry():
    engine = make_engine(limits={"root.a": [lim(groups=["dev"], res=M(30))]})
    assert headroom(engine, "root.a", "alice", ["dev"]) == {"memory": 30}


def test_group_cap_is_shared_by_all_members():
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.a", "alice", M(60), app="a1", groups=["dev"])
    assert headroom(engine, "root.b", "bob", ["dev"]) == {"memory": 40}
    decision = engine.increase("root.b", "b1", "bob", ["dev"], M(41))
    assert (decision.allowed, decision.reason) == (False, "groupQuota")
    assert engine.increase("root.b", "b1", "bob", ["dev"], M(40)).allowed


@pytest.mark.parametrize("listed", [["dev", "ops"], ["ops", "dev"]])
def test_one_entry_listing_several_groups_gives_each_the_full_cap(listed):
    engine = make_engine(limits={"root": [lim(groups=listed, res=M(100))]})
    fill(engine, "root.a", "alice", M(100), app="a1", groups=["dev"])
    fill(engine, "root.a", "bob", M(100), app="b1", groups=["ops"])
    assert engine.increase("root.a", "a2", "carol", ["dev"], M(1)).reason == "groupQuota"
    assert engine.increase("root.a", "b2", "dave", ["ops"], M(1)).reason == "groupQuota"


def test_named_group_has_no_wildcard_fallback():
    # root: dev capped in apps only; '*' capped in memory. dev is named deeper (root.a) too.
    engine = make_engine(
        limits={
            "root": [lim(groups=["dev"], apps=5), lim(groups=["*"], res=M(100), apps=5)],
            "root.a": [lim(groups=["dev"], res=M(10), apps=5)],
        }
    )
    # an app of a dev member in root.b resolves to dev at root; '*' memory does not apply
    assert headroom(engine, "root.b", "alice", ["dev"]) is None
    decision = engine.increase("root.b", "big", "alice", ["dev"], M(1000))
    assert decision.allowed
    assert decision.group == "dev"
    # an app of someone in no named group resolves to '*' and gets the wildcard cap
    assert headroom(engine, "root.b", "bob", ["qa"]) == {"memory": 100}


def test_wildcard_group_tracker_uses_the_group_wildcard_entries():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], res=M(10)), lim(groups=["*"], res=M(100), apps=2)]}
    )
    d1 = engine.increase("root.a", "q1", "alice", ["qa"], M(60))
    d2 = engine.increase("root.a", "q2", "bob", ["sales"], M(40))
    assert (d1.group, d2.group) == ("*", "*")
    # '*' is one shared tracker: 100 used by two different groups' members
    assert engine.increase("root.a", "q3", "carol", ["hr"], {}).reason == "maxApplications"
    assert engine.increase("root.a", "q1", "alice", ["qa"], M(1)).reason == "groupQuota"
    star = engine.group_usage("*")
    assert star["queues"]["resourceUsage"] == {"memory": 100}
    assert star["queues"]["maxResources"] == {"memory": 100}
    assert star["queues"]["maxApplications"] == 2


def test_user_and_group_limits_both_apply():
    engine = make_engine(
        limits={"root.a": [lim(users=["alice"], res=M(50)), lim(groups=["dev"], res={"vcore": 4})]}
    )
    # spec 2.5 example
    assert headroom(engine, "root.a", "alice", ["dev"]) == {"memory": 50, "vcore": 4000}


def test_group_names_are_case_sensitive():
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(10))]})
    decision = engine.increase("root.a", "x", "alice", ["Dev"], M(100))
    assert decision.allowed
    assert decision.group is None
