"""Shared pieces of the lease tests: a peer's store on the test database, and the lease rows
as PostgreSQL holds them."""

from __future__ import annotations

import os

import pytest

from tests.server_process import own_database_connection

postgres_only = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL"), reason="PostgreSQL only (set DATABASE_URL)"
)
TTL_MS = 600


def lease_store(name: str, ttl_ms: int = TTL_MS):
    from quotaweb.leases.store import LeaseStore

    store = LeaseStore(name=name, address=f"{name}.example:8000", ttl_ms=ttl_ms)
    store.open()
    return store


def lease_rows() -> dict[str, tuple[str, int]]:
    with own_database_connection() as database:
        return {unit: (owner, epoch) for unit, owner, epoch in database.execute(
            "SELECT unit, owner, epoch FROM leases_lease").fetchall()}


def ledger_rows() -> dict[str, int]:
    """{key: epoch} of the ledger, read on a connection of its own."""
    with own_database_connection() as database:
        return dict(database.execute(
            "SELECT key, epoch FROM allocations_allocation").fetchall())
