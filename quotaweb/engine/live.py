"""What the engine owner keeps beside each engine: the live allocations and the recent events.

The engine itself knows usage per user, group and queue, not which allocation made it; releasing
an allocation by its key, making retries idempotent and telling when an application's last
allocation goes all need the allocations themselves. They live here, in memory, next to the
engine and under the same lock; the database ledger (``quotaweb.allocations``) is their durable
copy, written before an allocation is acknowledged.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from quotaweb.engine.app_states import ApplicationLife, ApplicationStates

EVENTS_KEPT = 10_000


class EventsPage(NamedTuple):
    """Events numbered above the one asked for, ``last`` the last number given out, ``oldest``
    the oldest number still kept (a reader behind that has missed events)."""

    events: list[dict[str, Any]]
    last: int
    oldest: int


class NewestEvents(NamedTuple):
    """The newest events above the one asked for, ``last`` the last number given out."""

    events: list[dict[str, Any]]
    last: int


# Makes a named tuple from all its fields, without the Python-level constructor that fills in
# defaults: a third of the cost, for the objects a batch makes per operation.
named_tuple = tuple.__new__


class LiveAllocation(NamedTuple):
    """One accepted allocation. ``group`` is the group its application counts against.

    A named tuple: every allocate makes two (the request, then the one with its group), and a
    frozen dataclass costs five times as much to make, a tenth of a batch's time."""

    key: str
    application_id: str
    queue_path: str
    user: str
    groups: tuple[str, ...]
    resource: Mapping[str, int]
    group: str | None = None
    # As the scheduler sent it (YuniKorn's int32 priority); 0 when it sent none. Shown, never
    # used for admission.
    priority: int = 0
    # The node the scheduler placed it on, as it sent it ("" when it named none). Shown in the
    # YuniKorn reads (the allocation's ``nodeId``, the node's allocations), never used for
    # admission.
    node_id: str = ""

    def with_group(self, group: str | None) -> LiveAllocation:
        if group == self.group:
            return self
        return named_tuple(LiveAllocation, (*self[:6], group, *self[7:]))

    def same_request(self, other: LiveAllocation) -> bool:
        """Whether ``other`` asks for exactly this allocation (a retry, not a new request)."""
        return (
            self.application_id == other.application_id
            and self.queue_path.lower() == other.queue_path.lower()
            and self.user == other.user
            and tuple(self.groups) == tuple(other.groups)
            and self.priority == other.priority
            and self.node_id == other.node_id
            and {k: v for k, v in self.resource.items() if v}
            == {k: v for k, v in other.resource.items() if v}
        )


@dataclass
class LiveSet:
    """The live allocations of one partition: by key, and the keys of each application."""

    by_key: dict[str, LiveAllocation] = field(default_factory=dict)
    by_application: dict[str, set[str]] = field(default_factory=dict)

    def add(self, allocation: LiveAllocation) -> None:
        self.by_key[allocation.key] = allocation
        keys = self.by_application.get(allocation.application_id)
        if keys is None:
            self.by_application[allocation.application_id] = {allocation.key}
        else:
            keys.add(allocation.key)

    def remove(self, key: str) -> LiveAllocation:
        allocation = self.by_key.pop(key)
        keys = self.by_application[allocation.application_id]
        keys.discard(key)
        if not keys:
            del self.by_application[allocation.application_id]
        return allocation

    def is_last_of_application(self, allocation: LiveAllocation) -> bool:
        return self.by_application.get(allocation.application_id) == {allocation.key}


# One kept event: (seq, kind, time, allocation, extra). A plain tuple: a batch adds a thousand
# at a time under the partition lock, and a tuple is the cheapest thing to make.
_Event = tuple[int, str, float, LiveAllocation, dict[str, Any]]


# Where denials go besides the feed: the history's background writer, which the engine owner
# sets (``allocations.history``). Called under the event log's lock: it must only enqueue.
DenialSink = Callable[[str, LiveAllocation, str, float], None]
_denial_sink: list[DenialSink] = []


def denials_to(sink: DenialSink | None) -> None:
    """Send every denial from now on to ``sink`` as ``(partition, allocation, reason, time)``
    (None: to none)."""
    _denial_sink[:] = [sink] if sink is not None else []


