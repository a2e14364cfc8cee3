"""Each application's state changes, as YuniKorn's web UI shows them (``stateLog``).

quotaweb has no application objects of its own: an application is what has live allocations
(``live.LiveSet``). Its life is told by the committed allocations and releases that the event log
(``live.EventLog``) records, in the order and at the times they were recorded:

- its first allocation made durable: ``Accepted`` and ``Running``, both at that commit (quotaweb
  sees no request before the allocation, so the two happen together);
- the release of its last live allocation: ``Completed`` at that commit. The completed life is
  kept (the newest ``COMPLETED_KEPT`` per partition) so the application can still be read;
- an allocation after that starts a new life, as a new application with the same id.

Held in memory beside the live allocations. After a restart, each application restored from the
ledger starts again from its oldest stored allocation's ``created`` (the earliest time quotaweb
can vouch for: allocations released before it left no row); completed lives are not stored and
are gone after a restart.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import NamedTuple, Protocol

ACCEPTED = "Accepted"
RUNNING = "Running"
COMPLETED = "Completed"
COMPLETED_KEPT = 1000


class _Allocation(Protocol):
    @property
    def application_id(self) -> str: ...
    @property
    def queue_path(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def groups(self) -> tuple[str, ...]: ...


class ApplicationLife(NamedTuple):
    """One life of an application, as read: where and for whom it started, and its states
    ``(state, nanoseconds since the epoch)``, oldest first."""

    application_id: str
    queue_path: str
    user: str
    groups: tuple[str, ...]
    states: tuple[tuple[str, int], ...]

    @property
    def state(self) -> str:
        return self.states[-1][0]


class _Life:
    __slots__ = ("application_id", "groups", "queue_path", "states", "user")

    def __init__(self, allocation: _Allocation, at_ns: int) -> None:
        self.application_id = allocation.application_id
        self.queue_path = allocation.queue_path
        self.user = allocation.user
        self.groups = tuple(allocation.groups)
        self.states = [(ACCEPTED, at_ns), (RUNNING, at_ns)]

    def read(self) -> ApplicationLife:
        return ApplicationLife(
            self.application_id, self.queue_path, self.user, self.groups, tuple(self.states)
        )


class ApplicationStates:
    """The lives of one partition's applications. Not thread-safe on its own: the event log
    calls it under its lock, and ``live`` (the partition's live allocations) is read at a
    release to tell whether it was the application's last."""

    def __init__(self, live_applications: Mapping[str, object],
                 keep: int = COMPLETED_KEPT) -> None:
        self._live = live_applications
        self._keep = keep
        self._running: dict[str, _Life] = {}
        self._completed: OrderedDict[str, _Life] = OrderedDict()

    def allocated(self, allocation: _Allocation, at_ns: int) -> None:
        application = allocation.application_id
        if application not in self._running:
            self._completed.pop(application, None)
            self._running[application] = _Life(allocation, at_ns)

    def released(self, allocation: _Allocation, at_ns: int) -> None:
        application = allocation.application_id
        if application in self._live:
            return
        life = self._running.pop(application, None)
        if life is None:
            return
        life.states.append((COMPLETED, at_ns))
        self._completed[application] = life
        while len(self._completed) > self._keep:
            self._completed.popitem(last=False)

    def restored(self, allocation: _Allocation, at_ns: int) -> None:
        """An application put back from the ledger at start-up; ``at_ns`` its oldest stored
        allocation's time (the earliest wins when called once per allocation)."""
        life = self._running.get(allocation.application_id)
        if life is None:
            self._running[allocation.application_id] = _Life(allocation, at_ns)
        elif at_ns < life.states[0][1]:
            life.states = [(state, at_ns) for state, _ in life.states]

    def completed(self) -> int:
        """How many completed lives are kept."""
        return len(self._completed)

    def completed_ids(self) -> list[str]:
        """The applications of the completed lives kept, the oldest completion first."""
        return list(self._completed)

    def life(self, application_id: str) -> ApplicationLife | None:
        """The application's current life (running) or its last completed one; None if
        neither is known."""
        life = self._running.get(application_id) or self._completed.get(application_id)
        return None if life is None else life.read()
