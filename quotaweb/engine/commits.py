"""Group commit: concurrent allocations of a partition share their ledger commits.

What it buys. An allocation used to hold its partition's lock while its row was committed, so
a partition admitted one allocation per commit whatever the number of threads or clients: with
16 clients a scheduler got no more than with one, and each waited in line for everyone else's
commit. Now the lock covers only the engine's admission, which appends the allocation to the
partition's *open group*; the ledger write happens outside the lock. The first allocation to
find no commit in flight *leads*: it takes the open group (itself, for a lone client, so a group
of one costs what a single write cost) and writes its rows in one transaction. Allocations
admitted meanwhile join the next open group, which one of them leads as soon as the write in
flight has finished. No timer gathers a group: a group is whatever arrived during the previous
commit.

The rules (``quotaweb.engine.gateway`` applies them):

- Nothing is acknowledged before it is durable: each allocation waits until its own group has
  committed (``Group.done``) and raises the group's error if it failed.
- The order of admissions is the order of the engine: rows join groups in the engine's order,
  groups are written one at a time in that order, and a group's rows in one statement in order.
- A failed write is undone exactly: the leader takes back the engine changes of its group's rows
  and nothing else (later admissions are in the next group, written afterwards, and admitted
  against usage that only shrinks by the undo), then finishes the group with the error.
- Work that must see every admission durable first (a release, a batch) holds the partition's
  lock with no group in flight and the open one written (``Gateway._settled``).

This module knows nothing of engines or databases: a ``Commits`` holds rows (any object, with
its key) and says who leads and who waits. Its lock is a leaf: it calls out to nothing while
held (a waiter's wake-up only sets an event or schedules a callback).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Generic, NamedTuple, TypeVar

Row = TypeVar("Row")


class Group(Generic[Row]):
    """Rows committed in one transaction; ``done`` once written or failed (``error``)."""

    __slots__ = ("done", "due", "error", "keys", "on_loop", "rows", "tag")

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.keys: list[str] = []
        self.done = False
        self.error: BaseException | None = None
        # When the earliest of its callers' budgets ends (None: none has one); its write is
        # given up on by then, so no caller waits for it much past its own budget.
        self.due: float | None = None
        # The futures of its callers on an event loop (``Commits.outcome_on_loop``).
        self.on_loop: list[asyncio.Future[None]] | None = None
        # The lowest tag its rows were added with (the gateway's: the configuration version
        # each was admitted under), written with the group (None: none given).
        self.tag: int | None = None


class Sides(NamedTuple, Generic[Row]):
    """What a leader does around the group commit: ``write`` the rows in one transaction,
    ``undo`` their admissions when it fails, and note them ``committed`` before they are
    answered."""

    write: Callable[[list[Row], float | None], None]
    undo: Callable[[list[Row]], None]
    committed: Callable[[list[Row]], None]


class LoopSides(NamedTuple, Generic[Row]):
    """``Sides`` for a leader on an event loop: its write and its undo are awaited. With
    ``drain``, the open groups are handed whole to a thread that writes them one after another
    (``Commits.drain``) instead, and ``write`` and ``undo`` are not used."""

    write: Callable[[list[Row], float | None], Awaitable[None]]
    undo: Callable[[list[Row]], Awaitable[None]]
    committed: Callable[[list[Row]], None]
    drain: Callable[[], Awaitable[None]] | None = None


class Commits(Generic[Row]):
    """One partition's groups: the open one (taking admissions) and the one being written."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: Group[Row] | None = None
        self._writing: Group[Row] | None = None
        # Keys admitted but not yet durable: a retry of one must wait for its group.
        self._pending: dict[str, Group[Row]] = {}
        # Called when the group being written finishes (each waits for one finish only).
        self._wakers: list[Callable[[], None]] = []
        # The loop's writer of groups, while one runs (``outcome_on_loop``), and the sides
        # it writes the next group with. Touched on the loop's thread only.
        self._driving = False
        self._drive_task: asyncio.Task[None] | None = None
        self._loop_sides: LoopSides[Row] | None = None

    def add(
        self, key: str, row: Row, *, due: float | None = None, tag: int | None = None
    ) -> Group[Row]:
        """Put an admitted row in the open group (under the partition's lock, so in the
        engine's order); the group it will be committed with. ``due``: when its caller's
        budget ends; ``tag``: the group keeps the lowest (``writing_tag``)."""
        with self._lock:
            group = self._open
            if group is None:
                group = self._open = Group()
            if due is not None and (group.due is None or due < group.due):
                group.due = due
            if tag is not None and (group.tag is None or tag < group.tag):
                group.tag = tag
            group.rows.append(row)
            group.keys.append(key)
            self._pending[key] = group
            return group

    def pending(self, key: str) -> Group[Row] | None:
        """The group of ``key`` while its row is not yet durable."""
        return self._pending.get(key)

    def lead(self) -> Group[Row] | None:
        """The open group, now the one being written by the caller; None when a write is
        already under way (the caller waits for it) or nothing is open."""
        with self._lock:
            group = self._open
            if self._writing is not None or group is None:
                return None
            self._open = None
            self._writing = group
            return group

    def writing_tag(self) -> int | None:
        """The tag of the group being written (its writer's, during its write)."""
        writing = self._writing
        return None if writing is None else writing.tag

    def idle(self) -> bool:
        """Nothing admitted is waiting to be written or being written."""
        return self._writing is None and self._open is None

    def finish(self, group: Group[Row], error: BaseException | None) -> None:
        """The leader's write of ``group`` is over (committed, or failed and already undone):
        its waiters answer, and those of the open group may lead it."""
        with self._lock:
            group.error = error
            group.done = True
            self._writing = None
            pending = self._pending
            for key in group.keys:
                if pending.get(key) is group:
                    del pending[key]
            wakers, self._wakers = self._wakers, []
            on_loop, group.on_loop = group.on_loop, None
        for wake in wakers:
            wake()
        if on_loop:
            _settle_all(on_loop)

    def see_through(self, group: Group[Row], sides: Sides[Row]) -> None:
        """In a thread: lead or wait for writes until ``group`` is done (its ``error`` set if
        its write failed)."""
        while not group.done:
            leading = self.lead()
            if leading is None:
                self.wait(group)
            else:
                self.commit(leading, sides)

    def drain(self, sides: Sides[Row]) -> None:
        """In a thread: lead and write the open groups one after another, until none is open
        or another's write is under way. For a ledger written by a thread of its own: each
        group's write begins as soon as the last one ends, where handing each group to the
        thread from the loop and its outcome back (two thread wake-ups, and the loop's turn
        to notice) made every SQLite group write take twice as long as its commit."""
        while (leading := self.lead()) is not None:
            self.commit(leading, sides)

    def commit(self, group: Group[Row], sides: Sides[Row]) -> None:
        """Write a group the caller leads; on failure undo exactly its rows, then finish it."""
        try:
            sides.write(group.rows, group.due)
        except BaseException as error:
            sides.undo(group.rows)
            self.finish(group, error)
            return
        sides.committed(group.rows)
        self.finish(group, None)

    def outcome_on_loop(self, group: Group[Row], sides: LoopSides[Row]) -> Awaitable[None]:
        """For a caller on an event loop: what to await for ``group``'s outcome (its ``error``
        set if its write failed). Cancelling the awaiting caller cancels only its own wait.

        The loop's groups are written by one task per partition, the *drive* (started here
        when none runs), which leads each open group in turn until none is left; ``sides``, the
        latest caller's, are what it writes the next group with. Each caller waits on a future
        of its own, set once when its group finishes: where every caller used to lead or wait
        for the write under way, then for its own group's, with a task, two futures and two
        wake-ups through the loop's self-pipe each, a group now costs its callers one future
        apiece and one wake-up."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if group.done:
                future.set_result(None)
                return future
            if group.on_loop is None:
                group.on_loop = []
            group.on_loop.append(future)
        self._loop_sides = sides
        if not self._driving:
            self._driving = True
            # Referenced until it ends: the loop itself keeps only weak references to tasks.
            self._drive_task = loop.create_task(self._drive())
        return future

    async def _drive(self) -> None:
        """Lead the open groups one after another on the loop (``outcome_on_loop``); wait for a
        write under way elsewhere (a thread's) first. Ends when nothing is left open."""
        try:
            while True:
                sides = self._loop_sides
                assert sides is not None
                if sides.drain is not None and self._open is not None and self._writing is None:
                    await sides.drain()
                    continue
                leading = self.lead()
                if leading is None:
                    if self._open is None:
                        return
                    waiting = self.wait_on_loop()
                    if waiting is not None:
                        await waiting
                    continue
                try:
                    await sides.write(leading.rows, leading.due)
                except BaseException as error:
                    await sides.undo(leading.rows)
                    self.finish(leading, error)
                else:
                    sides.committed(leading.rows)
                    self.finish(leading, None)
        finally:
            self._driving = False
            self._drive_task = None

    def wait(self, group: Group[Row] | None = None, *, timeout: float | None = None) -> bool:
        """In a thread: wait until the write under way finishes (at once when none is, or when
        ``group`` is already done); False if ``timeout`` seconds passed first. Without one it is
        bounded by that write, which its leader's database bound ends
        (``quotaweb.postgresql.waits``)."""
        event = threading.Event()
        with self._lock:
            if self._writing is None or (group is not None and group.done):
                return True
            self._wakers.append(event.set)
        return event.wait(timeout)

    def unsettled(self) -> set[str]:
        """Keys admitted whose rows are not durable yet (their group's write stores them)."""
        with self._lock:
            return set(self._pending)

    def wait_on_loop(self) -> asyncio.Future[None] | None:
        """``wait`` on an event loop: a future set when the write under way finishes, or None
        if none is. Set from whichever thread finishes the write."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._writing is None:
                return None
            self._wakers.append(lambda: _wake_on(loop, future))
        return future


def _wake_on(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
    # A closed loop refuses the call: nobody awaits the future any more.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle, future)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _settle_all(futures: list[asyncio.Future[None]]) -> None:
    """Set a group's loop futures: at once on their loop's own thread (the drive finishing the
    group), else with one call through the loop's self-pipe for them all."""
    loop = futures[0].get_loop()
    try:
        here = asyncio.get_running_loop() is loop
    except RuntimeError:
        here = False
    if here:
        _settle_each(futures)
        return
    # A closed loop refuses the call: nobody awaits the futures any more.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle_each, futures)


def _settle_each(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():  # its caller was cancelled
            future.set_result(None)
