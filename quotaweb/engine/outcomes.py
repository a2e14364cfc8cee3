"""What the gateway (``quotaweb.engine.gateway``) answers, refuses with and is given to write
with: an allocation's ``Admission``, a batch's ``Operation`` and results, the engine ``Step`` a
failed write takes back, the errors of a write, and the shapes of the ledger's writes. Apart
from the gateway so that each stays short; the gateway names them all again, and callers may
import them from either."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Literal, NamedTuple

from quotaweb.engine.live import LiveAllocation

ERR_KEY_CONFLICT = (
    "allocation key {key!r} is already live with a different request; a retry must repeat the "
    "same body, a new allocation needs a new key"
)
ERR_NO_ALLOCATION = "there is no live allocation {key!r} in partition {partition!r}"
ERR_NO_APPLICATION = "application {key!r} has no live allocation in partition {partition!r}"
ERR_PARTITION_BUSY = (
    "partition {partition!r} is busy: an earlier write is still waiting for the database"
)


class PartitionBusy(RuntimeError):
    """A write waited for its partition's lock as long as its bound allows (another write holds
    it, waiting for the database); nothing was changed."""

    def __init__(self, name: str) -> None:
        super().__init__(ERR_PARTITION_BUSY.format(partition=name))
        self.name = name


class KeyConflict(ValueError):
    """An allocation key already live with a different request."""

    def __init__(self, key: str) -> None:
        super().__init__(ERR_KEY_CONFLICT.format(key=key))
        self.key = key


class AllocationNotFound(LookupError):
    """No live allocation with that key in the partition."""

    message = ERR_NO_ALLOCATION

    def __init__(self, key: str, *, partition: str) -> None:
        super().__init__(self.message.format(key=key, partition=partition))
        self.key = key


class ApplicationNotFound(AllocationNotFound):
    """No live allocation of that application in the partition."""

    message = ERR_NO_APPLICATION


class Admission(NamedTuple):
    """The answer to an allocation: the allocation (with its group) when allowed, else the
    decision's reason, message and headroom. ``replayed``: a retry of a live allocation.
    (A named tuple, like ``Operation``: a batch makes one per operation, and a frozen
    dataclass costs several times as much to make.)"""

    allowed: bool
    allocation: LiveAllocation
    reason: str | None = None
    message: str = ""
    headroom: dict[str, int] | None = None
    replayed: bool = False


class Operation(NamedTuple):
    """One operation of a batch: ``allocate`` (with ``allocation``) or ``release`` (``key``)."""

    op: str
    allocation: LiveAllocation | None = None
    key: str = ""


# A batch answers one of these per operation, in order.
BatchResult = Admission | LiveAllocation | Exception


class Step(NamedTuple):
    """One engine change of an allocation or a batch, kept until its ledger write has committed
    so that ``_undo`` can take it back. (One per operation: its cost beside the engine's work
    and the ledger row is lost in the noise of the batch benchmark.)"""

    kind: Literal["allocate", "release"]
    allocation: LiveAllocation

# What writes the ledger: (allocations to store, keys to delete), in one transaction.
LedgerWrite = Callable[[list[LiveAllocation], list[str]], None]
# What a batch of allocates may send its rows to while the engine admits the rest: a context
# (one transaction, committed when it ends without an error) giving a function that takes
# admitted allocations. The database stores one part while the engine works on the next.
LedgerSend = Callable[[list[LiveAllocation]], None]
# What stores admitted allocations (a group, in order) for a caller on an event loop, in one
# transaction committed when it returns.
LoopLedgerWrite = Callable[[list[LiveAllocation]], Awaitable[None]]


class ThreadLedgerWrite(NamedTuple):
    """A ledger that a thread of its own writes for the loop: its ``write`` (a request thread's,
    run in that thread) and ``run``, which runs a function there and is awaited on the loop.
    The loop hands that thread the writing of every open group in turn (``Commits.drain``)."""

    write: LedgerWrite
    run: Callable[[Callable[[], None]], Awaitable[None]]
LedgerStream = Callable[[], AbstractContextManager[LedgerSend]]
# Allocations sent to a stream at a time: small enough that the database's work overlaps the
# engine's, large enough that the sending costs little.
STREAMED_ROWS = 100
