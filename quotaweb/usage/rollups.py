"""The accounting's rollups: the history (``allocations.HistoryEvent``) folded, as it arrives, into
hourly resource-time per (partition, queue, user, group, resource type) and hourly admissions
per application; and the history pruned after ``QUOTAWEB_HISTORY_DAYS``.

The engine owner folds each partition it owns (``history_upkeep_start``) in bounded chunks. A
partition's ``HistoryFold.position`` says how far: on SQLite the last history id folded (one
writer at a time, so ids commit in order and a reader never sees a later id before an earlier
one); on PostgreSQL a transaction id below which every event has been folded, advanced only up
to the oldest transaction still running (``pg_snapshot_xmin``), since a transaction that began
earlier may still commit rows with smaller ids. The position moves by compare-and-set in the
transaction that adds the chunk, so two folders (a partition changing hands) never fold an event
twice. Reads (``usage.accounting``) add the events past the position themselves.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from quotaweb.allocations.models import HistoryEvent
from quotaweb.engine.gateway import engines_get
from quotaweb.usage.models import AdmissionHour, HistoryFold, UsageHour

logger = logging.getLogger(__name__)

FOLD_CHUNK = 2000
PRUNE_CHUNK = 5000
HOUR = timedelta(hours=1)
MSG_FAILED = "history upkeep failed; trying again every %s s"

_EVENT_FIELDS = (
    "id", "tx", "kind", "at", "started", "application_id", "queue_path", "user", "group",
    "resource",
)


def hour_floor(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def interval_hours(start: datetime, end: datetime) -> Iterable[tuple[datetime, float]]:
    """``(hour, seconds)`` of ``[start, end)`` in each hour it overlaps."""
    hour = hour_floor(start)
    while hour < end:
        following = hour + HOUR
        seconds = (min(end, following) - max(start, hour)).total_seconds()
        if seconds > 0:
            yield hour, seconds
        hour = following


def event_usage(
    started: datetime, ended: datetime, resource: dict[str, int], *,
    since: datetime | None = None, until: datetime | None = None,
) -> Iterable[tuple[datetime, str, float]]:
    """``(hour, resource type, base units x seconds)`` of an allocation that ran from
    ``started`` to ``ended``, cut to ``[since, until)`` when given."""
    start = started if since is None else max(started, since)
    end = ended if until is None else min(ended, until)
    for hour, seconds in interval_hours(start, end):
        for kind, quantity in resource.items():
            if quantity:
                yield hour, kind, quantity * seconds


def _pending(
    partition: str, position: int, horizon: int | None
) -> tuple[list[tuple[Any, ...]], bool]:
    """Up to about ``FOLD_CHUNK`` events past ``position`` that may be folded, in order, and
    whether they are all there are (up to ``horizon``)."""
    events = HistoryEvent.objects.filter(
        partition=partition, kind__in=(HistoryEvent.KIND_ADMITTED, HistoryEvent.KIND_RELEASED)
    )
    if horizon is None:
        chunk = list(events.filter(id__gt=position).order_by("id")
                     .values_list(*_EVENT_FIELDS)[:FOLD_CHUNK])
        return chunk, len(chunk) < FOLD_CHUNK
    chunk = list(events.filter(tx__gte=position, tx__lt=horizon).order_by("tx", "id")
                 .values_list(*_EVENT_FIELDS)[:FOLD_CHUNK])
    if len(chunk) < FOLD_CHUNK:
        return chunk, True
    # The chunk may cut a transaction's events in two: that transaction's are taken whole.
    last = chunk[-1][1]
    chunk = [event for event in chunk if event[1] != last]
    chunk += events.filter(tx=last).order_by("id").values_list(*_EVENT_FIELDS)
    return chunk, False


def _horizon() -> int | None:
    """PostgreSQL: the oldest transaction still running, below which all have ended."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
        return cursor.fetchone()[0]


