"""The trend page's drawing: one user's, group's or queue's samples as a chart per resource and
one of running applications (SVG paths, axes, hover areas), and the same figures as a table.

Samples far apart leave a gap in the line (``quotaweb.usage.sampling``); a chart draws at most
about ``CHART_POINTS`` points and the table has about ``TABLE_ROWS`` rows, each the peak of the
samples it stands for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from quotaweb.usage.limits import APPLICATIONS, quantity_text, raw_text
from quotaweb.usage.sampling import clock_text, duration_text, gap_seconds
from trackers.resources import BYTE_STEP, bytes_unit_power, format_bytes_in, is_bytes_type

# A chart draws at most about this many points, each the peak of the samples it stands for.
CHART_POINTS = 300
# The table under the charts has at most about this many rows, each a span's peak.
TABLE_ROWS = 48
# The chart's drawing, in pixels down and in its own units across (it stretches to the page).
CHART_TOP = 18
CHART_PLOT = 160
CHART_HEIGHT = 204
CHART_WIDTH = 1000
CHART_GEOMETRY = {
    "top": CHART_TOP, "plot": CHART_PLOT, "height": CHART_HEIGHT, "width": CHART_WIDTH,
    "bottom": CHART_TOP + CHART_PLOT, "tick_end": CHART_TOP + CHART_PLOT + 5,
    "label_y": CHART_HEIGHT - 6,
}
# Time axis steps (seconds), aligned to the local clock.
TIME_STEPS = (
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    172800,
)
TIME_TICKS = 8


@dataclass(frozen=True, slots=True)
class Tick:
    """An axis mark: where (pixels down, or percent across), its label and the raw value."""

    at: str
    label: str
    title: str = ""
    anchor: str = "middle"
    label_at: str = ""


@dataclass(frozen=True, slots=True)
class Hit:
    """A point's hover area across the chart (its own units) and what it says."""

    x: str
    width: str
    title: str


@dataclass(frozen=True, slots=True)
class Chart:
    """One resource (or running applications) over time, ready to draw as SVG."""

    kind: str
    label: str
    line: str
    area: str
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    hits: tuple[Hit, ...]
    latest: str
    peak: str
    summary: str
    # The limit the configuration sets on what the chart shows, as a line across it.
    limit_at: str = ""
    limit_text: str = ""


@dataclass(frozen=True, slots=True)
class TableRow:
    first: datetime
    last: datetime
    count: int
    cells: tuple[tuple[str, str], ...]  # (human, raw) per column