class EventLog:
    """The recent allocated, released and denied events of one partition, numbered from 1.

    Bounded: the activity feed shows what happens now; the ledger, not this, is the record.
    Kept as tuples and turned into dicts when read: a batch adds a thousand at a time.
    """

    def __init__(
        self, keep: int = EVENTS_KEPT, *, live: LiveSet | None = None, partition: str = ""
    ) -> None:
        self.partition = partition
        self._events: deque[_Event] = deque(maxlen=keep)
        self._seq = 0
        self._lock = threading.Lock()
        # Every committed allocation and release passes through here, in order, so each
        # application's state changes are noted here too (``app_states``), under this lock.
        self._applications = ApplicationStates((live or LiveSet()).by_application)

    def add(self, kind: str, allocation: LiveAllocation, **extra: Any) -> None:
        at_ns = time.time_ns()
        with self._lock:
            self._seq += 1
            self._events.append((self._seq, kind, at_ns / 1e9, allocation, extra))
            self._note(kind, allocation, at_ns, extra)

    def extend(self, happened: Iterable[tuple[str, LiveAllocation, dict[str, Any]]]) -> None:
        """``add`` for each ``(kind, allocation, extra)``, under one lock and one time: a
        batch's events happened at its one commit."""
        at_ns = time.time_ns()
        at = at_ns / 1e9
        with self._lock:
            seq = self._seq
            append = self._events.append
            note = self._note
            for kind, allocation, extra in happened:
                seq += 1
                append((seq, kind, at, allocation, extra))
                note(kind, allocation, at_ns, extra)
            self._seq = seq

    def _note(self, kind: str, allocation: LiveAllocation, at_ns: int,
              extra: dict[str, Any]) -> None:
        if kind == "allocated":
            self._applications.allocated(allocation, at_ns)
        elif kind == "released":
            self._applications.released(allocation, at_ns)
        elif _denial_sink:
            _denial_sink[0](self.partition, allocation, extra.get("reason", ""), at_ns / 1e9)

    def restored(self, allocation: LiveAllocation, at_ns: int) -> None:
        """An allocation put back from the ledger at start-up, stored at ``at_ns``."""
        with self._lock:
            self._applications.restored(allocation, at_ns)

    def completed_applications(self) -> int:
        """How many completed applications are kept (``app_states.COMPLETED_KEPT`` at most)."""
        with self._lock:
            return self._applications.completed()

    def completed_application_ids(self) -> list[str]:
        """The completed applications kept, the oldest completion first."""
        with self._lock:
            return self._applications.completed_ids()

    def application(self, application_id: str) -> ApplicationLife | None:
        """The application's current or last completed life (``app_states``)."""
        with self._lock:
            return self._applications.life(application_id)

    def after(self, seq: int, *, limit: int) -> EventsPage:
        """Up to ``limit`` events numbered above ``seq``, the last number given out, and the
        oldest number still kept (a caller behind that has missed events)."""
        with self._lock:
            oldest = self._events[0][0] if self._events else self._seq + 1
            skip = max(0, seq - oldest + 1)
            chosen = [event for index, event in enumerate(self._events) if index >= skip][:limit]
            last = self._seq
        return EventsPage([_event_dict(*event) for event in chosen], last, oldest)

    def newest(self, seq: int, *, limit: int) -> NewestEvents:
        """The newest ``limit`` events numbered above ``seq`` (older ones skipped), and the last
        number given out."""
        with self._lock:
            last = self._seq
            count = min(limit, last - seq, len(self._events))
            chosen = list(self._events)[-count:] if count > 0 else []
        return NewestEvents([_event_dict(*event) for event in chosen], last)


def _event_dict(
    seq: int, kind: str, at: float, allocation: LiveAllocation, extra: dict[str, Any]
) -> dict[str, Any]:
    return {
        "seq": seq,
        "type": kind,
        "time": at,
        "allocationKey": allocation.key,
        "applicationId": allocation.application_id,
        "queuePath": allocation.queue_path,
        "user": allocation.user,
        "group": allocation.group,
        "resource": dict(allocation.resource),
        **extra,
    }
