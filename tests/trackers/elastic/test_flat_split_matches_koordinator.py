"""Spec K1-K4 and K7-K9: one parent sharing one resource, with Koordinator's numbers."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes

K1 = [eq("a", 10, 40), eq("b", 15, 60), eq("c", 20, 50), eq("d", 15, 80)]
K1_DEMAND = {"a": 5, "b": 20, "c": 40, "d": 70}


def test_k1_seed_example():
    tree = build(*K1, total=100, demand=K1_DEMAND)
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 35, 40]


def test_k1_with_c_asking_30():
    tree = build(*K1, total=100, demand={**K1_DEMAND, "c": 30})
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 30, 45]
