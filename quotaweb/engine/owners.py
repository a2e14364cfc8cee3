"""Which partitions this process serves, when peers share them through leases on PostgreSQL
(``quotaweb.leases``; docs/design.md, "The engines and their owners").

On SQLite, and on PostgreSQL before a lease is taken, the gateway holds a slot for every
configured partition, as it always did. With leases (``Gateway.leased``) it holds slots only
for the partitions this peer owns: a slot arrives empty, is filled from the ledger, and only
then answers; it is dropped the moment its lease is lost or handed on. A request for a
configured partition held elsewhere raises ``NotOwner``, which names the owner (what a later
forwarding step needs) and is answered 503 with Retry-After meanwhile.

Each slot carries the epoch of its lease, and every ledger write of the slot runs inside
``fenced(epoch, version)``: the ledger puts that epoch in each statement and PostgreSQL refuses a
statement whose epoch is no longer the partition's (``quotaweb_fence``), or whose rows were
admitted under a configuration version that is no longer the active one
(``quotaweb_version_fence``). The epoch is the
slot's, fixed when the slot was made, so a group admitted by a slot that has since been
replaced can never borrow the new slot's epoch.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, Protocol, TypeVar

from quotaweb.postgresql.waits import remaining
from trackers.config.model import Partition

# The unit of ownership that is not a partition: every quota tree together.
UNIT_TREES = "quota-trees"
# How long a request waits for a partition this peer is rebuilding, when it has no budget of
# its own (``waits.remaining``): about the statement bound, like any wait of a write.
ARRIVAL_SECONDS = 2.0

ERR_NOT_LOADED = "the quota engines are still starting; try again in a moment"
ERR_PARTITION = "partition {partition!r} is not configured"
ERR_NOT_OWNER = (
    "partition {partition!r} is served by peer {owner!r} ({address}), not by this one; send "
    "the request there, or try again"
)
ERR_UNCONFIRMED = (
    "this peer could not renew its lease on partition {partition!r} in time (the database did "
    "not answer)"
)
ERR_MOVING = (
    "partition {partition!r} is moving between peers (its new owner has not taken it up yet); "
    "try again in a moment"
)


class EngineNotLoaded(RuntimeError):
    """No engine has been created in this process yet (the server is still starting)."""

    def __init__(self) -> None:
        super().__init__(ERR_NOT_LOADED)


class UnknownPartition(LookupError):
    """The partition is not part of the loaded configuration."""

    def __init__(self, name: str) -> None:
        super().__init__(ERR_PARTITION.format(partition=name))
        self.name = name


class NotOwner(EngineNotLoaded):
    """The partition is configured but this peer does not own it now: ``owner`` and
    ``address`` name the peer that does ("" while it is moving or its owner is unknown). A
    kind of ``EngineNotLoaded`` (its engine is not loaded here), so that pages and sockets
    that do not know about peers yet answer it as "starting" instead of failing; the API
    answers it as itself (503 ``not_owner``)."""

    def __init__(self, partition: str, owner: str = "", address: str = "") -> None:
        message = (ERR_NOT_OWNER.format(partition=partition, owner=owner, address=address)
                   if owner else ERR_MOVING.format(partition=partition))
        RuntimeError.__init__(self, message)
        self.partition, self.owner, self.address = partition, owner, address


# The response header of an answer "this peer does not serve that partition now; nothing was
# done": a peer that forwards requests (``core.forwarding``) looks for the owner again instead of
# relaying it.
NOT_OWNER_HEADER = "Quotaweb-Not-Owner"

# The SQLSTATE ``quotaweb_fence`` raises (leases.0001): a ledger write of an epoch that ended.
FENCE_SQLSTATE = "QWF01"
ERR_FENCED = (
    "this peer's lease on the partition ended before its write was stored; nothing was stored, "
    "try again"
)


# The SQLSTATE ``quotaweb_version_fence`` raises (leases.0002): a ledger write of rows admitted
# under a configuration version that is no longer the active one.
VERSION_SQLSTATE = "QWF02"
ERR_SUPERSEDED = (
    "a new configuration version was applied while this allocation was being admitted under the "
    "one before; nothing was stored, try again (it is judged by the new limits)"
)


def _sqlstate(exc: BaseException | None) -> str | None:
    while exc is not None:
        state: str | None = getattr(exc, "sqlstate", None)
        if state is not None:
            return state
        exc = exc.__cause__
    return None


def fence_refused(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or the driver's error it wraps) is the fence refusing a write."""
    return _sqlstate(exc) == FENCE_SQLSTATE


