"""Spec 2.5 (last paragraph): queue ``resources.max`` and queue ``maxapplications`` are enforced on
top of user and group limits, summed over all users, at the queue and every ancestor."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for, qconf, queue_node

TREE = {"a": {}, "p": {"x": {}, "y": {}}, "b": {}}


def queues(**overrides):
    settings = {
        "root.a": qconf(max={"memory": 100}, apps=2),
        "root.p": qconf(max={"memory": 200, "gpu": 4}, apps=3),
        "root.p.x": qconf(max={"memory": 150}, apps=2),
        "root.p.y": qconf(apps=3),
    }
    settings.update(overrides)
    return settings


def engine_with(limits=None, **overrides):
    return make_engine(tree=TREE, queues=queues(**overrides), limits=limits or {})


# ------------------------------------------------------------------ resources.max


@pytest.mark.parametrize(
    ("first", "second", "fits"),
    [(60, 40, True), (60, 41, False), (100, 0, True), (0, 100, True), (1, 100, False)],
)
def test_queue_max_is_shared_by_all_users(first, second, fits):
    engine = engine_with()
    if first:
        fill(engine, "root.a", "alice", M(first), app="a1")
    decision = engine.increase("root.a", "b1", "bob", [], M(second))
    assert decision.allowed is fits
    assert decision.reason == (None if fits else "queueQuota")


def test_ancestor_queue_max_counts_all_children():
    engine = engine_with()
    fill(engine, "root.p.x", "alice", M(150), app="a1")
    decision = engine.increase("root.p.y", "b1", "bob", [], M(51))
    assert (decision.allowed, decision.reason) == (False, "queueQuota")
    assert "root.p" in decision.message
    assert engine.increase("root.p.y", "b1", "bob", [], M(50)).allowed


def test_leaf_queue_max_applies_below_the_ancestor_max():
    engine = engine_with()
    fill(engine, "root.p.x", "alice", M(100), app="a1")
    assert engine.increase("root.p.x", "b1", "bob", [], M(51)).reason == "queueQuota"
    assert engine.increase("root.p.y", "b1", "bob", [], M(51)).allowed


@pytest.mark.parametrize("path", ["root.a.dyn", "root.a.dyn.deeper"])
def test_dynamic_queue_counts_against_its_configured_ancestor(path):
    engine = engine_with()
    fill(engine, path, "alice", M(70), app="a1")
    assert engine.increase("root.a", "b1", "bob", [], M(31)).reason == "queueQuota"
    assert engine.increase(path, "b1", "bob", [], M(31)).reason == "queueQuota"
    assert engine.increase(path, "b1", "bob", [], M(30)).allowed


def test_queue_max_types_not_listed_are_unlimited():
    engine = engine_with()
    assert engine.increase("root.a", "a1", "alice", [], {"gpu": 10**6, "vcore": 10**9}).allowed
    assert engine.increase("root.p.y", "a2", "alice", [], {"gpu": 5}).reason == "queueQuota"
    assert engine.increase("root.p.y", "a2", "alice", [], {"gpu": 4}).allowed


def test_queue_headroom_is_part_of_headroom():
    engine = engine_with()
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 100}
    assert engine.headroom("root.p.x", "x", "alice", []) == {"memory": 150, "gpu": 4}
    assert engine.headroom("root.p.y", "x", "alice", []) == {"memory": 200, "gpu": 4}
    assert engine.headroom("root.b", "x", "alice", []) is None
    fill(engine, "root.p.x", "bob", {"memory": 120, "gpu": 1}, app="b1")
    assert engine.headroom("root.p.y", "x", "alice", []) == {"memory": 80, "gpu": 3}
    assert engine.headroom("root.p.x", "x", "alice", []) == {"memory": 30, "gpu": 3}


def test_headroom_combines_user_group_and_queue():
    engine = engine_with(
        limits={"root": [lim(users=["alice"], res=M(60)), lim(groups=["dev"], res={"gpu": 2})]}
    )
    assert engine.headroom("root.p.x", "x", "alice", ["dev"]) == {"memory": 60, "gpu": 2}
    fill(engine, "root.p.x", "bob", M(120), app="b1")
    assert engine.headroom("root.p.x", "x", "alice", ["dev"]) == {"memory": 30, "gpu": 2}


def test_decrease_gives_queue_room_back():
    engine = engine_with()
    fill(engine, "root.a", "alice", M(100), app="a1")
    assert engine.increase("root.a", "b1", "bob", [], M(1)).reason == "queueQuota"
    engine.decrease("root.a", "a1", "alice", M(30), False)
    assert engine.increase("root.a", "b1", "bob", [], M(30)).allowed


def test_lowered_queue_max_makes_queue_headroom_negative():
    engine = engine_with()
    fill(engine, "root.a", "alice", M(90), app="a1")
    engine.apply_config(
        partition_for(tree=TREE, queues=queues(**{"root.a": qconf(max={"memory": 50}, apps=2)}))
    )
    assert engine.headroom("root.a", "a1", "alice", []) == {"memory": -40}
    assert engine.increase("root.a", "a1", "alice", [], M(1)).reason == "queueQuota"
    assert engine.increase("root.a", "a1", "alice", [], {"gpu": 1}).allowed
    assert queue_node(engine, "root.a")["allocatedResource"] == {"memory": 90, "gpu": 1}


# ------------------------------------------------------------------ maxapplications


def test_queue_app_cap_is_shared_by_all_users():
    engine = engine_with()
    fill(engine, "root.a", "alice", {}, app="a1")
    fill(engine, "root.a", "bob", {}, app="b1")
    assert not engine.can_run_app("root.a", "c1", "carol", [])
    decision = engine.increase("root.a", "c1", "carol", [], {})
    assert (decision.allowed, decision.reason) == (False, "queueMaxApplications")
    assert "root.a" in decision.message
    # running apps keep growing
    assert engine.increase("root.a", "a1", "alice", [], M(10)).allowed
    assert engine.can_run_app("root.a", "b1", "bob", [])


def test_ancestor_queue_app_cap_counts_children():
    engine = engine_with()
    fill(engine, "root.p.x", "alice", {}, app="a1")
    fill(engine, "root.p.x", "bob", {}, app="b1")
    fill(engine, "root.p.y", "carol", {}, app="c1")
    # root.p.y allows 3 but root.p is full
    decision = engine.increase("root.p.y", "c2", "carol", [], {})
    assert decision.reason == "queueMaxApplications"
    assert "root.p" in decision.message


def test_queue_app_cap_counts_apps_in_dynamic_children():
    engine = engine_with()
    fill(engine, "root.a.dyn1", "alice", {}, app="a1")
    fill(engine, "root.a.dyn2", "bob", {}, app="b1")
    assert engine.increase("root.a.dyn3", "c1", "carol", [], {}).reason == "queueMaxApplications"


@pytest.mark.parametrize("remove_app", [True, False])
def test_only_remove_app_frees_a_queue_slot(remove_app):
    engine = engine_with()
    fill(engine, "root.a", "alice", M(1), app="a1")
    fill(engine, "root.a", "bob", M(1), app="b1")
    engine.decrease("root.a", "a1", "alice", M(1), remove_app)
    assert engine.increase("root.a", "c1", "carol", [], {}).allowed is remove_app


def test_lowered_queue_app_cap_does_not_block_running_apps():
    engine = engine_with()
    fill(engine, "root.a", "alice", {}, app="a1")
    fill(engine, "root.a", "bob", {}, app="b1")
    engine.apply_config(partition_for(tree=TREE, queues=queues(**{"root.a": qconf(apps=1)})))
    assert engine.increase("root.a", "a1", "alice", [], M(5)).allowed
    assert engine.increase("root.a", "b1", "bob", [], M(5)).allowed
    assert engine.increase("root.a", "c1", "carol", [], {}).reason == "queueMaxApplications"


def test_queue_without_caps_is_unlimited():
    engine = engine_with()
    for i in range(30):
        assert engine.increase("root.b", f"app{i}", f"user{i}", [], M(10**9)).allowed


def test_user_app_cap_is_reported_before_the_queue_app_cap():
    engine = engine_with(limits={"root.a": [lim(users=["alice"], apps=1)]})
    fill(engine, "root.a", "alice", {}, app="a1")
    fill(engine, "root.a", "bob", {}, app="b1")
    assert engine.increase("root.a", "a2", "alice", [], {}).reason == "maxApplications"
    assert engine.increase("root.a", "c1", "carol", [], {}).reason == "queueMaxApplications"


def test_decision_headroom_includes_the_queue():
    engine = engine_with(limits={"root": [lim(users=["alice"], res={"memory": 500, "gpu": 9})]})
    decision = engine.increase("root.a", "a1", "alice", [], M(30))
    assert decision.allowed
    assert decision.headroom == {"memory": 70, "gpu": 9}
    denied = engine.increase("root.a", "a1", "alice", [], M(71))
    assert denied.reason == "queueQuota"
    assert denied.headroom == {"memory": 70, "gpu": 9}
