"""Spec 2.9 (with D4, D5): ``apply_config`` switches limits atomically and never touches usage,
running apps or app->group links."""

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
    running,
    used,
    user_names,
    user_node,
)


def reload(engine, **kwargs):
    engine.apply_config(partition_for(**kwargs))


def usage_view(engine):
    """Everything but the limits: usage, apps and links of every tracker."""

    def strip(node):
        return {
            "path": node["queuePath"],
            "usage": node.get("resourceUsage"),
            "apps": node.get("runningApplications"),
            "children": [strip(c) for c in node.get("children", []) if has_state(c)],
        }

    def has_state(node):
        return bool(
            node.get("resourceUsage")
            or node.get("runningApplications")
            or any(has_state(c) for c in node.get("children", []))
        )

    users = {
        u["userName"]: (u.get("groups"), strip(u["queues"]))
        for u in engine.users_usage()
        if has_state(u["queues"])
    }
    groups = {
        g["groupName"]: (g.get("applications"), strip(g["queues"]))
        for g in engine.groups_usage()
        if has_state(g["queues"])
    }
    return users, groups


BEFORE = {
    "root": [
        lim(users=["*"], res=M(100), apps=3),
        lim(groups=["dev"], res=M(200), apps=4),
        lim(groups=["*"], res=M(50), apps=2),
    ],
    "root.a": [lim(users=["alice"], res=M(80), apps=2)],
}

AFTERS = [
    {},
    {"root": [lim(users=["*"], res=M(10), apps=1)]},
    {"root": [lim(groups=["ops"], res=M(5), apps=1)]},
    {"root.b": [lim(users=["zed"], res=M(5))], "root.a": [lim(users=["alice"], apps=1)]},
    BEFORE,
]


def busy_engine():
    engine = make_engine(limits=BEFORE)
    fill(engine, "root.a", "alice", M(60), app="a1", groups=["dev"])
    fill(engine, "root.a.dyn", "alice", M(10), app="a2", groups=["qa"])
    fill(engine, "root.b", "bob", M(30), app="b1", groups=["dev"])
    fill(engine, "root.parent.leaf", "carol", M(5), app="c1", groups=[])
    return engine


@pytest.mark.parametrize("after", AFTERS)
def test_reload_never_touches_usage_apps_or_links(after):
    engine = busy_engine()
    before = usage_view(engine)
    reload(engine, limits=after)
    assert usage_view(engine) == before
    assert engine.user_usage("alice")["groups"] == {"a1": "dev", "a2": "*"}
    assert engine.user_usage("bob")["groups"] == {"b1": "dev"}


@pytest.mark.parametrize("after", AFTERS)
def test_releases_after_a_reload_go_to_the_linked_groups(after):
    engine = busy_engine()
    reload(engine, limits=after)
    engine.decrease("root.a", "a1", "alice", M(60), True)
    engine.decrease("root.a.dyn", "a2", "alice", M(10), True)
    engine.decrease("root.b", "b1", "bob", M(30), True)
    assert group_used(engine, "dev", "root") == {}
    assert group_used(engine, "*", "root") == {}


def test_limits_are_recomputed_for_existing_nodes():
    engine = busy_engine()
    reload(engine, limits={"root": [lim(users=["*"], res=M(70), apps=5)]})
    bob_root = user_node(engine, "bob", "root")
    assert bob_root["maxResources"] == {"memory": 70}
    assert bob_root["maxApplications"] == 5
    assert engine.headroom("root.b", "b1", "bob", []) == {"memory": 40}


def test_removed_named_user_falls_back_to_the_wildcard():
    engine = make_engine(
        limits={"root.a": [lim(users=["alice"], res=M(10)), lim(users=["*"], res=M(100))]}
    )
    fill(engine, "root.a", "alice", M(10), app="a1")
    assert engine.increase("root.a", "a1", "alice", [], M(1)).reason == "userQuota"
    reload(engine, limits={"root.a": [lim(users=["*"], res=M(100))]})
    assert user_node(engine, "alice", "root.a")["maxResources"] == {"memory": 100}
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": 90}
    assert engine.increase("root.a", "a1", "alice", [], M(90)).allowed


