"""The gateway's reads: usage, headroom, live allocations and events. None changes anything,
and none waits for a partition lock, which a release or a batch holds across its ledger write
(a database round trip as long as its bound): /healthz, /metrics, the YuniKorn reads and the
dashboards answer meanwhile. Kept apart from the gateway's writes
(``quotaweb.engine.gateway``), which mixes these in."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from quotaweb.engine.app_states import ApplicationLife
from quotaweb.engine.live import (
    EVENTS_KEPT,
    EventLog,
    EventsPage,
    LiveAllocation,
    LiveSet,
    NewestEvents,
)
from trackers import Changes, Engine, UsageRows
from trackers.config.model import Partition

# How long a snapshot of the live allocations waits for its partition's lock (``live_snapshot``).
SNAPSHOT_LOCK_SECONDS = 0.1


class LiveSnapshot(NamedTuple):
    """Live allocations of a partition (or of one application) as they stood at one moment, and
    the partition's kept events up to that same moment, oldest first (``LiveSet``, ``EventLog``).
    Walking the events back from the allocations retraces how they came to be."""

    allocations: list[LiveAllocation]
    events: list[dict[str, Any]]


class UserHeadroom(NamedTuple):
    """What a user may still add in a queue (``resources``, None for unlimited) and whether the
    application may run (``can_run``)."""

    resources: dict[str, int] | None
    can_run: bool


class ReadSlot(Protocol):
    """What the reads use of a partition's slot (``gateway.PartitionSlot``)."""

    engine: Engine
    lock: threading.RLock
    live: LiveSet
    events: EventLog
    active_since_ns: int


