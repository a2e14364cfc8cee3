"""The lease table as one peer uses it, on a connection of its own (``LeaseStore``).

The connection is psycopg's, apart from Django's pool, in autocommit, with the server-side
bounds of every other connection and the client-side one (``DeadlineConnection``), so a stalled
database answers the lease's statements no later than the requests'. It holds one session-level
advisory lock, the peer's (``_PEER_LOCK``, its name): the lock lives exactly as long as the
session, so when a peer dies (``kill -9``, a crash, its machine gone) PostgreSQL sees its socket
close and frees the lock at once, and the others see the peer dead at their next look instead
of a lease's time later. A peer that stalls (SIGSTOP, a long pause) keeps its session and its
lock; its leases are taken only once they expire.

Every time is PostgreSQL's (``now()``): the peers' clocks are never compared.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections

from quotaweb.leases.models import Lease, Peer
from quotaweb.postgresql.waits import DeadlineConnection

# The first key of the two-key advisory locks (``pg_try_advisory_lock(int, int)``) every peer
# lock uses; the second is the hash of the peer's name. ("qw" in ASCII.)
_PEER_LOCK = 0x7177
ERR_NAME_TAKEN = (
    "The peer name {name!r} is in use by another running quotaweb process on this database "
    "(its lease session holds the name). Give each process its own QUOTAWEB_NODE_NAME, or stop "
    "the other one."
)

_LEASE = Lease._meta.db_table
_PEER = Peer._meta.db_table


@dataclass(frozen=True)
class Survey:
    """The lease table as one peer saw it: each unit's (owner, epoch) where it is held by a
    live owner, None where it is free to take (with the epoch to take it at); the live peers
    and their addresses."""

    held: dict[str, tuple[str, int] | None]
    epochs: dict[str, int]
    live: dict[str, str]


class NameTaken(RuntimeError):
    def __init__(self, name: str) -> None:
        super().__init__(ERR_NAME_TAKEN.format(name=name))


class LeaseStore:
    """One peer's side of the lease table (``name`` at ``address``, leases of ``ttl_ms``)."""

    def __init__(self, *, name: str, address: str, ttl_ms: int) -> None:
        self.name, self.address, self.ttl_ms = name, address, ttl_ms
        self._connection: psycopg.Connection[Any] | None = None
        # Renewals and the rest run in two threads (``core.peers``): psycopg lets them share
        # the connection, one statement at a time; replacing it is done by one of them.
        self._connecting = threading.Lock()

    def open(self) -> None:
        """Connect and claim the peer's name (``NameTaken`` when a live process holds it)."""
        self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        with self._connecting:
            return self._connected()

    def _connected(self) -> psycopg.Connection[Any]:
        connection = self._connection
        if connection is not None and not connection.closed and not connection.broken:
            return connection
        self._connection = None
        if connection is not None:
            connection.close()
        params = connections[DEFAULT_DB_ALIAS].get_connection_params()
        params.pop("cursor_factory", None)
        connection = DeadlineConnection.connect(**params, autocommit=True)
        try:
            if not connection.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s))", [_PEER_LOCK, self.name]
            ).fetchone()[0]:
                raise NameTaken(self.name)
            connection.execute(
                f"INSERT INTO {_PEER} (name, address, hostname, pid, started, last_seen) "
                "VALUES (%s, %s, %s, %s, now(), now()) ON CONFLICT (name) DO UPDATE SET "
                "address = excluded.address, hostname = excluded.hostname, "
                "pid = excluded.pid, started = excluded.started, last_seen = now()",
                [self.name, self.address, socket.gethostname(), os.getpid()],
            )
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return connection

    def renew(self) -> dict[str, int]:
        """Extend every lease this peer holds by a TTL from now and note it alive, in one
        statement: {unit: epoch} of the leases it still holds."""
        rows = self._connect().execute(
            f"WITH seen AS (UPDATE {_PEER} SET last_seen = now() WHERE name = %(me)s) "
            f"UPDATE {_LEASE} SET expires = now() + %(ttl)s * interval '1 millisecond' "
            "WHERE owner = %(me)s RETURNING unit, epoch",
            {"me": self.name, "ttl": self.ttl_ms},
        ).fetchall()
        return dict(rows)

    def survey(self, units: Collection[str]) -> Survey:
        """Who holds each of ``units`` (rows made for new ones), and who is alive. A peer is
        alive while it was seen within a TTL and its lease session still holds its lock; a
        lease whose owner is not alive, or that expired, is free."""
        connection = self._connect()
        units = sorted(units)
        connection.execute(
            f"INSERT INTO {_LEASE} (unit, owner, epoch, since, expires) "
            "SELECT unit, '', 0, now(), now() FROM unnest(%s::text[]) AS unit "
            "ON CONFLICT (unit) DO NOTHING",
            [units],
        )
        leases = connection.execute(
            f"SELECT unit, owner, epoch, expires > now() FROM {_LEASE} WHERE unit = ANY(%s)",
            [units],
        ).fetchall()
        peers = dict(connection.execute(
            f"SELECT name, address FROM {_PEER} "
            "WHERE last_seen > now() - %s * interval '1 millisecond'",
            [self.ttl_ms],
        ).fetchall())
        others = sorted(({owner for _, owner, _, _ in leases} | set(peers)) - {self.name, ""})
        dead = set(self._unlocked(connection, others))
        live = {name: address for name, address in peers.items() if name not in dead}
        live[self.name] = self.address
        held: dict[str, tuple[str, int] | None] = {}
        epochs: dict[str, int] = {}
        for unit, owner, epoch, current in leases:
            epochs[unit] = epoch
            alive = owner == self.name or (owner and owner not in dead)
            held[unit] = (owner, epoch) if current and alive else None
        return Survey(held=held, epochs=epochs, live=live)

    @staticmethod
    def _unlocked(connection: psycopg.Connection[Any], names: list[str]) -> list[str]:
        """Which of ``names`` no session holds the peer lock of (dead peers): each lock that
        could be taken is let go at once."""
        if not names:
            return []
        free = [name for (name,) in connection.execute(
            "SELECT name FROM unnest(%s::text[]) AS name "
            "WHERE pg_try_advisory_lock(%s, hashtext(name))",
            [names, _PEER_LOCK],
        ).fetchall()]
        if free:
            connection.execute(
                "SELECT pg_advisory_unlock(%s, hashtext(name)) FROM unnest(%s::text[]) AS name",
                [_PEER_LOCK, free],
            )
        return free

    def take(self, unit: str, *, epoch: int) -> int | None:
        """Take ``unit`` if its lease is still at ``epoch`` (as surveyed): its new epoch, or
        None when another peer got there first. The UPDATE waits for a ledger write of the
        unit under way (the fence share-locks the row), so every write of the old epoch has
        either committed before this returns or will be refused."""
        row = self._connect().execute(
            f"UPDATE {_LEASE} SET owner = %(me)s, epoch = epoch + 1, since = now(), "
            "expires = now() + %(ttl)s * interval '1 millisecond' "
            "WHERE unit = %(unit)s AND epoch = %(epoch)s RETURNING epoch",
            {"me": self.name, "ttl": self.ttl_ms, "unit": unit, "epoch": epoch},
        ).fetchone()
        return None if row is None else row[0]

    def release(self, unit: str, *, epoch: int) -> None:
        """Hand ``unit`` on: free at once for whoever takes it next (at ``epoch`` + 1)."""
        self._connect().execute(
            f"UPDATE {_LEASE} SET owner = '', expires = now() "
            "WHERE unit = %s AND owner = %s AND epoch = %s",
            [unit, self.name, epoch],
        )

    def confirm(self, version: int) -> None:
        """Note that this peer's engines run configuration ``version``."""
        self._connect().execute(
            f"UPDATE {_PEER} SET config_version = %s WHERE name = %s", [version, self.name]
        )

    def behind(self, version: int) -> list[str]:
        """The live peers other than this one that hold a current lease and have not confirmed
        ``version`` (or a later one)."""
        rows = self._connect().execute(
            f"SELECT DISTINCT p.name FROM {_PEER} p JOIN {_LEASE} l ON l.owner = p.name "
            "WHERE p.name <> %(me)s AND p.config_version < %(version)s "
            "AND l.expires > now() "
            "AND p.last_seen > now() - %(ttl)s * interval '1 millisecond' ORDER BY p.name",
            {"me": self.name, "version": version, "ttl": self.ttl_ms},
        ).fetchall()
        return [name for (name,) in rows]

    def close(self) -> None:
        """Leave: the peer's row goes (it is no longer counted live) and the session ends,
        freeing its lock. Leases not released before are taken as a dead peer's."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            if not connection.closed and not connection.broken:
                connection.execute(f"DELETE FROM {_PEER} WHERE name = %s", [self.name])
        except psycopg.Error:
            pass  # the session's end frees the lock all the same
        finally:
            connection.close()
