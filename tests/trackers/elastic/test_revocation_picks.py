"""Spec 1.10 steps 1-3: which allocations over-use revocation would take back, in order."""

from __future__ import annotations

from trackers.elastic import Candidate, revocation_picks

RUNTIME = {"cpu": 10}


def test_worked_example_with_put_back():
    # Used 16 on a runtime of 10. Least important first: p3 (priority 0), p2 (priority 1,
    # started later than p1), p1, p5; p4 is not preemptible. Taking p3, p2, p1 brings used to 7;
    # putting back from the most important: p1 (11) does not fit, p2 (10) does, p3 (12) not.
    candidates = [
        Candidate("p1", {"cpu": 4}, priority=1, started=100.0),
        Candidate("p2", {"cpu": 3}, priority=1, started=200.0),
        Candidate("p3", {"cpu": 2}, priority=0, started=50.0),
        Candidate("p4", {"cpu": 5}, priority=0, started=60.0, preemptible=False),
        Candidate("p5", {"cpu": 2}, priority=5, started=10.0),
    ]
    assert revocation_picks(candidates, used={"cpu": 16}, runtime=RUNTIME) == ["p3", "p1"]


def test_nothing_picked_within_runtime():
    candidates = [Candidate("a", {"cpu": 5})]
    assert revocation_picks(candidates, used={"cpu": 10}, runtime=RUNTIME) == []


def test_still_over_after_taking_everything_picks_everything_taken():
    candidates = [
        Candidate("big", {"cpu": 20}, preemptible=False),
        Candidate("x", {"cpu": 1}, priority=2),
        Candidate("y", {"cpu": 1}, priority=1),
    ]
    assert revocation_picks(candidates, used={"cpu": 22}, runtime=RUNTIME) == ["y", "x"]


def test_later_start_goes_first_within_a_priority():
    candidates = [
        Candidate("old", {"cpu": 5}, started=1.0),
        Candidate("new", {"cpu": 5}, started=2.0),
    ]
    assert revocation_picks(candidates, used={"cpu": 15}, runtime=RUNTIME) == ["new"]


def test_subtraction_is_masked_to_the_allocations_kinds():
    # A memory-only allocation does nothing for cpu: it is taken (it came first) and then put
    # back, since it fits again once the cpu allocation is gone.
    candidates = [
        Candidate("mem", {"memory": 100}, priority=0),
        Candidate("cpu", {"cpu": 6}, priority=1),
    ]
    picks = revocation_picks(
        candidates, used={"cpu": 15, "memory": 100}, runtime={"cpu": 10, "memory": 200}
    )
    assert picks == ["cpu"]


def test_kinds_outside_the_runtime_are_not_limited():
    candidates = [Candidate("a", {"gpu": 3})]
    assert revocation_picks(candidates, used={"cpu": 5, "gpu": 99}, runtime=RUNTIME) == []
