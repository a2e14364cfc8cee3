"""Writes that must hold a unit's lease, outside the ledger (which carries its epoch in each
statement: ``allocations.ledger``)."""

from __future__ import annotations

from django.db import transaction


def lease_fence(*, unit: str, epoch: int) -> None:
    """Inside a transaction: refuse it (SQLSTATE QWF01, ``engine.owners.fence_refused``) unless
    ``unit``'s lease is still held at ``epoch``, and keep the lease row share-locked until it
    ends, so a takeover waits for it (docs/design.md, "the fence"). On SQLite nothing: one
    process owns everything there."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT quotaweb_fence(%s, %s)", [unit, epoch])
