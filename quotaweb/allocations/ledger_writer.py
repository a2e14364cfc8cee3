"""The loop's ledger on SQLite: allocations admitted on the server's event loop, their groups
written by one thread of their own.

What it buys. On SQLite every allocate used to go to one of the request threads
(``QUOTAWEB_HTTP_THREADS``, 4) and wait there for its group's commit, so at most four
allocations were ever in flight: groups stayed small, and each request paid two thread hops and
its share of the threads' fight for the interpreter. Made on the loop, any number of allocations
join the open group while one is being written, and a group of any size costs one hop to the
writer thread and one back. SQLite takes one writer at a time anyway, so one thread loses
nothing.

The write is the threads' own (``_ledger_write``), run under the caller's context, so the
group's budget (``waits.until``) and SQLite's busy timeout bound it exactly as in a request
thread; its connection is that thread's Django connection, checked before and after each write
as a request's is.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor

from django.db import DEFAULT_DB_ALIAS, connections

from quotaweb.allocations.ledger import _ledger_write
from quotaweb.engine.gateway import LedgerWrite, LoopLedgerWrite
from quotaweb.engine.live import LiveAllocation


class WriterThreadLedger:
    """``LoopLedger`` for SQLite: each group the loop leads is written in one writer thread."""

    def __init__(self) -> None:
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger-writer")

    async def write_for(self, partition: str) -> LoopLedgerWrite | None:
        write = _ledger_write(partition)
        writer = self._writer

        async def write_on_thread(allocations: list[LiveAllocation]) -> None:
            context = contextvars.copy_context()
            await asyncio.get_running_loop().run_in_executor(
                writer, context.run, _written, write, allocations
            )

        return write_on_thread

    async def close(self) -> None:
        self._writer.shutdown(wait=False)


def _written(write: LedgerWrite, allocations: list[LiveAllocation]) -> None:
    # The one connection this thread uses, checked as ``close_old_connections`` checks every
    # one: that walk over the aliases cost the writer as much interpreter time as the rows.
    database = connections[DEFAULT_DB_ALIAS]
    database.close_if_unusable_or_obsolete()
    try:
        write(allocations, [])
    finally:
        database.close_if_unusable_or_obsolete()