def trend_charts(
    samples: Sequence[Mapping[str, Any]], *, now: datetime, every: int,
    limits: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The trend page's drawing of ``samples`` (oldest first, at least one) up to ``now``, taken
    every ``every`` seconds, with a line at each of ``limits`` (by resource, or
    ``APPLICATIONS``): ``charts``, the table (``table_span``, ``table_rows``), the span drawn
    (``start``, ``end``), the samples' ``first`` and ``last``, and whether there are ``gaps``."""
    gap = gap_seconds([sample["at"].timestamp() for sample in samples], every)
    end = max(now, samples[-1]["at"])
    start = min(samples[0]["at"], end - timedelta(seconds=10 * every))
    width = max(every, (end - start).total_seconds() / CHART_POINTS)
    runs = _buckets(samples, width, gap)
    limits = limits or {}
    kinds = [*sorted({kind for sample in samples for kind in sample["resource"]}), APPLICATIONS]
    x_ticks = _time_ticks(start, end)
    table_span, table_rows = _table(samples, kinds, every, gap)
    return {
        "charts": [
            _chart(kind, runs, start, end, x_ticks, every, samples[-1], limits.get(kind))
            for kind in kinds
        ],
        "table_span": table_span, "table_rows": table_rows,
        "first": samples[0]["at"], "last": samples[-1]["at"], "start": start, "end": end,
        "gaps": len(runs) > 1,
    }


@dataclass(slots=True)
class _Bucket:
    """Consecutive samples drawn as one point: the peak of each resource over them."""

    first: datetime
    last: datetime
    peak: dict[str, int]
    running: int
    count: int = 1

    def value(self, kind: str) -> int:
        return self.running if kind == APPLICATIONS else self.peak.get(kind, 0)


def _buckets(samples: Sequence[Mapping[str, Any]], width: float, gap: float) -> list[list[_Bucket]]:
    """``samples`` (oldest first) in runs split where they are more than ``gap`` seconds apart,
    each run in buckets of at most ``width`` seconds."""
    runs: list[list[_Bucket]] = []
    previous: datetime | None = None
    for sample in samples:
        at, resource, running = sample["at"], sample["resource"], sample["running"]
        if previous is None or (at - previous).total_seconds() > gap:
            runs.append([])
        run = runs[-1]
        if not run or (at - run[-1].first).total_seconds() >= width:
            run.append(_Bucket(at, at, dict(resource), running))
        else:
            bucket = run[-1]
            bucket.last, bucket.count = at, bucket.count + 1
            bucket.running = max(bucket.running, running)
            for kind, value in resource.items():
                bucket.peak[kind] = max(bucket.peak.get(kind, 0), value)
        previous = at
    return runs


def _axis(kind: str, peak: int, count: int = 4) -> tuple[int, int, int]:
    """The value axis reaching ``peak``: a round step (1, 2 or 5 times a power of ten) in about
    ``count`` steps, the top, and for bytes the power of 1024 every tick is labelled in. That
    unit is the one the top reaches, and the step is rounded in it, so an axis reads 0, 0.5, 1,
    1.5 TiB rather than jumping from 1000 GiB to 1.5 TiB; a top that reaches the next unit
    rounds again in that unit."""
    power = bytes_unit_power(max(peak, 1)) if is_bytes_type(kind) else 0
    while True:
        unit = BYTE_STEP**power
        scaled = max(peak, 1) / count / unit
        magnitude = 10 ** math.floor(math.log10(scaled))
        factor = next(f * magnitude for f in (1, 2, 5, 10) if f * magnitude >= scaled)
        step = max(1, round(factor * unit))
        top = max(step, -(-peak // step) * step)
        if not is_bytes_type(kind) or bytes_unit_power(top) <= power:
            return step, top, power
        power += 1


def _tick_label(kind: str, value: int, power: int) -> str:
    return format_bytes_in(value, power) if is_bytes_type(kind) else quantity_text(kind, value)


def _time_ticks(start: datetime, end: datetime) -> tuple[Tick, ...]:
    """Round local times between ``start`` and ``end``, at percent across."""
    span = (end - start).total_seconds()
    step = next((s for s in TIME_STEPS if span / s <= TIME_TICKS), TIME_STEPS[-1])
    offset = timezone.localtime(start).utcoffset() or timedelta()
    local_start = start.timestamp() + offset.total_seconds()
    moment = math.ceil(local_start / step) * step - offset.total_seconds()
    ticks = []
    while moment <= end.timestamp():
        at = datetime.fromtimestamp(moment, tz=UTC)
        share = (moment - start.timestamp()) / span * 100
        local = timezone.localtime(at)
        if step >= 86400:
            label = local.strftime("%a %d %b")
        elif step < 60:
            label = local.strftime("%H:%M:%S")
        else:
            label = local.strftime("%a %H:%M" if span > 86400 else "%H:%M")
        anchor = "start" if share < 5 else "end" if share > 95 else "middle"
        ticks.append(Tick(f"{share:.2f}", label, clock_text(at, with_day=True), anchor))
        moment += step
    return tuple(ticks)


def _chart(kind: str, runs: list[list[_Bucket]], start: datetime, end: datetime,
           x_ticks: tuple[Tick, ...], every: int, latest: Mapping[str, Any],
           limit: int | None) -> Chart:
    span = (end - start).total_seconds()
    label = "running applications" if kind == APPLICATIONS else kind
    buckets = [bucket for run in runs for bucket in run]
    peak_bucket = max(buckets, key=lambda bucket: bucket.value(kind))
    peak = peak_bucket.value(kind)
    # The scale reaches the limit too, so its line is always in the drawing.
    step, top, power = _axis(kind, max(peak, limit or 0))

    def x(at: datetime) -> float:
        return min(CHART_WIDTH, (at - start).total_seconds() / span * CHART_WIDTH)

    def y(value: int) -> float:
        return CHART_PLOT * (1 - value / top)

    line, area = [], []
    for run in runs:
        points = [(x(bucket.first), y(bucket.value(kind))) for bucket in run]
        first_x, last_x = points[0][0], points[-1][0]
        if len(points) == 1:
            # One sample alone: a short flat stroke, so it shows.
            line.append(f"M{first_x:.1f} {points[0][1]:.1f}h2")
            area.append(f"M{first_x:.1f} {CHART_PLOT}V{points[0][1]:.1f}h2V{CHART_PLOT}Z")
            continue
        path = "L".join(f"{px:.1f} {py:.1f}" for px, py in points)
        line.append(f"M{path}")
        area.append(f"M{first_x:.1f} {CHART_PLOT}L{path}L{last_x:.1f} {CHART_PLOT}Z")
    hits = []
    for bucket in buckets:
        left = x(bucket.first)
        right = x(bucket.last + timedelta(seconds=every))
        value = bucket.value(kind)
        when = clock_text(bucket.first)
        if bucket.count > 1:
            when = f"{when}\u2013{clock_text(bucket.last)}, peak"
        hits.append(Hit(f"{left:.1f}", f"{max(right - left, 1.5):.1f}",
                        f"{when}: {label} {quantity_text(kind, value)} ({raw_text(kind, value)})"))
    y_ticks = tuple(
        Tick(f"{CHART_TOP + y(value):.1f}", _tick_label(kind, value, power), raw_text(kind, value),
             label_at=f"{CHART_TOP + y(value) - 4:.1f}")
        for value in range(0, top + 1, step)
    )
    latest_value = latest["running"] if kind == APPLICATIONS else latest["resource"].get(kind, 0)
    latest_text = f"{quantity_text(kind, latest_value)} at {clock_text(latest['at'])}"
    peak_text = f"{quantity_text(kind, peak)} at {clock_text(peak_bucket.first, with_day=True)}"
    limit_text = "" if limit is None else f"limit {quantity_text(kind, limit)}"
    summary = (
        f"{label} from {clock_text(start, with_day=True)} to {clock_text(end, with_day=True)}: "
        f"peak {peak_text}, latest sample {latest_text}"
        f"{f', {limit_text}' if limit_text else ''}. The table of the figures follows."
    )
    return Chart(kind, label, "".join(line), "".join(area), y_ticks, x_ticks, tuple(hits),
                 latest_text, peak_text, summary,
                 "" if limit is None else f"{y(limit):.1f}", limit_text)


def _table(samples: Sequence[Mapping[str, Any]], kinds: Sequence[str], every: int,
           gap: float) -> tuple[str, list[TableRow]]:
    """The charts' figures as rows: the peak of each span of up to ``width`` (a round length of
    time that keeps the rows near ``TABLE_ROWS``)."""
    span = (samples[-1]["at"] - samples[0]["at"]).total_seconds()
    width = next((s for s in TIME_STEPS if s >= every and span / s <= TABLE_ROWS), TIME_STEPS[-1])
    width = max(width, every)
    rows = []
    for run in _buckets(samples, width, gap):
        for bucket in run:
            cells = tuple(
                (quantity_text(kind, bucket.value(kind)), raw_text(kind, bucket.value(kind)))
                for kind in kinds
            )
            rows.append(TableRow(bucket.first, bucket.last, bucket.count, cells))
    return (f"{width} s" if width < 60 else duration_text(timedelta(seconds=width))), rows