def version_superseded(exc: BaseException | None) -> bool:
    """Whether ``exc`` is the configuration's fence refusing rows of an older version."""
    return _sqlstate(exc) == VERSION_SQLSTATE


class LeaseUnconfirmed(NotOwner):
    """This peer holds the partition but its lease has not been renewed within its time (the
    database is slow or away, or the process was paused): no answer from an engine another
    peer may have taken over meanwhile. Answered as the database being away."""

    def __init__(self, partition: str) -> None:
        RuntimeError.__init__(self, ERR_UNCONFIRMED.format(partition=partition))
        self.partition, self.owner, self.address = partition, "", ""


_fence: ContextVar[tuple[int, int]] = ContextVar("quotaweb_fence", default=(0, 0))


def fence_epoch() -> int:
    """The lease epoch the ledger writes of this context carry (0: none held)."""
    return _fence.get()[0]


def fence_version() -> int:
    """The configuration version the rows stored in this context were admitted under (0: not
    told, never checked)."""
    return _fence.get()[1]


@contextmanager
def fenced(epoch: int, version: int | None = None) -> Iterator[None]:
    """Ledger writes in the block carry ``epoch`` (their slot's) and ``version`` (the engine's
    when it admitted their rows)."""
    token = _fence.set((epoch, version or 0))
    try:
        yield
    finally:
        _fence.reset(token)


class _Versioned(Protocol):
    version: int | None


class OwnedSlot(Protocol):
    """What ownership uses of a partition's slot (``gateway.PartitionSlot``)."""

    epoch: int
    fresh_until: float
    arrived: threading.Event

    @property
    def engine(self) -> _Versioned: ...


_Slot = TypeVar("_Slot", bound=OwnedSlot)


