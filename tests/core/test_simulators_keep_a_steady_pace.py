"""The demo's demand and tree simulators keep a steady pace (``quotaweb.core.pacing.Pace``):
nothing in the first interval, then the rate, and after a stall the rate again, not a flood."""

from __future__ import annotations

from quotaweb.core.pacing import Pace


def _count(pace: Pace, now: float) -> int:
    return sum(1 for _ in pace.due(now))


def test_nothing_is_due_in_the_first_interval_then_the_rate():
    pace = Pace(2.0)
    assert _count(pace, 100.0) == 0
    assert _count(pace, 100.4) == 0
    assert _count(pace, 100.5) == 1
    assert _count(pace, 101.5) == 2


def test_after_a_stall_the_pace_resumes_without_a_flood():
    pace = Pace(4.0)
    assert _count(pace, 0.0) == 0
    # A stall of 60 s: the one due and the one at the moment, not 240.
    assert _count(pace, 60.0) == 2
    assert _count(pace, 61.0) == 4
