"""Accounting equals a brute-force sum over the raw history, for random histories: allocations
that span the period's and the buckets' boundaries, folded into the rollups at random moments
(so part of each answer comes from the rollups, part from the history not yet folded and part
from the ledger's open allocations), on either database."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotaweb.allocations.models import Allocation, HistoryEvent
from quotaweb.usage.accounting import accounting_query, accounting_report, time_unit
from quotaweb.usage.models import AdmissionHour, HistoryFold, UsageHour
from quotaweb.usage.rollups import history_fold, hour_floor

pytestmark = pytest.mark.django_db(transaction=True)

NOW = hour_floor(datetime.now(UTC)) + timedelta(minutes=17)
START = NOW - timedelta(hours=60)
USERS = ("alice", "bob", "carol")

_allocation = st.fixed_dictionaries({
    "user": st.sampled_from(USERS),
    "queue": st.sampled_from(["root.eng", "root.eng.ml", "root.ops"]),
    "start": st.integers(0, 60 * 3600 - 1),
    "length": st.integers(1, 30 * 3600),
    "memory": st.integers(1, 64).map(lambda gib: gib * 2**30),
    "vcore": st.integers(0, 8000),
    "open": st.booleans(),
    "fold_after": st.booleans(),
})


def _tx() -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        return cursor.fetchone()[0]


def _store(number: int, spec: dict) -> tuple[datetime, datetime | None]:
    """An allocation: while open, its ledger row (whose trigger writes its admission); once
    ended, its admission and release as the triggers would have written them. Its start and
    end (None while open)."""
    started = START + timedelta(seconds=spec["start"])
    ended = min(started + timedelta(seconds=spec["length"]), NOW)
    resource = {"memory": spec["memory"], **({"vcore": spec["vcore"]} if spec["vcore"] else {})}
    fields = {"partition": "default", "key": f"k{number}", "application_id": f"app-{number % 4}",
              "queue_path": spec["queue"], "user": spec["user"], "groups": [], "group": "",
              "resource": resource}
    if spec["open"]:
        Allocation.objects.create(created=started, **fields)
        return started, None
    with transaction.atomic():
        tx = _tx()
        HistoryEvent.objects.bulk_create([
            HistoryEvent(kind="admitted", at=started, tx=tx, **fields),
            HistoryEvent(kind="released", at=ended, started=started, tx=tx, **fields),
        ])
    return started, ended


def _brute(allocations: list[tuple[dict, datetime, datetime | None]], since: datetime,
           until: datetime, queue: str) -> dict[str, dict[str, float]]:
    totals: dict[str, dict[str, float]] = {}
    for spec, started, ended in allocations:
        if not (spec["queue"] == queue or spec["queue"].startswith(queue + ".")):
            continue
        end = min(ended or NOW, until)
        seconds = (end - max(started, since)).total_seconds()
        if seconds <= 0:
            continue
        row = totals.setdefault(spec["user"], {})
        for kind, amount in (("memory", spec["memory"]), ("vcore", spec["vcore"])):
            if amount:
                row[kind] = row.get(kind, 0.0) + amount * seconds / time_unit(kind)[1]
    return totals


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    allocations=st.lists(_allocation, min_size=1, max_size=12),
    window=st.tuples(st.integers(0, 59), st.integers(1, 60)),
    step=st.sampled_from(["hour", "day", "week", "month"]),
    queue=st.sampled_from(["root", "root.eng"]),
    top=st.integers(1, 4),
)
def test_accounting_equals_the_brute_force_sum(capped_engines, allocations, window,
                                              step, queue, top):
    # The ledger first: its deletes write history of their own.
    for model in (Allocation, HistoryEvent, UsageHour, AdmissionHour, HistoryFold):
        model.objects.all().delete()
    stored = []
    for number, spec in enumerate(allocations):
        started, ended = _store(number, spec)
        stored.append((spec, started, ended))
        if spec["fold_after"]:
            while history_fold(partition="default"):
                pass
    since = START + timedelta(hours=window[0])
    until = since + timedelta(hours=window[1])
    report = accounting_report(query=accounting_query(
        partition="default", now=NOW,
        params={"by": "user", "step": step, "top": str(top), "queue": queue,
                "from": since.isoformat(), "to": until.isoformat()},
    ), now=NOW)
    # The period is whole hours: ``from`` rounded down, ``to`` up.
    since, until = (datetime.fromisoformat(report[name]) for name in ("from", "to"))
    assert (since, until) == (hour_floor(since), hour_floor(until))
    expected = _brute(stored, since, until, queue)
    got = {row["key"]: row["usage"] for row in report["rows"]}
    assert len(got) <= top
    # Past the top N, the users are summed as one row.
    others = {}
    for user in set(expected) - set(got):
        for kind, amount in expected.pop(user).items():
            others[kind] = others.get(kind, 0.0) + amount
    if report["others"]:
        got["(others)"] = report["others"]["usage"]
    if others:
        expected["(others)"] = others
    for user in {*got, *expected}:
        for kind in {*got.get(user, {}), *expected.get(user, {})}:
            # The report rounds to a millionth of a unit.
            have, want = got.get(user, {}).get(kind, 0.0), expected.get(user, {}).get(kind, 0.0)
            assert math.isclose(have, want, rel_tol=1e-6, abs_tol=1e-5), (user, kind, have, want)
    for row in [*report["rows"], *([report["others"]] if report["others"] else [])]:
        for kind, series in row["series"].items():
            assert math.isclose(sum(series), row["usage"][kind], rel_tol=1e-6, abs_tol=1e-5)
    admitted = sum(1 for spec, started, _ in stored if since <= started < until and (
        spec["queue"] == queue or spec["queue"].startswith(queue + ".")))
    assert sum(row["allocations"] for row in report["rows"]) + (
        report["others"]["allocations"] if report["others"] else 0) == admitted
