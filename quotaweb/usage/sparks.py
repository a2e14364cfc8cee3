"""The users list's sparklines: each user's root-level usage of one resource over the last hour,
read for the whole page from one query.

Sparklines cover the last hour, at most 60 points, 60 by 20 units, drawn for the users on the
page (a page of the list, so a few dozen: about 60 samples an hour each at the default interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connections
from django.db.models import CharField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from quotaweb.usage.limits import APPLICATIONS, quantity_text, raw_text
from quotaweb.usage.models import UsageSample
from quotaweb.usage.rows import EntityRow
from quotaweb.usage.sampling import clock_text, gap_seconds, sample_seconds

SPARK_SECONDS = 3600
SPARK_WIDTH = 60
SPARK_HEIGHT = 20


@dataclass(frozen=True, slots=True)
class Spark:
    """A user's root-level usage of one resource over the last hour, as a path of
    ``SPARK_WIDTH`` by ``SPARK_HEIGHT`` units."""

    kind: str
    path: str
    latest: int
    latest_at: datetime
    peak: int

    @property
    def title(self) -> str:
        return (
            f"{self.kind} in the last hour: latest sample {quantity_text(self.kind, self.latest)} "
            f"at {clock_text(self.latest_at)}, peak {quantity_text(self.kind, self.peak)} "
            f"({raw_text(self.kind, self.peak)})"
        )


def user_sparks(
    *, partition: str, rows: Sequence[EntityRow], now: datetime | None = None
) -> dict[str, Spark | None]:
    """The sparkline of each user of ``rows`` (None: nothing sampled in the last hour), from one
    query.

    The database picks out each user's one resource, and the rows skip the ORM's per-row
    conversions (every user sampled in one pass shares its time, so each time is read once)."""
    kinds = {row.name: _spark_kind(row) for row in rows}
    if not kinds:
        return {}
    since = (now or timezone.now()) - timedelta(seconds=SPARK_SECONDS)
    columns = sorted(set(kinds.values()))
    column = {kind: n for n, kind in enumerate(columns, start=2)}
    query = UsageSample.objects.filter(
        partition=partition, kind="user", name__in=list(kinds), at__gte=since
    )
    # The time as text: a database datetime would be parsed again on every row.
    query = query.order_by("name", "at").values_list(
        "name", Cast("at", CharField()), *(KeyTransform(kind, "resource") for kind in columns)
    )
    sql, params = query.query.sql_with_params()
    times: dict[str, tuple[float, int, datetime]] = {}
    every = sample_seconds()
    sparks: dict[str, Spark | None] = dict.fromkeys(kinds)
    name, at, points, index = None, "", [], 0

    def done() -> None:
        if name is not None and points:
            sparks[name] = _spark(kinds[name], points, times[at][2], every)

    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(10_000):
            # Rows come by name, then time: one user's run of rows after another's.
            for found in chunk:
                if found[0] != name:
                    done()
                    name, points = found[0], []
                    index = column[kinds[name]]
                at = found[1]
                when = times.get(at)
                if when is None:
                    when = times[at] = _sample_time(at, since)
                value = found[index]
                points.append((when[0], when[1], int(value) if value else 0))
    done()
    return sparks


def _spark_kind(row: EntityRow) -> str:
    """The resource a user's sparkline shows: that of their most constrained limit when they
    use it, else memory, else the first they use."""
    bar = row.constrained
    constrained = bar.kind if bar is not None and bar.kind != APPLICATIONS else None
    used = sorted(kind for kind, value in row.usage.items() if value)
    if constrained in used:
        return constrained
    if "memory" in used:
        return "memory"
    if used:
        return used[0]
    return constrained or "memory"


def _spark(kind: str, points: list[tuple[float, int, int]], latest_at: datetime,
           every: int) -> Spark:
    """``points`` (seconds into the hour, units across, value; oldest first) as a path: one
    point per unit across (the peak of the samples there), split where samples are far apart."""
    gap = gap_seconds([at for at, _, _ in points], every)
    runs: list[list[list[int]]] = []
    run: list[list[int]] = []
    previous = -math.inf
    peak = 0
    for at, x, value in points:
        peak = max(peak, value)
        if at - previous > gap:
            run = []
            runs.append(run)
        if run and run[-1][0] == x:
            run[-1][1] = max(run[-1][1], value)
        else:
            run.append([x, value])
        previous = at
    scale = (SPARK_HEIGHT - 2) / (peak or 1)
    bottom = SPARK_HEIGHT - 1
    parts = []
    for run in runs:
        path = "L".join(f"{x} {round(bottom - value * scale)}" for x, value in run)
        parts.append(f"M{path}{'h1' if len(run) == 1 else ''}")
    return Spark(kind, "".join(parts), points[-1][2], latest_at, peak)


def _sample_time(raw: Any, since: datetime) -> tuple[float, int, datetime]:
    """A sample time as the database writes it as text (SQLite: UTC without an offset):
    seconds after ``since``, units across a sparkline, and the aware datetime."""
    at = raw if isinstance(raw, datetime) else parse_datetime(str(raw))
    if at is None:
        raise ValueError(f"not a sample time: {raw!r}")
    if timezone.is_naive(at):
        at = at.replace(tzinfo=UTC)
    seconds = (at - since).total_seconds()
    return seconds, min(SPARK_WIDTH, max(0, round(seconds * SPARK_WIDTH / SPARK_SECONDS))), at