def test_removed_named_user_without_wildcard_becomes_unlimited():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10), apps=1)]})
    fill(engine, "root.a", "alice", M(10), app="a1")
    reload(engine, limits={})
    assert engine.headroom("root.a", "a1", "alice", []) is None
    assert engine.can_run_app("root.a", "a2", "alice", [])
    node = user_node(engine, "alice", "root.a")
    assert "maxResources" not in node
    assert "maxApplications" not in node
    assert node["resourceUsage"] == {"memory": 10}


@pytest.mark.parametrize(("cap", "used_", "left"), [(50, 60, -10), (60, 60, 0), (1, 60, -59)])
def test_lowered_cap_makes_headroom_negative_without_evicting(cap, used_, left):
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.a", "alice", M(used_), app="a1")
    reload(engine, limits={"root.a": [lim(users=["alice"], res=M(cap))]})
    assert used(engine, "alice", "root.a") == {"memory": used_}
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": left}
    assert engine.increase("root.a", "a1", "alice", [], M(1)).reason == "userQuota"
    engine.decrease("root.a", "a1", "alice", M(used_ - cap + 5), False)
    assert engine.increase("root.a", "a1", "alice", [], M(6)).reason == "userQuota"
    assert engine.increase("root.a", "a1", "alice", [], M(5)).allowed


def test_raised_cap_lets_a_blocked_user_continue():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10), apps=1)]})
    fill(engine, "root.a", "alice", M(10), app="a1")
    assert not engine.increase("root.a", "a2", "alice", [], M(1)).allowed
    reload(engine, limits={"root.a": [lim(users=["alice"], res=M(20), apps=2)]})
    assert engine.increase("root.a", "a2", "alice", [], M(10)).allowed


def test_trackers_without_named_limit_or_usage_disappear_and_new_names_appear():
    engine = make_engine(
        limits={"root": [lim(users=["alice", "bob"], apps=2), lim(groups=["dev", "ops"], apps=2)]}
    )
    fill(engine, "root.a", "bob", M(1), app="b1", groups=["ops"])
    assert user_names(engine) == ["alice", "bob"]
    assert group_names(engine) == ["dev", "ops"]
    reload(engine, limits={"root": [lim(users=["carol"], apps=2), lim(groups=["qa"], apps=2)]})
    assert user_names(engine) == ["bob", "carol"]  # bob stays: he has usage
    assert group_names(engine) == ["ops", "qa"]  # ops stays: it tracks b1
    assert "maxApplications" not in engine.user_usage("bob")["queues"]
    engine.decrease("root.a", "b1", "bob", M(1), True)
    assert user_names(engine) == ["carol"]
    assert group_names(engine) == ["qa"]


def test_no_group_link_stays_after_a_reload_adds_a_matching_group():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="old", groups=["dev"])
    reload(engine, limits={"root": [lim(groups=["dev"], res=M(100))]})
    decision = engine.increase("root.a", "old", "alice", ["dev"], M(5))
    assert decision.group is None
    assert group_used(engine, "dev", "root") == {}
    new = engine.increase("root.a", "new", "alice", ["dev"], M(5))
    assert new.group == "dev"
    assert group_used(engine, "dev", "root") == {"memory": 5}


def test_existing_link_stays_when_the_new_config_prefers_another_group():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], apps=5), lim(groups=["ops"], apps=5)]}
    )
    fill(engine, "root.a", "alice", M(10), app="old", groups=["dev", "ops"])
    reload(engine, limits={"root": [lim(groups=["ops"], apps=5), lim(groups=["dev"], apps=5)]})
    assert engine.increase("root.a", "old", "alice", ["dev", "ops"], M(1)).group == "dev"
    assert engine.increase("root.a", "new", "alice", ["dev", "ops"], M(1)).group == "ops"


