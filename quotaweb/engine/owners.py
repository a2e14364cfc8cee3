"""Which partitions this process serves, when peers share them through leases on PostgreSQL
(``quotaweb.leases``; docs/design.md, "The engines and their owners").

On SQLite, and on PostgreSQL before a lease is taken, the gateway holds a slot for every
configured partition, as it always did. With leases (``Gateway.leased``) it holds slots only
for the partitions this peer owns: a slot arrives empty, is filled from the ledger, and only
then answers; it is dropped the moment its lease is lost or handed on. A request for a
configured partition held elsewhere raises ``NotOwner``, which names the owner (what a later
forwarding step needs) and is answered 503 with Retry-After meanwhile.

Each slot carries the epoch of its lease, and every ledger write of the slot runs inside
``fenced(epoch)``: the ledger puts that epoch in each statement and PostgreSQL refuses a
statement whose epoch is no longer the partition's (``quotaweb_fence``). The epoch is the
slot's, fixed when the slot was made, so a group admitted by a slot that has since been
replaced can never borrow the new slot's epoch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The unit of ownership that is not a partition: every quota tree together.
UNIT_TREES = "quota-trees"
# How long a request waits for a partition this peer is rebuilding, when it has no budget of
# its own (``waits.remaining``): about the statement bound, like any wait of a write.
ARRIVAL_SECONDS = 2.0

ERR_NOT_OWNER = (
    "partition {partition!r} is served by peer {owner!r} ({address}), not by this one; send "
    "the request there, or try again"
)
ERR_MOVING = (
    "partition {partition!r} is moving between peers (its new owner has not taken it up yet); "
    "try again in a moment"
)


class NotOwner(RuntimeError):
    """The partition is configured but this peer does not own it now: ``owner`` and
    ``address`` name the peer that does ("" while it is moving or its owner is unknown)."""

    def __init__(self, partition: str, owner: str = "", address: str = "") -> None:
        message = (ERR_NOT_OWNER.format(partition=partition, owner=owner, address=address)
                   if owner else ERR_MOVING.format(partition=partition))
        super().__init__(message)
        self.partition, self.owner, self.address = partition, owner, address


# The SQLSTATE ``quotaweb_fence`` raises (leases.0001): a ledger write of an epoch that ended.
FENCE_SQLSTATE = "QWF01"
ERR_FENCED = (
    "this peer's lease on the partition ended before its write was stored; nothing was stored, "
    "try again"
)


def fence_refused(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or the driver's error it wraps) is the fence refusing a write."""
    while exc is not None:
        if getattr(exc, "sqlstate", None) == FENCE_SQLSTATE:
            return True
        exc = exc.__cause__
    return False


_fence: ContextVar[int] = ContextVar("quotaweb_fence_epoch", default=0)


def fence_epoch() -> int:
    """The lease epoch the ledger writes of this context carry (0: none held)."""
    return _fence.get()


@contextmanager
def fenced(epoch: int) -> Iterator[None]:
    """Ledger writes in the block carry ``epoch`` (their slot's)."""
    token = _fence.set(epoch)
    try:
        yield
    finally:
        _fence.reset(token)