class EngineReads:
    """Reads of the partitions' engines and live sets, mixed into ``Gateway``, which provides
    ``_slot``."""

    def _slot(self, partition: str) -> ReadSlot:
        raise NotImplementedError

    def _reader(self, partition: str) -> Engine:
        """The partition's engine for a read. Reads take no partition lock: a release or a
        batch holds it across its ledger write, which may wait for the database as long as its
        bound, and a health check, a scrape or a dashboard must answer meanwhile. The engine's
        own lock keeps each read whole; what a read sees may include an allocation whose ledger
        write is still under way (and is taken back if that write fails)."""
        return self._slot(partition).engine

    def config(self, partition: str) -> Partition:
        """The partition's configuration as its engine holds it."""
        return self._reader(partition).config

    def summary(self, partition: str) -> dict[str, Any]:
        """``{version, users, groups, queues, seq}`` for health checks and overviews."""
        return self._reader(partition).summary()

    def over_limits(
        self, partition: str, *, limits: Partition | None = None,
        users: list[dict[str, Any]] | None = None, groups: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """Who uses more than ``limits`` (a partition's config; default the one in force) allow
        (``Engine.over_limits``: usage now, or the ``users`` and ``groups`` snapshots given)."""
        return self._reader(partition).over_limits(limits, users=users, groups=groups)

    def queues_usage(self, partition: str) -> dict[str, Any]:
        return self._reader(partition).queues_usage()

    def usage_rows(self, partition: str) -> UsageRows:
        """Every user, group and queue in use, read a few rows per hold of the engine's lock:
        each row exact, the rows not one instant (``Engine.usage_rows``)."""
        return self._reader(partition).usage_rows()

    def users_usage(self, partition: str) -> list[dict[str, Any]]:
        return self._reader(partition).users_usage()

    def groups_usage(self, partition: str) -> list[dict[str, Any]]:
        return self._reader(partition).groups_usage()

    def user_names(self, partition: str) -> list[str]:
        """The users ``users_usage`` lists, by name, their trackers not read."""
        return self._reader(partition).user_names()

    def group_names(self, partition: str) -> list[str]:
        return self._reader(partition).group_names()

    def names_at(self, partition: str, kind: str, path: str) -> list[str]:
        """The users or groups (``kind``) whose objects hold the queue ``path``, by name."""
        return self._reader(partition).names_at(kind, path)

    def seq(self, partition: str) -> int:
        """The partition engine's change counter (see ``changes_since``)."""
        return self._reader(partition).seq

    def changes_since(self, partition: str, seq: int) -> Changes:
        """Users, groups and queues changed after ``seq`` (``trackers.Changes``)."""
        return self._reader(partition).changes_since(seq)

    def user_usage(self, partition: str, name: str) -> dict[str, Any] | None:
        """One user object (None when the user has no tracker)."""
        return self._reader(partition).user_usage(name)

    def users_usage_of(
        self, partition: str, names: Iterable[str]
    ) -> dict[str, dict[str, Any] | None]:
        """User objects of several users (None: no tracker), each read whole."""
        engine = self._reader(partition)
        return {name: engine.user_usage(name) for name in names}

    def groups_usage_of(
        self, partition: str, names: Iterable[str]
    ) -> dict[str, dict[str, Any] | None]:
        engine = self._reader(partition)
        return {name: engine.group_usage(name) for name in names}

    def group_usage(self, partition: str, name: str) -> dict[str, Any] | None:
        return self._reader(partition).group_usage(name)

    def headroom(
        self, partition: str, *, queue_path: str, user: str, groups: Sequence[str],
        application_id: str,
    ) -> UserHeadroom:
        """What the user may still add there (None for unlimited) and whether the application
        may run, changing nothing."""
        engine = self._reader(partition)
        return UserHeadroom(
            engine.headroom(queue_path, application_id, user, groups),
            engine.can_run_app(queue_path, application_id, user, groups),
        )

    def events(self, partition: str, *, after: int, limit: int) -> EventsPage:
        return self._slot(partition).events.after(after, limit=limit)

    def events_newest(self, partition: str, *, after: int, limit: int) -> NewestEvents:
        return self._slot(partition).events.newest(after, limit=limit)

    def live_allocation(self, partition: str, key: str) -> LiveAllocation | None:
        """The live allocation of ``key``, None when there is none."""
        return self._slot(partition).live.by_key.get(key)

    def active_since_ns(self, partition: str) -> int:
        """When the partition's engine was created in this process (nanoseconds)."""
        return self._slot(partition).active_since_ns

    def completed_applications(self, partition: str) -> int:
        return self._slot(partition).events.completed_applications()

    def completed_application_ids(self, partition: str) -> list[str]:
        return self._slot(partition).events.completed_application_ids()

    def application_life(self, partition: str, application_id: str) -> ApplicationLife | None:
        """The application's state changes (``app_states``): its current life, or its last
        completed one; None when neither is known."""
        return self._slot(partition).events.application(application_id)

    def live_count(self, partition: str) -> int:
        return len(self._slot(partition).live.by_key)

    def live_counts(self, partition: str) -> tuple[int, int]:
        """``(live allocations, applications with a live allocation)``, without the partition
        lock (each count is read whole; the two may be a change apart)."""
        live = self._slot(partition).live
        return len(live.by_key), len(live.by_application)

    def live_snapshot(
        self, partition: str, *, application_id: str | None = None
    ) -> LiveSnapshot:
        """The live allocations (every one, or one application's) as they stood at one moment,
        with the events kept up to that moment: copied under the partition's lock, which holds
        it only as long as the list takes; the events are read after it, and those numbered
        later are dropped.

        The lock is waited for at most ``SNAPSHOT_LOCK_SECONDS``: a release or a batch holds it
        across its ledger write, which a stalled database makes last as long as its bound.
        Past that the copy is made without it (copying a dict or a set is one step no other
        thread interleaves with), and may hold an allocation whose write is still under way,
        not yet in the events."""
        slot = self._slot(partition)
        locked = slot.lock.acquire(timeout=SNAPSHOT_LOCK_SECONDS)
        try:
            by_key = slot.live.by_key
            if application_id is None:
                allocations = list(by_key.values())
            else:
                keys = tuple(slot.live.by_application.get(application_id, ()))
                found = (by_key.get(key) for key in keys)
                allocations = [allocation for allocation in found if allocation is not None]
            last = slot.events.newest(0, limit=0).last
        finally:
            if locked:
                slot.lock.release()
        events = slot.events.after(0, limit=EVENTS_KEPT).events
        return LiveSnapshot(allocations, [event for event in events if event["seq"] <= last])
