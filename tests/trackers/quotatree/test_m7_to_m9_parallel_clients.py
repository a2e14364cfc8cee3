"""M7-M9: clients calling the manager from several threads at once."""

from __future__ import annotations

import threading
import time

from tests.trackers.quotatree.support import cm, gold_tree, manager_with
from trackers.quotatree import ConsumerSpec, TreeRequest, make_tree
from trackers.quotatree import messages as m

T = "test-tree"


def run_threads(targets):
    threads = [threading.Thread(target=t) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
        assert not thread.is_alive()


def test_m7_three_leaves_in_parallel_each_at_its_own_leaf():
    tree = make_tree(T, ["cpu", "memory"], [
        ("root", None, [10, 256], True), ("gold", "root", [2, 64], True),
        ("silver", "root", [6, 64], False), ("bronze", "root", [2, 128], False)])
    manager = manager_with(tree)
    manager.add_forest("unit-test-2", [T])
    answers = {}

    def client(cid, leaf):
        def run():
            # MCAD sends a gpu amount of 0 to trees without gpus: ignored.
            spec = ConsumerSpec(cid, {T: TreeRequest(leaf, {"cpu": 1, "memory": 4, "gpu": 0})})
            result = manager.allocate_forest("unit-test-2", spec)
            answers[cid] = (result.allocated, result.nodes[T], result.message)
            manager.deallocate_forest("unit-test-2", cid)
        return run

    run_threads([client("gold-1", "gold"), client("gold-2", "gold"),
                 client("bronze-1", "bronze"), client("silver-1", "silver")])
    assert answers == {
        "gold-1": (True, "gold", ""), "gold-2": (True, "gold", ""),
        "bronze-1": (True, "bronze", ""), "silver-1": (True, "silver", "")}
    assert manager.placements(T) == []
    assert all(not any(n["allocated"].values()) for n in manager.state(T)["nodes"].values())


def test_m8_the_second_consumer_succeeds_once_the_first_leaves():
    manager = manager_with(gold_tree())
    first = manager.allocate(T, ConsumerSpec("c1", {T: TreeRequest("gold", cm(10, 4))}))
    assert first.allocated
    messages = []

    def second():
        delay = 0.01
        for _ in range(10):
            result = manager.allocate(T, ConsumerSpec("c2", {T: TreeRequest("gold", cm(10, 4))}))
            if result.allocated:
                messages.append("allocated")
                return
            messages.append(result.message)
            time.sleep(delay)
            delay = min(1.0, delay * 2)

    def release_first():
        time.sleep(0.01)
        manager.deallocate(T, "c1")

    run_threads([second, release_first])
    assert messages[0] == m.REJECTED.format(tree=T)
    assert messages[-1] == "allocated"
    assert [p["id"] for p in manager.placements(T)] == ["c2"]


def test_m9_trials_and_undos_under_a_caller_lock_leave_the_tree_empty():
    manager = manager_with(gold_tree())
    caller_lock = threading.Lock()
    outcomes = []

    def client(cid):
        def run():
            with caller_lock:
                spec = ConsumerSpec(cid, {T: TreeRequest("gold", cm(4, 4))})
                result = manager.try_allocate(T, spec)
                undone = manager.undo(T, cid)
                outcomes.append((result.allocated, undone.consumer))
        return run

    run_threads([client("a"), client("b")])
    assert sorted(outcomes) == [(True, "a"), (True, "b")]
    assert manager.placements(T) == []
    assert all(not any(n["allocated"].values()) for n in manager.state(T)["nodes"].values())