def test_removing_a_group_limit_keeps_the_group_usage_and_links():  # D4
    engine = make_engine(
        limits={
            "root": [lim(groups=["dev"], res=M(500))],
            "root.a": [lim(groups=["dev"], res=M(100))],
        }
    )
    fill(engine, "root.a", "alice", M(40), app="a1", groups=["dev"])
    fill(engine, "root.b", "bob", M(30), app="b1", groups=["dev"])
    reload(engine, limits={"root": [lim(groups=["dev"], res=M(500))]})
    assert group_used(engine, "dev", "root") == {"memory": 70}
    assert group_used(engine, "dev", "root.a") == {"memory": 40}
    assert engine.group_usage("dev")["applications"] == ["a1", "b1"]
    assert engine.user_usage("alice")["groups"] == {"a1": "dev"}
    engine.decrease("root.a", "a1", "alice", M(40), True)
    assert group_used(engine, "dev", "root") == {"memory": 30}


def test_removing_every_group_limit_keeps_the_group_tracker_while_it_has_apps():  # D4
    engine = make_engine(limits={"root.a": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.a", "alice", M(40), app="a1", groups=["dev"])
    reload(engine, limits={})
    assert group_names(engine) == ["dev"]
    assert "maxResources" not in engine.group_usage("dev")["queues"]["children"][0]
    assert engine.increase("root.a", "a1", "alice", ["dev"], M(1000)).group == "dev"
    engine.decrease("root.a", "a1", "alice", M(1040), True)
    assert group_names(engine) == []


def test_removed_wildcard_is_recomputed_even_with_named_users_at_the_path():  # D5
    old = {"root.a": [lim(users=["alice"], res=M(10)), lim(users=["*"], res=M(20))]}
    new = {"root.a": [lim(users=["alice"], res=M(10))]}
    engine = make_engine(limits=old)
    fill(engine, "root.a", "bob", M(20), app="b1")
    assert engine.increase("root.a", "b1", "bob", [], M(1)).reason == "userQuota"
    reload(engine, limits=new)
    assert engine.headroom("root.a", "b1", "bob", []) is None
    assert "maxResources" not in user_node(engine, "bob", "root.a")
    assert engine.increase("root.a", "b1", "bob", [], M(1000)).allowed


def test_changed_wildcard_is_recomputed_for_users_who_used_it():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(20))]})
    fill(engine, "root.a", "bob", M(20), app="b1")
    reload(engine, limits={"root": [lim(users=["*"], res=M(50))]})
    assert user_node(engine, "bob", "root")["maxResources"] == {"memory": 50}
    assert engine.increase("root.a", "b1", "bob", [], M(30)).allowed


def test_removed_group_wildcard_removes_the_empty_star_tracker():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=2), lim(groups=["*"], apps=2)]})
    assert "*" in group_names(engine)
    reload(engine, limits={"root": [lim(groups=["dev"], apps=2)]})
    assert group_names(engine) == ["dev"]


def test_star_tracker_with_apps_outlives_the_wildcard():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=2), lim(groups=["*"], apps=1)]})
    fill(engine, "root.a", "alice", M(3), app="a1", groups=["qa"])
    reload(engine, limits={"root": [lim(groups=["dev"], apps=2)]})
    assert group_names(engine) == ["*", "dev"]
    star = engine.group_usage("*")
    assert star["applications"] == ["a1"]
    assert "maxApplications" not in star["queues"]
    # a new qa app has no group now
    assert engine.increase("root.a", "a2", "bob", ["qa"], M(1)).group is None


def test_reload_keeps_running_counts_for_app_caps():
    engine = make_engine(limits={"root.a": [lim(users=["*"], apps=5)]})
    for i in range(3):
        fill(engine, "root.a", "alice", {}, app=f"a{i}")
    reload(engine, limits={"root.a": [lim(users=["*"], apps=3)]})
    assert not engine.can_run_app("root.a", "a9", "alice", [])
    reload(engine, limits={"root.a": [lim(users=["*"], apps=4)]})
    assert engine.can_run_app("root.a", "a9", "alice", [])
    assert running(engine, "alice", "root.a") == ["a0", "a1", "a2"]


def test_reload_with_an_identical_config_changes_no_state():
    engine = busy_engine()
    users, groups = engine.users_usage(), engine.groups_usage()
    reload(engine, limits=BEFORE)
    assert engine.users_usage() == users
    assert engine.groups_usage() == groups


def test_reload_changes_queue_tree_limits():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    reload(engine, queues={"root.a": {"resources": {"max": {"memory": "5"}}}})
    assert engine.queues_usage()["children"][0]["queuename"] == "root.a"
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": -5}
