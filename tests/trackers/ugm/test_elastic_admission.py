"""The engine's elastic runtime rule (elastic-quota.md 1.9): with runtimes handed over, an increase
must also fit ``used + request <= runtime`` at the deepest queue of its path that has one, checked
and applied in the same step as the user, group and queue caps."""

from __future__ import annotations

from tests.trackers.ugm.support import M, make_engine


def test_a_request_above_the_runtime_is_denied_and_changes_nothing():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": M(100)})
    assert engine.increase("root.a", "app-1", "alice", [], M(60)).allowed
    decision = engine.increase("root.a", "app-2", "bob", [], M(50))
    assert not decision.allowed
    assert decision.reason == "elasticQuota"
    assert "root.a" in decision.message
    assert "runtime memory 100" in decision.message
    assert "used memory 60" in decision.message
    assert "request for memory 50" in decision.message
    assert decision.message.endswith("does not fit in memory")
    assert decision.headroom == M(40)
    assert engine.queues_usage()["children"][0]["allocatedResource"] == M(60)
    assert engine.users_usage()[-1]["userName"] == "alice"


def test_exactly_the_runtime_fits():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": M(100)})
    assert engine.increase("root.a", "app-1", "alice", [], M(60)).allowed
    assert engine.increase("root.a", "app-1", "alice", [], M(40)).allowed


def test_types_the_runtime_does_not_name_are_not_checked():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": {"vcore": 1000}})
    big = {"memory": 10**12, "vcore": 1000}
    assert engine.increase("root.a", "app-1", "alice", [], big).allowed
    decision = engine.increase("root.a", "app-1", "alice", [], {"vcore": 1})
    assert decision.reason == "elasticQuota"
    assert decision.message.endswith("does not fit in vcore")


def test_every_type_that_does_not_fit_is_named():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": {"memory": 10, "vcore": 10}})
    decision = engine.increase("root.a", "app-1", "alice", [], {"memory": 11, "vcore": 11})
    assert decision.message.endswith("does not fit in memory, vcore")


def test_the_deepest_queue_with_a_runtime_is_the_one_checked():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.parent": M(100), "root.parent.leaf": M(10)})
    assert not engine.increase("root.parent.leaf", "app-1", "alice", [], M(11)).allowed
    # child1 has no runtime of its own: its usage is bound to its parent
    assert engine.increase("root.parent.child1", "app-1", "alice", [], M(90)).allowed
    decision = engine.increase("root.parent.child2", "app-2", "bob", [], M(11))
    assert decision.reason == "elasticQuota"
    assert "queue root.parent:" in decision.message


def test_a_queue_without_a_runtime_is_not_limited():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": M(1)})
    assert engine.increase("root.b", "app-1", "alice", [], M(10**9)).allowed


def test_turned_off_the_rule_no_longer_applies():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": M(1)})
    assert not engine.increase("root.a", "app-1", "alice", [], M(2)).allowed
    engine.set_elastic_runtimes(None)
    assert engine.increase("root.a", "app-1", "alice", [], M(2)).allowed


def test_headroom_includes_what_the_runtime_leaves():
    engine = make_engine()
    engine.set_elastic_runtimes({"root.a": {"memory": 100, "vcore": 5000}})
    engine.increase("root.a", "app-1", "alice", [], {"memory": 30})
    assert engine.headroom("root.a", "app-2", "bob", []) == {"memory": 70, "vcore": 5000}


def test_queue_usage_reads_each_queue_with_its_subtree():
    engine = make_engine()
    engine.increase("root.parent.leaf", "app-1", "alice", [], M(30))
    engine.increase("root.parent.child1", "app-2", "bob", [], M(5))
    assert engine.queue_usage(["root", "root.parent", "root.parent.leaf", "root.b"]) == {
        "root": M(35), "root.parent": M(35), "root.parent.leaf": M(30), "root.b": {},
    }
