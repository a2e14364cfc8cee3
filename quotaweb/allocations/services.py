"""Allocations reported by a scheduler: admitted by the engine, stored in the ledger, released.

Discipline: the engine admits under the partition's lock and the row is written before the
answer. Single allocations of a partition share their commits (``quotaweb.engine.commits``): the
rows admitted while one write is under way go to the database together in the next, and each
answer waits for its own rows. An allocation is acknowledged only once its row is committed; if
the commit fails, the engine changes of exactly that write's rows are undone. A release waits for
the partition's admissions to be durable, deletes the row, then takes the usage back.
So after a crash (the engines live in memory) the ledger holds exactly the acknowledged,
unreleased allocations, and ``ledger_restore`` rebuilds the engines from it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Sequence

from django.db import DEFAULT_DB_ALIAS, connections, transaction

from quotaweb import metrics
from quotaweb.allocations.applications import nanoseconds
from quotaweb.allocations.ledger import (
    LoopLedger,
    PostgresLoopLedger,
    _ledger_stream,
    _ledger_write,
)
from quotaweb.allocations.ledger_writer import WriterThreadLedger
from quotaweb.allocations.models import Allocation
from quotaweb.allocations.requests import (
    ALLOCATION_FIELDS,
    MAX_BATCH,
    MAX_GROUPS,
    MAX_PRIORITY,
    MAX_QUANTITY,
    MAX_RESOURCE_TYPES,
    MAX_TEXT,
    MIN_PRIORITY,
    AllocationInvalid,
    allocation_request,
    batch_request,
)
from quotaweb.engine.gateway import engines_get
from quotaweb.engine.live import LiveAllocation
from quotaweb.engine.outcomes import Admission, BatchResult, Operation
from quotaweb.postgresql.waits import deadline

# The request checks and the ledger live in their own modules; callers and tests keep taking
# these names from here.
__all__ = [
    "ALLOCATION_FIELDS", "MAX_BATCH", "MAX_GROUPS", "MAX_PRIORITY", "MAX_QUANTITY",
    "MAX_RESOURCE_TYPES", "MAX_TEXT", "MIN_PRIORITY", "AllocationInvalid", "LoopLedger",
    "allocation_create", "allocation_create_on_loop", "allocation_release", "allocation_request",
    "allocations_batch", "application_release", "batch_request", "ledger_restore",
    "loop_ledger_open",
]

logger = logging.getLogger(__name__)


def _count(admission: Admission) -> None:
    if admission.replayed:
        return
    if admission.allowed:
        metrics.inc("quotaweb_allocations_total")
    else:
        metrics.inc("quotaweb_denials_total", reason=admission.reason or "")


def _took(operation: str, started: float) -> None:
    """One histogram sample per answered request (not per operation of a batch)."""
    metrics.observe("quotaweb_allocation_seconds", time.perf_counter() - started,
                    operation=operation)


# -- services ------------------------------------------------------------------------------------


def _connected() -> None:
    """This thread's database connection, taken before the partition lock (the gateway's lock
    order): a thread that waited for a pooled connection while holding the lock could wait on
    requests that hold connections and wait for that lock. With eight clients against a pool of
    ten, four of them held by other threads, that stalled every allocation until the pool's
    timeout."""
    transaction.get_connection().ensure_connection()


def allocation_create(*, partition: str, request: LiveAllocation) -> Admission:
    """Admit and store one allocation (see the module's discipline). Raises the gateway's
    ``UnknownPartition``, ``KeyConflict``, and ``trackers.InvalidRequest`` for a bad path or
    name; a denial is an answer (``allowed`` False), not an error."""
    started = time.perf_counter()
    with deadline():
        _connected()
        admission = engines_get().allocate(partition, request, write=_ledger_write(partition))
    _took("allocate", started)
    _count(admission)
    return admission


def loop_ledger_open() -> LoopLedger | None:
    """The ledger for allocations made on the server's event loop, for this database: a
    connection of the loop's own on PostgreSQL, a writer thread on SQLite; None where neither
    serves (a PostgreSQL role to assume, which Django sets on each connection it makes)."""
    database = connections[DEFAULT_DB_ALIAS]
    if database.vendor == "sqlite":
        return WriterThreadLedger()
    if database.vendor == "postgresql" and not database.settings_dict["OPTIONS"].get(
        "assume_role"
    ):
        return PostgresLoopLedger()
    return None


async def allocation_create_on_loop(
    *, partition: str, request: LiveAllocation, ledger: LoopLedger
) -> Admission | None:
    """``allocation_create`` awaited on the server's event loop, its row written by ``ledger``;
    None when it must run in a thread instead (``Gateway.allocate_on_loop``, ``LoopLedger``)."""
    started = time.perf_counter()
    gateway = engines_get()
    write = await ledger.write_for(partition)
    if write is None:
        return None
    admission = await gateway.allocate_on_loop(partition, request, write=write)
    if admission is not None:
        _took("allocate", started)
        _count(admission)
    return admission


def allocation_release(*, partition: str, key: str) -> LiveAllocation:
    """``AllocationNotFound`` when the key is not live."""
    started = time.perf_counter()
    with deadline():
        _connected()
        released = engines_get().release(partition, key, write=_ledger_write(partition))
    _took("release", started)
    metrics.inc("quotaweb_releases_total")
    return released


def application_release(*, partition: str, application_id: str) -> list[LiveAllocation]:
    started = time.perf_counter()
    with deadline():
        _connected()
        released = engines_get().release_application(
            partition, application_id, write=_ledger_write(partition)
        )
    _took("application_release", started)
    metrics.inc("quotaweb_releases_total", len(released))
    return released


def allocations_batch(
    *, partition: str, operations: Sequence[Operation | AllocationInvalid]
) -> list[BatchResult | AllocationInvalid]:
    """Run a batch in order, stored in one transaction; a bad operation is answered with its
    error in place and the others go ahead."""
    valid = [op for op in operations if isinstance(op, Operation)]
    started = time.perf_counter()
    with deadline():
        _connected()
        results = iter(engines_get().batch(
            partition, valid, write=_ledger_write(partition), stream=_ledger_stream(partition)
        ))
    _took("batch", started)
    out: list[BatchResult | AllocationInvalid] = []
    allowed = released = 0
    denied: dict[str, int] = {}
    for operation in operations:
        result = next(results) if isinstance(operation, Operation) else operation
        if isinstance(result, Admission) and not result.replayed:
            if result.allowed:
                allowed += 1
            else:
                denied[result.reason or ""] = denied.get(result.reason or "", 0) + 1
        elif isinstance(result, LiveAllocation):
            released += 1
        out.append(result)
    # Counted once per batch: a lock per operation would cost more than the count is worth.
    metrics.inc("quotaweb_allocations_total", allowed)
    metrics.inc("quotaweb_releases_total", released)
    for reason, count in denied.items():
        metrics.inc("quotaweb_denials_total", count, reason=reason)
    return out


def ledger_restore(*, partitions: Collection[str] | None = None) -> dict[str, int]:
    """Put every stored allocation back into the freshly loaded engines (start-up), in the
    order they were accepted; with ``partitions``, only theirs (a peer that just took their
    leases, into their empty slots). Rows of a partition no longer configured are kept, not
    replayed, and reported in the log."""
    gateway = engines_get()
    started = time.perf_counter()
    served = set(gateway.partitions() if partitions is None else partitions)
    restored: dict[str, int] = {}
    skipped = 0
    fields = ("partition", "key", "application_id", "queue_path", "user", "groups", "resource",
              "group", "priority", "created", "node_id")
    stored = Allocation.objects.all()
    if partitions is not None:
        stored = stored.filter(partition__in=served)
    rows = stored.order_by("id").values_list(*fields).iterator(chunk_size=5000)
    by_partition: dict[str, list[LiveAllocation]] = {}
    # When each key was stored: each application's state log starts again from its oldest.
    stored_ns: dict[str, dict[str, int]] = {}
    for (
        partition, key, application, path, user, groups, resource, group, priority, created,
        node_id,
    ) in rows:
        if partition not in served:
            skipped += 1
            continue
        by_partition.setdefault(partition, []).append(LiveAllocation(
            key=key, application_id=application, queue_path=path, user=user,
            groups=tuple(groups), resource=resource, group=group or None, priority=priority,
            node_id=node_id,
        ))
        stored_ns.setdefault(partition, {})[key] = nanoseconds(created)
    for partition, allocations in by_partition.items():
        restored[partition] = gateway.restore(
            partition, allocations, stored_ns=stored_ns[partition]
        )
    if skipped:
        logger.warning(
            "%d stored allocations belong to partitions no longer configured; kept, not applied",
            skipped,
        )
    logger.info(
        "restored %d allocations in %.2f s", sum(restored.values()), time.perf_counter() - started
    )
    return restored