def history_fold(*, partition: str) -> int:
    """Fold the next chunk of ``partition``'s history into the rollups; how many events."""
    fold, _ = HistoryFold.objects.get_or_create(partition=partition)
    horizon = _horizon()
    chunk, complete = _pending(partition, fold.position, horizon)
    if not chunk:
        if horizon is not None and horizon > fold.position:
            HistoryFold.objects.filter(partition=partition, position=fold.position).update(
                position=horizon
            )
        return 0
    usage: dict[tuple[Any, ...], float] = defaultdict(float)
    admitted: dict[tuple[Any, ...], int] = defaultdict(int)
    for _id, _tx, kind, at, started, application, queue, user, group, resource in chunk:
        if kind == HistoryEvent.KIND_ADMITTED:
            admitted[hour_floor(at), queue, user, group, application] += 1
            continue
        for hour, resource_type, amount in event_usage(started, max(at, started), resource):
            usage[hour, queue, user, group, resource_type] += amount
    # SQLite: the last id folded. PostgreSQL: every transaction below the horizon when all
    # were there, else up to and with the last transaction taken whole.
    position = chunk[-1][0] if horizon is None else horizon if complete else chunk[-1][1] + 1
    with transaction.atomic():
        if not HistoryFold.objects.filter(partition=partition, position=fold.position).update(
            position=position
        ):
            # Another folder (a partition changing hands) got there first: nothing is added.
            transaction.set_rollback(True)
            return 0
        _add(UsageHour, "resource_type", "amount", partition, usage)
        _add(AdmissionHour, "application_id", "allocations", partition, admitted)
    return len(chunk)


def _add(model: Any, last_key: str, total: str, partition: str,
         amounts: dict[tuple[Any, ...], Any]) -> None:
    """Add ``amounts`` (by hour, queue, user, group and ``last_key``) to ``model``'s rows."""
    if not amounts:
        return
    quote, meta = connection.ops.quote_name, model._meta
    keys = ["partition", "hour", "queue_path", "user", "group", last_key]
    columns = ", ".join(quote(meta.get_field(name).column) for name in keys)
    table, total_column = quote(meta.db_table), quote(meta.get_field(total).column)
    statement = (
        f"INSERT INTO {table} ({columns}, {total_column}) VALUES ({', '.join(['%s'] * 7)}) "
        f"ON CONFLICT ({columns}) DO UPDATE SET "
        f"{total_column} = {table}.{total_column} + excluded.{total_column}"
    )
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.executemany(statement, [
            (partition, adapt(hour), queue, user, group, last, amount)
            for (hour, queue, user, group, last), amount in amounts.items()
        ])


def history_prune(*, partition: str, now: datetime | None = None) -> int:
    """Delete one chunk of ``partition``'s history and rollups older than the retention (and
    already folded); how many history rows went."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.QUOTAWEB_HISTORY_DAYS)
    fold = HistoryFold.objects.filter(partition=partition).first()
    if fold is None:
        return 0
    # The oldest rows have the smallest ids: the chunk is the first rows, of which those before
    # the cutoff and already folded (denials are never folded) go. Most rounds find the oldest
    # row young enough and read no more.
    rows = HistoryEvent.objects.filter(partition=partition).order_by("id")
    first = rows.values_list("at", flat=True).first()
    old: list[int] = []
    if first is not None and first < cutoff:
        old = [
            id_ for id_, tx, kind, at in rows.values_list("id", "tx", "kind", "at")[:PRUNE_CHUNK]
            if at < cutoff and (
                kind == HistoryEvent.KIND_DENIED
                or (tx < fold.position if tx is not None else id_ <= fold.position)
            )
        ]
    if old:
        HistoryEvent.objects.filter(id__in=old).delete()
    for model in (UsageHour, AdmissionHour):
        stale = list(model.objects.filter(partition=partition, hour__lt=hour_floor(cutoff))
                     .values_list("id", flat=True)[:PRUNE_CHUNK])
        if stale:
            model.objects.filter(id__in=stale).delete()
    return len(old)


def history_upkeep(*, partitions: Iterable[str]) -> None:
    """Fold and prune the history of ``partitions`` until both are done, chunk by chunk."""
    for partition in partitions:
        while history_fold(partition=partition):
            pass
        while history_prune(partition=partition):
            pass


def history_upkeep_start(*, stop: threading.Event) -> threading.Thread:
    """Fold and prune the history of the partitions this process owns every
    ``QUOTAWEB_HISTORY_FOLD_SECONDS`` until ``stop`` is set (a daemon thread)."""
    interval = settings.QUOTAWEB_HISTORY_FOLD_SECONDS

    def run() -> None:
        failing = False
        while not stop.wait(interval):
            close_old_connections()
            try:
                history_upkeep(partitions=engines_get().partitions())
            except Exception:
                if not failing:
                    logger.exception(MSG_FAILED, interval)
                failing = True
            else:
                failing = False
        connection.close()

    thread = threading.Thread(target=run, name="history-upkeep", daemon=True)
    thread.start()
    return thread
