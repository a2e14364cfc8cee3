"""A trend chart's value axis labels every tick in one unit, the one its top reaches, with round
steps in that unit: an axis read "1000 GiB" then "1.5 TiB", and "0 B" under gibibytes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from quotaweb.usage.charts import trend_charts
from trackers.resources import BYTE_STEP

GiB = BYTE_STEP**3
TiB = BYTE_STEP**4
NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)


def _memory_ticks(peak: int, limit: int | None = None):
    samples = [
        {"at": NOW - timedelta(minutes=2), "resource": {"memory": peak // 2}, "running": 1},
        {"at": NOW - timedelta(minutes=1), "resource": {"memory": peak}, "running": 1},
    ]
    drawn = trend_charts(samples, now=NOW, every=60, limits={"memory": limit} if limit else None)
    (memory,) = [chart for chart in drawn["charts"] if chart.kind == "memory"]
    return memory.y_ticks


def _memory_axis(peak: int, limit: int | None = None) -> list[str]:
    return [tick.label for tick in _memory_ticks(peak, limit)]


def test_an_axis_past_a_tebibyte_reads_in_tebibytes_throughout():
    assert _memory_axis(1400 * GiB) == ["0 TiB", "0.5 TiB", "1 TiB", "1.5 TiB"]


def test_an_axis_below_a_tebibyte_reads_in_gibibytes_throughout():
    assert _memory_axis(900 * GiB) == ["0 GiB", "500 GiB", "1000 GiB"]


def test_a_limit_that_lifts_the_top_into_the_next_unit_changes_the_whole_axis():
    labels = _memory_axis(700 * GiB, limit=1010 * GiB)
    assert {label.split()[1] for label in labels} == {"TiB"}


@given(st.integers(min_value=1, max_value=2**62))
def test_every_tick_shares_one_unit_and_the_top_covers_the_peak(peak):
    ticks = _memory_ticks(peak)
    assert len({tick.label.split()[1] for tick in ticks}) == 1
    assert len(ticks) >= 2
    assert int(ticks[-1].title.split()[0]) >= peak
