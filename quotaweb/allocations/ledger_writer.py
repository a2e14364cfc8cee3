"""The loop's ledger on SQLite: allocations admitted on the server's event loop, their groups
written by one thread of their own.

What it buys. On SQLite every allocate used to go to one of the request threads
(``QUOTAWEB_HTTP_THREADS``, 4) and wait there for its group's commit, so at most four
allocations were ever in flight: groups stayed small, and each request paid two thread hops and
its share of the threads' fight for the interpreter. Made on the loop, any number of allocations
join the open group while one is being written. SQLite takes one writer at a time anyway, so one
thread loses nothing; and the loop hands it the writing of every open group in turn
(``Commits.drain``), so that the thread begins each group's write as soon as the last one has
committed, without a round trip through the loop between them.

The write is the threads' own (``_ledger_write``), so the group's budget (``waits.until``) and
SQLite's busy timeout bound it exactly as in a request thread; its connection is that thread's
Django connection, checked before and after each write as a request's is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from django.db import DEFAULT_DB_ALIAS, connections

from quotaweb.allocations.ledger import _ledger_write
from quotaweb.engine.live import LiveAllocation
from quotaweb.engine.outcomes import LedgerWrite, ThreadLedgerWrite


class WriterThreadLedger:
    """``LoopLedger`` for SQLite: the loop's groups are written in one writer thread."""

    def __init__(self) -> None:
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger-writer")
        self._writes: dict[str, ThreadLedgerWrite] = {}

    async def write_for(self, partition: str) -> ThreadLedgerWrite | None:
        write = self._writes.get(partition)
        if write is None:
            write = self._writes[partition] = ThreadLedgerWrite(
                partial(_group_written, _ledger_write(partition)), self._run
            )
        return write

    def _run(self, work: Callable[[], None]) -> asyncio.Future[None]:
        return asyncio.get_running_loop().run_in_executor(self._writer, work)

    async def close(self) -> None:
        self._writer.shutdown(wait=False)


def _group_written(write: LedgerWrite, stored: list[LiveAllocation], deleted: list[str]) -> None:
    # A group of the loop's is allocations only: nothing is deleted.
    _written(write, stored)


def _written(write: LedgerWrite, allocations: list[LiveAllocation]) -> None:
    """``write`` of a group in the writer thread, its one connection checked before and after
    as ``close_old_connections`` checks every one: that walk over the aliases cost the writer as
    much interpreter time as the rows."""
    database = connections[DEFAULT_DB_ALIAS]
    database.close_if_unusable_or_obsolete()
    try:
        write(allocations, [])
    finally:
        database.close_if_unusable_or_obsolete()
