"""Reads of the what-if replays: the history a replay asks again, in order, and the replays."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from quotaweb.allocations.models import Allocation, HistoryEvent
from quotaweb.whatif.models import Replay
from trackers.ugm.replay import Event, Held, Release, Request

# Rows read per query: a replay of millions of events holds one page at a time.
PAGE_ROWS = 5000

_FIELDS = ("key", "queue_path", "application_id", "user", "groups", "resource")


def _held_before(*, partition: str, since: datetime) -> Iterator[Held]:
    """The allocations live when the period starts: still in the ledger, or released since."""
    ledger = Allocation.objects.filter(partition=partition, created__lt=since).order_by("id")
    released = HistoryEvent.objects.filter(
        partition=partition, kind=HistoryEvent.KIND_RELEASED, started__lt=since, at__gte=since,
    ).order_by("id")
    for rows in (ledger, released):
        for key, queue, app, user, groups, resource in _pages(rows, _FIELDS):
            yield Held(key, queue, app, user, tuple(groups), resource)


def _pages(rows: QuerySet[Any], fields: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
    """``rows`` (ordered by id) page by page, by id: no cursor or transaction is held open
    between pages, however long the replay takes over each."""
    last = 0
    while True:
        page = list(rows.filter(id__gt=last).values_list("id", *fields)[:PAGE_ROWS])
        for row in page:
            yield row[1:]
        if len(page) < PAGE_ROWS:
            return
        last = page[-1][0]


def replay_events(*, partition: str, since: datetime, until: datetime) -> Iterator[Event]:
    """The period's history as a replay takes it: first the allocations held when it starts,
    then every admission, denial and release within it, in the order they were written (a
    denial is written in the background, so it may come up to a second after the admissions
    of its time)."""
    yield from _held_before(partition=partition, since=since)
    events = HistoryEvent.objects.filter(
        partition=partition, at__gte=since, at__lt=until,
    ).order_by("id")
    fields = ("kind", "at", "reason", "group", *_FIELDS)
    for kind, at, reason, group, key, queue, app, user, groups, resource in _pages(
        events, fields
    ):
        moment = at.timestamp()
        if kind == HistoryEvent.KIND_RELEASED:
            yield Release(moment, key)
        else:
            admitted = kind == HistoryEvent.KIND_ADMITTED
            yield Request(key, queue, app, user, tuple(groups), resource, at=moment,
                          admitted=admitted, reason=None if admitted else reason,
                          group=group or None)


def replay_events_count(*, partition: str, since: datetime, until: datetime) -> int:
    held = (
        Allocation.objects.filter(partition=partition, created__lt=since).count()
        + HistoryEvent.objects.filter(
            partition=partition, kind=HistoryEvent.KIND_RELEASED, started__lt=since,
            at__gte=since,
        ).count()
    )
    return held + HistoryEvent.objects.filter(
        partition=partition, at__gte=since, at__lt=until
    ).count()


def replay_get(*, pk: int) -> Replay | None:
    return Replay.objects.filter(pk=pk).first()


def replay_latest(*, author: Any) -> Replay | None:
    return Replay.objects.filter(author=author).order_by("-created").first()
