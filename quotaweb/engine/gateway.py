"""One ``trackers.Engine`` per partition, owned by this process, behind one lock per partition.

Engines are created explicitly by the process that serves requests (``engines_load``), never at
import time or in ``AppConfig.ready()``: an import-time singleton would be copied into forked
processes and shared between tests. Exactly one process may own a partition's engine: on
PostgreSQL, peers share the partitions by lease, and each holds slots only for its own
(``engine.owners``).

The engine is thread-safe on its own; the per-partition lock keeps multi-step gateway work (an
allocation's admission, a release's or a batch's engine changes and ledger write) in one piece.
Single allocations share their commits (``quotaweb.engine.commits``): the lock covers only the
admission, and the admitted rows are written in groups outside it.

Lock order
----------
Every lock of the engine owner, in the one order any path takes them (a thread holding one lock
may wait only for locks further down this list, never for one above it):

0. a **database connection** from the pool: a request thread holds one from its first query
   until it ends, so it may well hold one while it waits for a lock below. A thread therefore
   takes its connection before a partition lock (the allocation services do), and never waits
   for the pool while it holds one of these locks;
1. the **switch lock** (``Gateway._switch_lock``): one configuration switch at a time;
2. a **partition lock** (``PartitionSlot.lock``), a partition's **elastic write lock**
   (``ElasticState.write_lock``, held by a change of elastic settings or demand) or the
   **quota-tree lock** (``quotaweb.engine.quotatrees``, held by every quota tree change), one
   at a time: nobody holds two;
3. a **database transaction**. On SQLite, ``BEGIN IMMEDIATE`` takes the database's one write
   lock; on PostgreSQL, the rows it writes (the active-version row, a draft row taken with
   ``select_for_update``) are locked until it ends;
4. a partition's **elastic computation lock** (``ElasticState.lock``): it takes only the
   engine's lock below;
5. leaf locks that guard one structure and call out to nothing: the engine's own lock, the
   quota tree manager's, the event log's, the metrics registry's, a partition's group-commit
   lock (``commits.Commits``), the collector's pause count (``trackers.gcpause``).

A single allocation takes its partition lock only to admit (2 then 5: the engine, then its
group), releases it, and then leads its group's write or waits for the write under way to
finish; the write holds no partition lock (0 then 3). A leader whose write failed takes the
partition lock to undo its group after the transaction has ended (0 then 2). Waiting for
another thread's group write is never done while holding a partition lock: a release or a batch
(``Gateway._settled``) takes the lock, writes the open group itself (2 then 3, as its own write),
and if another group is being written lets the lock go and waits before taking it again. An
allocation on the event loop (``Gateway.allocate_on_loop``) only ever tries the partition lock,
never across an await, and undoes a failed group in a thread when the lock is held; nothing on
the loop's thread waits for a partition lock, so the loop never blocks on one.

Every wait is bounded (``quotaweb.postgresql.waits``). A ledger write gives up after the
statement bound (``statement_timeout`` on the server, and on the client for a server that answers
nothing), and is then undone exactly; a write cut off without knowing whether it committed is *in
doubt* and settled by the partition's next write (``quotaweb.allocations.doubts``). A writer waits
for a partition lock no longer than what its bound leaves (``PartitionBusy``, a 503); so does a
release or a batch waiting for a group write under way (``_settled``). A single allocation waits
for its group's outcome without a bound of its own (answering before it would acknowledge a row
that may still commit, or refuse one that may): a group's write is given up on when the earliest
budget of its callers ends (``Group.due``, ``waits.until``), so the write under way ends within
the budget of callers admitted before this one, and its own group's within its own. While a
partition has writes in doubt, a group's write takes the partition lock for its settling (2 then
3, as a release's). Reads take no partition lock (the engine's own lock keeps each whole), except
``live_snapshot``, which tries it for ``SNAPSHOT_LOCK_SECONDS``: /healthz, /metrics and the
YuniKorn reads answer while a write waits for the database.

So a release or a batch holds its partition lock and then writes the ledger (2 then 3), and a
configuration change takes the switch lock, compiles the new limits (no lock), stores the
version in a transaction and commits it (1 then 3), and only then takes each partition lock in
turn to install the compiled limits, a few assignments (1 then 2), and rebuilds the elastic
tree of each partition (1 then 4). Elastic runtimes are handed to the engine whole (4 then 5):
an allocation never waits for their computation, only for the assignment. The reverse, a transaction
waiting for a partition lock, was a deadlock on SQLite: the allocation holding the partition lock
waited for the write lock the apply held, until SQLite's busy timeout gave up. Readers of the
engines that also write (the usage sampler) read the engines first and open their transaction
after. The same order bounds every wait: an allocation waits on an apply for one install and for
at most two group writes (the one under way, then its own), and an apply waits for one release's
(or batch's) ledger commit per partition.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from quotaweb.engine.commits import Commits, Group, LoopSides, Sides
from quotaweb.engine.elastic import ElasticState
from quotaweb.engine.live import (
    EventLog,
    LiveAllocation,
    LiveSet,
    named_tuple,
)
from quotaweb.engine.outcomes import (
    STREAMED_ROWS,
    Admission,
    AllocationNotFound,
    ApplicationNotFound,
    BatchResult,
    KeyConflict,
    LedgerSend,
    LedgerStream,
    LedgerWrite,
    LoopLedgerWrite,
    Operation,
    PartitionBusy,
    Step,
    ThreadLedgerWrite,
)
from quotaweb.engine.owners import ERR_NOT_LOADED as ERR_NOT_LOADED
from quotaweb.engine.owners import ERR_PARTITION as ERR_PARTITION
from quotaweb.engine.owners import EngineNotLoaded as EngineNotLoaded
from quotaweb.engine.owners import LeasedSlots, fenced
from quotaweb.engine.owners import UnknownPartition as UnknownPartition
from quotaweb.engine.quotatrees import trees_reset
from quotaweb.engine.reads import EngineReads
from quotaweb.postgresql.waits import due, remaining, until
from trackers import Engine, InvalidRequest, NotTracked, compile_config, parse_config
from trackers.config.model import Config, Partition
from trackers.gcpause import paused_gc
from trackers.ugm import CompiledConfig


def _arrived() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


@dataclass
class PartitionSlot:
    engine: Engine
    lock: threading.RLock = field(default_factory=threading.RLock)
    # Admitted allocations on their way to the ledger (``quotaweb.engine.commits``).
    commits: Commits[LiveAllocation] = field(default_factory=Commits)
    live: LiveSet = field(default_factory=LiveSet)
    events: EventLog = field(init=False)
    elastic: ElasticState = field(init=False)
    # When the partition became active here (nanoseconds): YuniKorn's state transition time.
    active_since_ns: int = field(default_factory=time.time_ns)
    # With leases (``quotaweb.engine.owners``): the lease epoch every ledger write of this slot
    # carries; until when (``time.monotonic``) the lease is known to hold; set once the slot
    # has been filled from the ledger. Without: 0, forever, at once.
    epoch: int = 0
    fresh_until: float = math.inf
    arrived: threading.Event = field(default_factory=_arrived)

    def __post_init__(self) -> None:
        # The event log tells an application's last release by the live allocations.
        self.events = EventLog(live=self.live, partition=self.engine.partition)
        self.elastic = ElasticState(self.engine, epoch=self.epoch)


_NO_EXTRA: dict[str, Any] = {}


def _batch_events(
    results: list[BatchResult],
) -> Iterator[tuple[str, LiveAllocation, dict[str, Any]]]:
    """The events of a stored batch, in order: what ``EventLog.add`` is given one at a time."""
    for result in results:
        if type(result) is Admission:
            if not result.allowed:
                yield "denied", result.allocation, {
                    "reason": result.reason, "message": result.message,
                }
            elif not result.replayed:
                yield "allocated", result.allocation, _NO_EXTRA
        elif type(result) is LiveAllocation:
            yield "released", result, _NO_EXTRA


async def _written_elsewhere(rows: list[LiveAllocation], at: float | None) -> None:
    raise AssertionError("a drained ledger's groups are written by its own thread")


class Gateway(LeasedSlots[PartitionSlot], EngineReads):
    """The engines of every configured partition, in configuration order."""

    def __init__(
        self, slots: dict[str, PartitionSlot], *, config: Config | None = None,
        version: int | None = None, leased: bool = False,
    ) -> None:
        self._slots = slots
        # Every configured partition (in order), owned here or not, and the version they are on.
        self._configs: dict[str, Partition] = (
            {p.name: p for p in config.partitions} if config is not None
            else {name: slot.engine.config for name, slot in slots.items()}
        )
        self._version = version
        # With leases, slots only for the partitions this peer owns (``quotaweb.engine.owners``)
        # and, for the others, who owns them: {partition: (peer name, address)}.
        self.leased = leased
        self._elsewhere: dict[str, tuple[str, str]] = {}
        # This peer's name in the lease table ("" without leases): ``owner_name``.
        self.peer_name = ""
        # One whole-document switch at a time; per-partition work still runs under slot locks.
        self._switch_lock = threading.Lock()
        self._switched = threading.Event()
        # When these engines were created (start-up), in nanoseconds since the epoch.
        self.started_ns = time.time_ns()

    @classmethod
    def from_config(
        cls, config: Config, *, version: int | None = None, leased: bool = False
    ) -> Gateway:
        """Every partition's engine; with ``leased``, none yet: each comes with its lease."""
        slots = {} if leased else {
            partition.name: PartitionSlot(engine=Engine(partition, version=version))
            for partition in config.partitions
        }
        return cls(slots, config=config, version=version, leased=leased)

    def _slot(self, partition: str) -> PartitionSlot:
        """The partition's slot for a read: served here and filled. A slot whose lease is not
        confirmed still answers reads, as a process whose database is away does."""
        slot = self._slots.get(partition)
        if slot is not None and slot.arrived.is_set():
            return slot
        return self._slot_unserved(partition, slot)

    def _writable(self, partition: str) -> PartitionSlot:
        """The partition's slot for a change: served here, filled, and its lease confirmed
        within its time (``LeaseUnconfirmed`` otherwise)."""
        slot = self._slots.get(partition)
        if slot is not None and slot.arrived.is_set() and slot.fresh_until > time.monotonic():
            return slot
        return self._slot_unserved(partition, slot, writing=True)

    def _slot_new(self, partition: str, *, epoch: int, fresh_until: float) -> PartitionSlot:
        return PartitionSlot(
            engine=Engine(self._configs[partition], version=self._version), epoch=epoch,
            fresh_until=fresh_until, arrived=threading.Event(),
        )

    @staticmethod
    def _acquire(slot: PartitionSlot, partition: str) -> None:
        """The partition's lock for a write, waited for no longer than the write's database
        bound leaves (``quotaweb.postgresql.waits.remaining``): ``PartitionBusy`` past it."""
        wait = remaining()
        if not slot.lock.acquire(timeout=-1 if wait is None else wait):
            raise PartitionBusy(partition)

    @contextmanager
    def _holding(self, slot: PartitionSlot, partition: str) -> Iterator[None]:
        self._acquire(slot, partition)
        try:
            yield
        finally:
            slot.lock.release()

    @contextmanager
    def settling(self, partition: str) -> Iterator[set[str]]:
        """The partition's lock (bounded like a write's) for settling writes in doubt
        (``quotaweb.allocations.doubts``), with the keys admitted but not yet durable: no
        admission interleaves, and those keys are stored by their own group's write."""
        slot = self._writable(partition)
        with self._holding(slot, partition):
            yield slot.commits.unsettled()

    @contextmanager
    def engine(self, partition: str) -> Iterator[Engine]:
        """Hold the partition's lock and hand out its engine for the length of the block."""
        slot = self._slot(partition)
        with slot.lock:
            yield slot.engine

    def version(self, partition: str) -> int | None:
        return self._slot(partition).engine.version

    def switch_config(self, config: Config, *, commit: Callable[[], int]) -> int:
        """Switch every partition to ``config`` around the caller's ``commit``; its version.

        In the lock order (module docstring): under the switch lock, compile every partition's
        limits first (no other lock: it may take long or fail, and allocations go on), then run
        ``commit``, the caller's database transaction that stores the version and answers its
        number, and only once it has committed install the compiled limits, one partition lock
        at a time. An error in compiling or in ``commit`` leaves every engine as it was; the
        install itself cannot fail. Existing partitions get the new limits (usage and running
        apps stay), new partitions a fresh engine, partitions no longer in the document are
        dropped. An engine already on the version is left alone.
        """
        with self._switch_lock:
            # A partition's queues that did not change keep what was compiled for them.
            compiled = {
                p.name: compile_config(p, previous=self._compiled(p.name))
                for p in config.partitions
            }
            version = commit()
            previous = self._slots
            slots: dict[str, PartitionSlot] = {}
            for name, limits in compiled.items():
                slot = previous.get(name)
                if slot is None:
                    if self.leased:
                        # A new partition is a new unit: whoever takes its lease builds it.
                        continue
                    slot = PartitionSlot(engine=Engine(limits, version=version))
                elif slot.engine.version != version:
                    with slot.lock:
                        slot.engine.install_config(limits, version=version)
                    slot.elastic.configure(limits.partition)
                slots[name] = slot
            self._slots = slots
            self._configs = {p.name: p for p in config.partitions}
            self._version = version
            switched, self._switched = self._switched, threading.Event()
        switched.set()
        return version

    def _compiled(self, partition: str) -> CompiledConfig | None:
        slot = self._slots.get(partition)
        return slot.engine.compiled() if slot is not None else None

    def elastic(self, partition: str) -> ElasticState:
        """The partition's elastic quota (``quotaweb.engine.elastic``)."""
        return self._held(partition).elastic

    def elastic_enabled(self, partition: str) -> bool:
        slot = self._slots.get(partition)
        return slot is not None and slot.elastic.enabled

    # -- allocations: admitted under the partition lock, their rows committed in groups ------------

    def allocate(
        self, partition: str, request: LiveAllocation, *, write: LedgerWrite
    ) -> Admission:
        """Admit and apply ``request`` under the partition's lock, then see its row committed
        with the others admitted meanwhile (``quotaweb.engine.commits``), and only then answer.

        A retry of a live key with the same request answers it again without counting twice
        (once its row is durable); with another request it is a ``KeyConflict``. If the group's
        write fails, its admissions are undone in the engine and the database's error is raised
        to each of them: nothing is acknowledged that is not stored; one refused for an older
        configuration version is admitted once more, by the new limits (``_judged_again``).
        """
        outcome, group = self._admit(partition, request, write)
        if group is not None and self._judged_again(group.error, group.tag):
            outcome, group = self._admit(partition, request, write)
        if group is not None and group.error is not None:
            raise group.error
        return outcome

    def _admit(
        self, partition: str, request: LiveAllocation, write: LedgerWrite
    ) -> tuple[Admission, Group[LiveAllocation] | None]:
        """``allocate``'s admission and its group's write (None: nothing written)."""
        slot = self._writable(partition)
        commits = slot.commits
        while True:
            with self._holding(slot, partition):
                pending = commits.pending(request.key)
                if pending is None:
                    outcome = self._allocate(slot, request)
                    if not outcome.allowed or outcome.replayed:
                        self._log(slot, outcome)
                        return outcome, None
                    group = commits.add(request.key, outcome.allocation, due=due(),
                                        tag=self._judged_under(slot))
                    break
            # A retry of an allocation whose row is not durable yet: answered once it is (or
            # admitted afresh if its write failed).
            slot.commits.see_through(pending, self._sides(slot, write))
        slot.commits.see_through(group, self._sides(slot, write))
        return outcome, group

    def _sides(self, slot: PartitionSlot, write: LedgerWrite) -> Sides[LiveAllocation]:
        """How this thread writes a group of ``slot`` it leads, and undoes it on failure."""

        def undo(rows: list[LiveAllocation]) -> None:
            with slot.lock:
                self._undo(slot, [Step("allocate", allocation) for allocation in rows])

        def write_group(rows: list[LiveAllocation], at: float | None) -> None:
            with until(at), fenced(slot.epoch, slot.commits.writing_tag()), self._following():
                write(rows, [])

        return Sides(write_group, undo, partial(self._committed, slot))

    @staticmethod
    def _committed(slot: PartitionSlot, rows: list[LiveAllocation]) -> None:
        slot.events.extend(("allocated", allocation, _NO_EXTRA) for allocation in rows)

    async def allocate_on_loop(
        self, partition: str, request: LiveAllocation, *,
        write: LoopLedgerWrite | ThreadLedgerWrite,
    ) -> Admission | None:
        """``allocate`` for a caller on an event loop, whose group's write (when it leads one)
        is awaited there: the same discipline without a hop to a thread and back.

        The partition's lock is only tried, never waited for: None when it is held (by a
        batch, a release, an apply, a thread's admission) or when the key's row is still being
        written, and the caller takes ``allocate`` in a thread instead, which may wait. The
        lock covers only the admission; the commit is awaited outside it. The groups are
        written by a task of their own (``Commits.outcome_on_loop``) that a cancelled caller
        does not stop: a write cut off midway could commit after its undo, and the group's
        other rows need it written.
        """
        slot = self._slots.get(partition)
        if slot is None or not slot.arrived.is_set() or slot.fresh_until <= time.monotonic():
            # Not served here, or being filled: a thread answers (it may wait for the filling).
            return None
        if not slot.lock.acquire(blocking=False):
            return None
        try:
            if slot.commits.pending(request.key) is not None:
                return None
            outcome = self._allocate(slot, request)
            if not outcome.allowed or outcome.replayed:
                self._log(slot, outcome)
                return outcome
            group = slot.commits.add(request.key, outcome.allocation, due=due(),
                                     tag=self._judged_under(slot))
        finally:
            slot.lock.release()
        await slot.commits.outcome_on_loop(group, self._loop_sides(slot, write))
        if group.error is not None:
            raise group.error
        return outcome

    def _loop_sides(
        self, slot: PartitionSlot, write: LoopLedgerWrite | ThreadLedgerWrite
    ) -> LoopSides[LiveAllocation]:
        """How the loop's groups of ``slot`` are written: awaited on the loop, or handed whole
        to the ledger's own thread (``ThreadLedgerWrite``)."""
        undo, committed = partial(self._undo_on_loop, slot), partial(self._committed, slot)
        if isinstance(write, ThreadLedgerWrite):
            drain = partial(slot.commits.drain, self._sides(slot, write.write))
            return LoopSides(_written_elsewhere, undo, committed, partial(write.run, drain))

        async def write_group(rows: list[LiveAllocation], at: float | None) -> None:
            with until(at), fenced(slot.epoch, slot.commits.writing_tag()), self._following():
                await write(rows)

        return LoopSides(write_group, undo, committed)

    async def _undo_on_loop(self, slot: PartitionSlot, rows: list[LiveAllocation]) -> None:
        """Undo a failed group on the loop, which never waits for a partition lock: when a
        thread holds it (for an admission, briefly), the undo waits in a thread."""
        done = [Step("allocate", allocation) for allocation in rows]
        if slot.lock.acquire(blocking=False):
            try:
                self._undo(slot, done)
            finally:
                slot.lock.release()
        else:
            await asyncio.to_thread(self._undo_locked, slot, done)

    @contextmanager
    def _settled(
        self, slot: PartitionSlot, partition: str, write: LedgerWrite
    ) -> Iterator[None]:
        """Hold the partition's lock with every admission of the partition durable, for work
        that writes the ledger itself (a release, a batch): the open group is written first, by
        this thread, and a write under way elsewhere is waited for without the lock (its
        leader needs the lock to undo a failure). A release of a key whose row is still being
        written is therefore never acknowledged before it, and never deletes before it."""
        while True:
            self._acquire(slot, partition)
            leading = slot.commits.lead()
            if leading is not None:
                slot.commits.commit(leading, self._sides(slot, write))
            if slot.commits.idle():
                break
            slot.lock.release()
            if not slot.commits.wait(timeout=remaining()):
                raise PartitionBusy(partition)
        try:
            # The engine's version cannot change meanwhile: an install takes this lock.
            with fenced(slot.epoch, self._judged_under(slot)), self._following():
                yield
        finally:
            slot.lock.release()

    @staticmethod
    def _log(slot: PartitionSlot, outcome: Admission) -> None:
        """The event of an answered allocation (a replay is none)."""
        if not outcome.allowed:
            slot.events.add(
                "denied", outcome.allocation, reason=outcome.reason, message=outcome.message
            )
        elif not outcome.replayed:
            slot.events.add("allocated", outcome.allocation)

    def release(self, partition: str, key: str, *, write: LedgerWrite) -> LiveAllocation:
        """Delete the allocation from the ledger with ``write``, then take its usage back (and
        stop its application running when it was the application's last)."""
        slot = self._writable(partition)
        with self._settled(slot, partition, write):
            if key not in slot.live.by_key:
                raise AllocationNotFound(key, partition=partition)
            write([], [key])
            allocation = self._release(slot, key)
            slot.events.add("released", allocation)
            return allocation

    def release_application(
        self, partition: str, application_id: str, *, write: LedgerWrite
    ) -> list[LiveAllocation]:
        slot = self._writable(partition)
        with self._settled(slot, partition, write):
            keys = sorted(slot.live.by_application.get(application_id, ()))
            if not keys:
                raise ApplicationNotFound(application_id, partition=partition)
            write([], keys)
            released = [self._release(slot, key) for key in keys]
            for allocation in released:
                slot.events.add("released", allocation)
            return released

    def batch(
        self, partition: str, operations: list[Operation], *, write: LedgerWrite,
        stream: LedgerStream | None = None,
    ) -> list[BatchResult]:
        """Run operations in order against the engine, then store them all with one ``write``;
        or, for a batch of allocates only when there is a ``stream``, store each
        ``STREAMED_ROWS`` admitted allocations as they come, committed when the batch ends.
        (Releases are never streamed: an allocation released later in the batch would have to
        be taken back, and a released key allocated again would clash with its stored row.)

        Each operation sees the ones before it. A failed operation (denied, unknown key, bad
        input) is answered and changes nothing; the others go ahead. If storing fails, every
        engine change of the batch is undone in reverse order and the error propagates (one
        refused for an older configuration version runs once more, as in ``allocate``).
        """
        version = self._version
        try:
            return self._batch(partition, operations, write=write, stream=stream)
        except Exception as error:
            if not self._judged_again(error, version):
                raise
        return self._batch(partition, operations, write=write, stream=stream)

    def _batch(
        self, partition: str, operations: list[Operation], *, write: LedgerWrite,
        stream: LedgerStream | None,
    ) -> list[BatchResult]:
        slot = self._writable(partition)
        if any(op.op != "allocate" for op in operations):
            stream = None
        # A batch makes a few objects per operation and keeps them; the cyclic collector would
        # rescan every live allocation several times over (a third of a 1,000-operation batch).
        with self._settled(slot, partition, write), paused_gc():
            results: list[BatchResult] = []
            done: list[Step] = []
            # An allocation made and released within the batch never reaches the ledger.
            stored: dict[str, LiveAllocation] = {}
            deleted: list[str] = []
            # Streamed: admitted allocations not yet sent (only allocates, each key once).
            unsent: list[LiveAllocation] = []
            try:
                # The stream is opened at its first part: a batch that stores nothing (all
                # denied, or a retry of one already stored) costs the database nothing.
                with ExitStack() as ledger:
                    send: LedgerSend | None = None
                    for operation in operations:
                        try:
                            if operation.op == "allocate":
                                # The API builds every allocate operation with its allocation.
                                assert operation.allocation is not None
                                outcome = self._allocate(slot, operation.allocation)
                                if outcome.allowed and not outcome.replayed:
                                    done.append(named_tuple(Step, ("allocate", outcome.allocation)))
                                    if stream is None:
                                        stored[outcome.allocation.key] = outcome.allocation
                                    else:
                                        unsent.append(outcome.allocation)
                                        if len(unsent) == STREAMED_ROWS:
                                            send = send or ledger.enter_context(stream())
                                            send(unsent)
                                            unsent = []
                                results.append(outcome)
                            else:
                                if operation.key not in slot.live.by_key:
                                    raise AllocationNotFound(operation.key, partition=partition)
                                allocation = self._release(slot, operation.key)
                                done.append(Step("release", allocation))
                                if stored.pop(operation.key, None) is None:
                                    deleted.append(operation.key)
                                results.append(allocation)
                        except (
                            KeyConflict, AllocationNotFound, InvalidRequest, NotTracked
                        ) as error:
                            results.append(error)
                    if stream is None:
                        if stored or deleted:
                            write(list(stored.values()), deleted)
                    elif unsent:
                        (send or ledger.enter_context(stream()))(unsent)
            except BaseException:
                self._undo(slot, done)
                raise
            slot.events.extend(_batch_events(results))
            return results

    def restore(
        self, partition: str, allocations: Iterable[LiveAllocation], *,
        stored_ns: Mapping[str, int] | None = None,
    ) -> int:
        """Put stored allocations back into a fresh engine (start-up), without any check.
        ``stored_ns``: when each key was stored, from which each application's state log
        starts again (``app_states``)."""
        slot = self._held(partition)
        count = 0
        with slot.lock:
            for allocation in allocations:
                group = slot.engine.restore(
                    allocation.queue_path, allocation.application_id, allocation.user,
                    allocation.groups, dict(allocation.resource),
                )
                slot.live.add(allocation.with_group(group))
                if stored_ns is not None and allocation.key in stored_ns:
                    slot.events.restored(allocation, stored_ns[allocation.key])
                count += 1
        return count

    @staticmethod
    def _allocate(slot: PartitionSlot, request: LiveAllocation) -> Admission:
        existing = slot.live.by_key.get(request.key)
        if existing is not None:
            if not existing.same_request(request):
                raise KeyConflict(request.key)
            return Admission(True, existing, replayed=True)
        decision = slot.engine.increase(
            request.queue_path, request.application_id, request.user, request.groups,
            dict(request.resource),
        )
        allocation = request.with_group(decision.group)
        if not decision.allowed:
            return Admission(
                False, allocation, decision.reason, decision.message, decision.headroom
            )
        slot.live.add(allocation)
        return named_tuple(Admission, (True, allocation, None, "", None, False))

    @staticmethod
    def _release(slot: PartitionSlot, key: str) -> LiveAllocation:
        allocation = slot.live.by_key[key]
        last = slot.live.is_last_of_application(allocation)
        slot.engine.decrease(
            allocation.queue_path, allocation.application_id, allocation.user,
            dict(allocation.resource), remove_app=last,
        )
        return slot.live.remove(key)

    @classmethod
    def _undo_locked(cls, slot: PartitionSlot, done: list[Step]) -> None:
        with slot.lock:
            cls._undo(slot, done)

    @staticmethod
    def _undo(slot: PartitionSlot, done: list[Step]) -> None:
        """Take back engine changes whose ledger write failed, newest first."""
        for kind, allocation in reversed(done):
            if kind == "allocate":
                last = slot.live.is_last_of_application(allocation)
                slot.engine.decrease(
                    allocation.queue_path, allocation.application_id, allocation.user,
                    dict(allocation.resource), remove_app=last,
                )
                slot.live.remove(allocation.key)
            else:
                slot.engine.restore(
                    allocation.queue_path, allocation.application_id, allocation.user,
                    allocation.groups, dict(allocation.resource),
                )
                slot.live.add(allocation)


# The process's gateway. Set only by engines_load(); tests reset it around every test.
_gateway: Gateway | None = None
_swap_lock = threading.Lock()


def engines_load(
    *, yaml_text: str, version: int | None = None, leased: bool = False
) -> Gateway:
    """Parse and validate the config (``trackers.ConfigError`` if invalid) and create the engines
    (with ``leased``, none yet: each partition's comes with its lease).

    Replaces any gateway loaded before: call it once at start-up, in the serving process.
    """
    config = parse_config(yaml_text)
    gateway = Gateway.from_config(config, version=version, leased=leased)
    global _gateway
    with _swap_lock:
        _gateway = gateway
    return gateway


def engines_get() -> Gateway:
    """The loaded gateway; ``EngineNotLoaded`` before start-up has created it."""
    gateway = _gateway
    if gateway is None:
        raise EngineNotLoaded
    return gateway


def engines_loaded() -> bool:
    return _gateway is not None


def engines_reset() -> None:
    """Forget the engines and the quota trees (tests, or a process shutting down)."""
    global _gateway
    with _swap_lock:
        _gateway = None
    trees_reset()