class LeasedSlots(Generic[_Slot]):
    """The gateway's slots as ownership sees them, mixed into ``Gateway``, which provides the
    slots, the configured partitions and ``_slot_new``. Slots are added and dropped under the
    switch lock, by replacing the whole mapping, so a configuration switch never loses one."""

    _slots: dict[str, _Slot]
    _configs: dict[str, Partition]
    _switch_lock: threading.Lock
    # Set (and replaced) at each switch: what a write refused for an older version waits on.
    _switched: threading.Event
    _elsewhere: dict[str, tuple[str, str]]
    _version: int | None
    leased: bool
    peer_name: str
    # Set by the peer's rounds (``core.peers``): wake the follower of the active version at
    # once; wait (within a bound) until every owner runs a version.
    on_behind: Callable[[], None] | None = None
    on_applied: Callable[[int], None] | None = None

    def _slot_new(self, partition: str, *, epoch: int, fresh_until: float) -> _Slot:
        raise NotImplementedError

    def partitions(self) -> list[str]:
        """The partitions this process serves, in configuration order (with leases, the ones
        it owns and has filled)."""
        slots = self._slots
        return [name for name in self._configs
                if (slot := slots.get(name)) is not None and slot.arrived.is_set()]

    def configured(self) -> list[str]:
        """Every partition of the loaded configuration, served here or not."""
        return list(self._configs)

    @property
    def config_version(self) -> int | None:
        return self._version

    def _slot_unserved(
        self, partition: str, slot: _Slot | None, *, writing: bool = False
    ) -> _Slot:
        """A partition this process does not serve right now (for a change when
        ``writing``): waited for (within the caller's bound) while it is being filled, else
        ``LeaseUnconfirmed``, ``NotOwner`` or ``UnknownPartition``."""
        if slot is not None and not slot.arrived.is_set():
            wait = remaining()
            slot.arrived.wait(ARRIVAL_SECONDS if wait is None else wait)
            if slot.arrived.is_set() and self._slots.get(partition) is slot:
                if writing and slot.fresh_until <= time.monotonic():
                    raise LeaseUnconfirmed(partition)
                return slot
            raise NotOwner(partition)
        if slot is not None:
            if not writing:
                return slot
            raise LeaseUnconfirmed(partition)
        if self.leased and partition in self._configs:
            raise NotOwner(partition, *self._elsewhere.get(partition, ("", "")))
        raise UnknownPartition(partition)

    # -- the configuration version across peers ------------------------------------------------

    @contextmanager
    def _following(self) -> Iterator[None]:
        """A ledger write refused because a newer version is active wakes the follower, so
        that this peer switches now rather than at its next round."""
        try:
            yield
        except Exception as error:
            if version_superseded(error) and self.on_behind is not None:
                self.on_behind()
            raise

    def _judged_under(self, slot: _Slot) -> int | None:
        """The version ``slot``'s admissions are stored under, for the fence: peers only (a
        process without leases follows no version applied elsewhere)."""
        return slot.engine.version if self.leased else None

    def _judged_again(self, error: BaseException | None, version: int | None) -> bool:
        """Whether work that failed with ``error`` is to run once more: refused for an older
        configuration version than the one this process has switched to since (or does
        within the caller's bound)."""
        return version_superseded(error) and self._switched_from(version)

    def _switched_from(self, version: int | None) -> bool:
        """Wait (within the caller's bound, else ``ARRIVAL_SECONDS``) until this process runs
        a configuration version other than ``version``: whether it does."""
        wait = remaining()
        ends = time.monotonic() + (ARRIVAL_SECONDS if wait is None else wait)
        while True:
            switched = self._switched
            if self._version != version:
                return True
            left = ends - time.monotonic()
            if left <= 0 or not switched.wait(left):
                return self._version != version

    def version_everywhere(self, version: int) -> None:
        """After this process applied ``version``: wait (within a bound) until every peer that
        owns a unit runs it too. At once without peers (SQLite, tools)."""
        if self.on_applied is not None:
            self.on_applied(version)

    # -- ownership with leases (``quotaweb.engine.owners``) ---------------------------------------

    def owned(self) -> dict[str, int]:
        """{partition: lease epoch} of every slot held, being filled or not."""
        return {name: slot.epoch for name, slot in self._slots.items()}

    def where(self, unit: str) -> tuple[str, str] | None:
        """Where ``unit`` is served: ``("", "")`` here (its slot held, filled or being
        filled), the owner's ``(name, address)`` as last noted, or None (moving, or never
        noted). The quota trees' unit is never held in a slot: only noted when elsewhere."""
        if unit in self._slots:
            return "", ""
        return self._elsewhere.get(unit)

    def owner_name(self, unit: str) -> str | None:
        """The name of the peer that serves ``unit`` now (``peer_name`` when it is this one),
        or None while it moves."""
        where = self.where(unit)
        return None if where is None else where[0] or self.peer_name

    def owners_note(self, elsewhere: dict[str, tuple[str, str]]) -> None:
        """Who owns the partitions not held here: {partition: (peer name, address)}."""
        self._elsewhere = elsewhere

    def slot_arrive(self, partition: str, *, epoch: int, fresh_until: float) -> None:
        """Hold an empty slot for a partition whose lease was just taken at ``epoch``: requests
        for it wait (``_slot_unserved``) until ``slot_ready``, after the ledger is restored."""
        with self._switch_lock:
            if partition not in self._configs:
                raise UnknownPartition(partition)
            slot = self._slot_new(partition, epoch=epoch, fresh_until=fresh_until)
            self._slots = {**self._slots, partition: slot}

    def slot_ready(self, partition: str) -> None:
        """The slot is filled: it serves (unless it was dropped meanwhile)."""
        slot = self._slots.get(partition)
        if slot is not None:
            slot.arrived.set()

    def slot_drop(self, partition: str) -> _Slot | None:
        """Stop serving ``partition`` at once (its lease is lost or being handed on): requests
        that come now get ``NotOwner``; ones already in its slot finish, and their writes are
        refused by the fence if the lease has moved on. The slot dropped, if any."""
        with self._switch_lock:
            slots = dict(self._slots)
            slot = slots.pop(partition, None)
            self._slots = slots
        if slot is not None:
            slot.fresh_until = -math.inf
            slot.arrived.set()
        return slot

    def leases_fresh(self, epochs: Mapping[str, int], *, until: float) -> None:
        """The leases of ``epochs`` were renewed: their slots serve until ``until``."""
        for name, slot in self._slots.items():
            if epochs.get(name) == slot.epoch:
                slot.fresh_until = until

    def _held(self, partition: str) -> _Slot:
        """The slot held for ``partition``, filled or being filled (the restore's)."""
        slot = self._slots.get(partition)
        return slot if slot is not None else self._slot_unserved(partition, None)
