"""The ledger: the database rows of the live allocations, written as the engine admits and
releases them (``quotaweb.allocations.services`` holds the discipline). Writes from the request
threads (Django's connection: single rows, groups of single allocations, batches, COPY streams),
writes in doubt settled before the next one (``_doubted``), and the event loop's own connection
for allocations admitted there (``PostgresLoopLedger``; on SQLite
``quotaweb.allocations.ledger_writer``)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime
from typing import Any, Protocol

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone
from psycopg import pq
from psycopg.copy import LibpqWriter
from psycopg.types.json import Jsonb
from psycopg_pool import PoolTimeout

from quotaweb.allocations import doubts
from quotaweb.allocations.models import Allocation
from quotaweb.engine.gateway import engines_get
from quotaweb.engine.live import LiveAllocation
from quotaweb.engine.outcomes import (
    LedgerSend,
    LedgerStream,
    LedgerWrite,
    LoopLedgerWrite,
    ThreadLedgerWrite,
)
from quotaweb.engine.owners import fence_epoch, fence_version
from quotaweb.postgresql.base import has_input
from quotaweb.postgresql.waits import (
    ERR_NO_ANSWER,
    FLOOR_SECONDS,
    MARGIN_SECONDS,
    OutcomeUnknown,
    remaining,
)

logger = logging.getLogger(__name__)


def _ledger_write(partition: str) -> LedgerWrite:
    def write(stored: list[LiveAllocation], deleted: list[str]) -> None:
        connection = transaction.get_connection()
        with _doubted(partition, connection, [a.key for a in stored], deleted):
            if len(stored) + len(deleted) == 1 or (
                not deleted and len(stored) <= _ROWS_PER_INSERT
            ):
                # One statement outside a transaction block commits on its own before it
                # returns: as durable as BEGIN, the statement and COMMIT, with one round trip to
                # PostgreSQL instead of three (inside a caller's atomic block it joins that). A
                # group of single allocations (``quotaweb.engine.commits``) is one such INSERT.
                _ledger_delete(partition, deleted, connection)
                _ledger_insert(partition, stored, connection, one_statement=True)
                return
            with transaction.atomic():
                _ledger_delete(partition, deleted, connection)
                _ledger_insert(partition, stored, connection)

    return write


@contextmanager
def _doubted(
    partition: str, connection: Any, stored: list[str], deleted: list[str]
) -> Iterator[None]:
    """A ledger write of these keys on PostgreSQL: earlier writes of the partition in doubt are
    settled first, in the write's own transaction, so that both commit or neither does
    (``doubts``); and this write is recorded as in doubt if it fails without knowing whether it
    committed."""
    backend = doubts.backend_of(connection)
    if backend is None:
        yield
        return
    # Django may let go of the connection when the write fails: judged by this one.
    driver = connection.connection
    try:
        if not doubts.pending(partition):
            yield
            return
        gateway = engines_get()
        # Under the partition's lock (a release's or a batch's holds it already; a group's
        # write takes it here): no admission interleaves with the settling, and keys admitted
        # but not yet durable are left to their own group's write.
        with gateway.settling(partition) as unsettled, transaction.atomic():
            settled = doubts.doubts_settle(
                partition=partition, connection=connection,
                live=lambda key: gateway.live_allocation(partition, key),
                writing={*stored, *deleted, *unsettled},
                store=lambda allocations: _ledger_insert(partition, allocations, connection),
                delete=lambda keys: _ledger_delete(partition, keys, connection),
            )
            yield
        doubts.doubts_settled(partition, settled)
    except Exception as error:
        # A write that got no connection sent nothing. The one it began with was let go by
        # Django before any statement (a failed health check gives it back to the pool), and
        # its session may be another request's by now, which the settling would end.
        if doubts.outcome_unknown(driver) and not isinstance(error.__cause__, PoolTimeout):
            doubts.doubt_record(partition=partition, keys=[*stored, *deleted], backend=backend)
        raise


_INSERT_FIELDS = (
    "partition", "key", "application_id", "queue_path", "user", "groups", "resource", "group",
    "created", "priority", "node_id", "epoch", "config_version",
)
# At most 990 parameters a statement: within every SQLite build's limit (999 before 3.32).
_ROWS_PER_INSERT = 99
_KEYS_PER_DELETE = 500


# The statements batches and groups of single allocations repeat (full chunks, and up to a
# chunk's rows or keys), by database kind.
_STATEMENTS: dict[tuple[str, str, int], str] = {}


def _ledger_statement(connection: Any, kind: str, size: int = 0) -> str:
    """The ledger's ``insert`` of ``size`` rows, ``delete`` of ``size`` keys of one partition,
    ``delete_any`` of the keys in one array (PostgreSQL), or ``copy`` of rows, for
    ``connection``'s database, with the driver's own parameters (``?`` for SQLite); the sizes
    every batch repeats are built once."""
    statement = _STATEMENTS.get((connection.vendor, kind, size))
    if statement is not None:
        return statement
    meta, quote = Allocation._meta, connection.ops.quote_name
    table = quote(meta.db_table)
    columns = ", ".join(quote(meta.get_field(name).column) for name in _INSERT_FIELDS)
    if kind == "copy":
        statement = f"COPY {table} ({columns}) FROM STDIN"
    elif kind == "insert":
        row = f"({', '.join(['%s'] * len(_INSERT_FIELDS))})"
        statement = f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * size)}"
    else:
        keys = "= ANY(%s)" if kind == "delete_any" else f"IN ({', '.join(['%s'] * size)})"
        statement = (
            f"DELETE FROM {table} WHERE {quote(meta.get_field('partition').column)} = %s "
            f"AND {quote(meta.get_field('key').column)} {keys}"
        )
        if connection.vendor == "postgresql":
            # The fence (``quotaweb.leases``): a deleted row does not say who deleted it, so
            # the statement checks the deleter's epoch itself, once (a subquery is evaluated
            # before any row is read), share-locking the lease row until it commits.
            statement += " AND (SELECT quotaweb_fence(%s, %s))"
    if connection.vendor == "sqlite":
        statement = statement.replace("%s", "?")
    if size <= _ROWS_PER_INSERT or size == _KEYS_PER_DELETE:
        _STATEMENTS[connection.vendor, kind, size] = statement
    return statement


def _ledger_execute(connection: Any, kind: str, size: int, params: list[Any]) -> None:
    """Run the ledger's ``kind`` statement for ``size`` rows or keys on the driver's connection,
    with Django's error types kept (and no query log, which these writes never used)."""
    statement = _ledger_statement(connection, kind, size)
    connection.ensure_connection()
    with connection.wrap_database_errors:
        if connection.vendor == "sqlite":
            # Django's SQLite cursor turns every %s into ? with a regular expression on each
            # call, 0.16 ms for a statement of 900: the statement is written with ? once.
            connection.connection.execute(statement, params)
        else:
            # Django's cursor binds on the client: psycopg writes the values into the SQL text
            # and the server parses and plans it afresh. Bound by the server, and prepared once
            # per connection, a one-row write took 0.57 ms here instead of 0.76. Only one row or
            # key is prepared: its plan is the unique index whatever the table holds, where a
            # prepared DELETE of many keys kept a plan made while the table's statistics were
            # missing and scanned the whole table (176 ms for 500 keys among 10,000, not 7).
            psycopg.Cursor(connection.connection).execute(statement, params, prepare=size == 1)


def _ledger_delete(partition: str, keys: list[str], connection: Any) -> None:
    fence = [partition, fence_epoch()] if connection.vendor == "postgresql" else []
    if connection.vendor == "postgresql" and len(keys) > 1:
        # One array for all the keys: one statement, and a seventh faster than a list of 500.
        _ledger_execute(connection, "delete_any", 0, [partition, keys, *fence])
        return
    for start in range(0, len(keys), _KEYS_PER_DELETE):
        chunk = keys[start:start + _KEYS_PER_DELETE]
        _ledger_execute(connection, "delete", len(chunk), [partition, *chunk, *fence])


def _ledger_insert(
    partition: str, allocations: list[LiveAllocation], connection: Any, *,
    one_statement: bool = False,
) -> None:
    """Plain multi-row INSERTs, ``_ROWS_PER_INSERT`` rows each (COPY on PostgreSQL for more
    than one row): ``bulk_create`` spent two thirds of a 1,000-operation batch building model
    instances and preparing their values one field at a time, and SQLite's ``executemany``
    binds and steps row by row, two and a half times slower than the same rows in one
    statement. ``one_statement``: up to ``_ROWS_PER_INSERT`` rows as one INSERT, which commits
    on its own outside a transaction block (a group of single allocations)."""
    if not allocations:
        return
    if connection.vendor == "postgresql" and len(allocations) > 1 and not one_statement:
        # COPY: a 1,000-row batch in 10 ms here, where 100-row INSERTs took 70-110 ms and
        # executemany 50 ms (one row stays an INSERT: COPY costs a second round trip).
        with _ledger_copy(partition, connection) as send:
            send(allocations)
        return
    rows = _LedgerRows(partition, connection).of(allocations)
    for start in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[start:start + _ROWS_PER_INSERT]
        _ledger_execute(connection, "insert", len(chunk), [v for row in chunk for v in row])


@contextmanager
def _ledger_copy(partition: str, connection: Any) -> Iterator[LedgerSend]:
    """A COPY into the ledger, open for the block, taking allocations as they are given.

    Each part given is sent to the server at once, so that it stores one part while the engine
    admits the next. psycopg's ``write_row`` keeps rows in a 32 KiB buffer and pushes the
    driver's out only every megabyte: a streamed batch of 1,000 left the server two thirds of
    its work for after the last allocation (6 ms, against 2 ms sent part by part). Writing the
    text format here is also quicker than ``write_row``."""
    rows = _LedgerRows(partition, connection)
    with connection.cursor() as cursor, connection.wrap_database_errors:
        driver_cursor = cursor.cursor
        with driver_cursor.copy(
            _ledger_statement(connection, "copy"),
            writer=LibpqWriter(driver_cursor, flush_threshold=0),
        ) as copy:
            def send(allocations: list[LiveAllocation]) -> None:
                copy.write(_copy_text(rows.of(allocations)))

            yield send


# COPY's text format: a tab between columns, a newline after each row, and these escaped.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_COPY_TABS = len(_INSERT_FIELDS) - 1


def _copy_text(rows: list[tuple]) -> str:
    """``rows`` (every value text: ``_LedgerRows`` on PostgreSQL) in COPY's text format. Most
    rows need no escaping, which one look at the joined row tells."""
    lines = []
    for row in rows:
        line = "\t".join(row)
        if line.count("\t") != _COPY_TABS or "\\" in line or "\n" in line or "\r" in line:
            line = "\t".join(value.translate(_COPY_ESCAPES) for value in row)
        lines.append(line)
    lines.append("")
    return "\n".join(lines)


def _ledger_stream(partition: str) -> LedgerStream | None:
    """On PostgreSQL, the ledger's COPY for a batch of allocates, opened before the engine
    admits the first and committed after the last (``Gateway.batch``): the server stores each
    part on its own core while the engine, on this one, admits the next: a batch of 1,000
    allocations took 16.5 ms here instead of 21.7 stored at its end (the engine's part alone,
    9.6). SQLite's writer runs in this process: nothing would overlap, and its one write lock
    would be held for the whole batch."""
    if transaction.get_connection().vendor != "postgresql" or doubts.pending(partition):
        # With writes in doubt, the batch's rows go in one write with the settling, which
        # must know them all (``_doubted``).
        return None

    @contextmanager
    def stream() -> Iterator[LedgerSend]:
        connection = transaction.get_connection()
        # A COPY outside a transaction block is one statement: it commits when it ends, or
        # stores nothing if it fails (an error here cancels it), like the one-row INSERT; no
        # BEGIN and COMMIT round trips. Within a caller's block it takes a savepoint instead.
        joined = connection.in_atomic_block or not connection.get_autocommit()
        sent: list[str] = []
        # ``sent`` is read if the write fails: the keys sent by then are in doubt.
        with _doubted(partition, connection, sent, []), (
            transaction.atomic() if joined else nullcontext()
        ), _ledger_copy(partition, connection) as send:
            def send_and_note(allocations: list[LiveAllocation]) -> None:
                sent.extend(allocation.key for allocation in allocations)
                send(allocations)

            yield send_and_note

    return stream


class _LedgerRows:
    """Allocations as the ledger's column values (``_INSERT_FIELDS``), for one write.

    The JSON columns go through their field, which knows each database's encoding; a scheduler
    sends the same few group lists and request shapes over and over, so the first
    ``_ENCODINGS_KEPT`` distinct ones are encoded once and kept (the time every row of a write
    shares is taken once per write)."""

    def __init__(self, partition: str, connection: Any) -> None:
        self.partition, self.connection = partition, connection
        created = _CREATED.get_db_prep_save(timezone.now(), connection)
        self.created = created.isoformat() if isinstance(created, datetime) else created
        # The lease epoch of the slot this write belongs to: the database's fence checks it.
        epoch, version = fence_epoch(), fence_version()
        text = connection.vendor != "sqlite"
        self.epoch = str(epoch) if text else epoch
        # The configuration version its rows were admitted under: the configuration's fence.
        self.version = str(version) if text else version
        kept = _encodings_kept.get(connection.vendor)
        if kept is None:
            kept = _encodings_kept[connection.vendor] = ({}, {})
        self.groups, self.resources = kept

    def of(self, allocations: list[LiveAllocation]) -> list[tuple]:
        partition, created, connection, epoch, version = (
            self.partition, self.created, self.connection, self.epoch, self.version
        )
        groups_seen, resources_seen = self.groups, self.resources
        rows = []
        for a in allocations:
            groups = groups_seen.get(a.groups)
            if groups is None:
                groups = _json_value(_GROUPS, list(a.groups), connection)
                if len(groups_seen) < _ENCODINGS_KEPT:
                    groups_seen[a.groups] = groups
            shape = tuple(a.resource.items())
            resource = resources_seen.get(shape)
            if resource is None:
                resource = _json_value(_RESOURCE, dict(a.resource), connection)
                if len(resources_seen) < _ENCODINGS_KEPT:
                    resources_seen[shape] = resource
            # The priority as text, like every value here (COPY and the loop's INSERT send
            # text; SQLite stores it in the integer column as a number).
            rows.append((partition, a.key, a.application_id, a.queue_path, a.user, groups,
                         resource, a.group or "", created, str(a.priority), a.node_id, epoch,
                         version))
        return rows


def _json_value(field: Any, value: Any, connection: Any) -> Any:
    """``field``'s database value for ``value``, as text where the database takes text. On
    PostgreSQL the field gives psycopg's ``Jsonb`` wrapper, which encodes its object again for
    every row it is written in (5 ms of a 1,000-row COPY): the text it would write is made here,
    once, and the column reads it as JSON."""
    prepared = field.get_db_prep_save(value, connection)
    if isinstance(prepared, Jsonb):
        return (prepared.dumps or json.dumps)(prepared.obj)
    return prepared


# Group lists and resource shapes already encoded, by database kind; bounded, so that requests
# that all differ cannot grow them (once full, a new one is encoded wherever it comes).
_ENCODINGS_KEPT = 4096
_encodings_kept: dict[str, tuple[dict[tuple[str, ...], Any], dict[tuple, Any]]] = {}
_GROUPS = Allocation._meta.get_field("groups")
_RESOURCE = Allocation._meta.get_field("resource")
_CREATED = Allocation._meta.get_field("created")


# The one-row INSERT as the loop's connection prepares it.
_LOOP_INSERT = b"quotaweb_ledger_insert"


class LoopLedger(Protocol):
    """The ledger's write for allocations admitted on the server's event loop: None (go to a
    thread) when this loop cannot write for ``partition`` now."""

    async def write_for(self, partition: str) -> LoopLedgerWrite | ThreadLedgerWrite | None: ...

    async def close(self) -> None: ...


class PostgresLoopLedger:
    """The ledger's write for allocations admitted on the server's event loop, on PostgreSQL
    (``allocation_create_on_loop``): psycopg's asynchronous connection, of that loop alone, in
    autocommit, the one-row INSERT prepared on it as the threads' connections prepare theirs.

    Django's connections belong to threads and wait for the database there; this one lets the
    loop await the commit itself. ``write_for`` gives None (the caller goes to a thread) on
    another loop, and for a second after the database could not be reached.

    Each write goes through libpq itself (``_execute``): psycopg's own execute made a cursor, ran
    its generators and armed a timer for every statement, 60 µs of CPU on this machine where
    sending the prepared statement and reading its answer from a loop callback take 30."""

    RETRY_SECONDS = 1.0

    def __init__(self) -> None:
        # Django's connections belong to a thread, and on the loop to each request's context:
        # looked up per request, each request built a wrapper of its own. This one, made once
        # and never connected, serves for the database's operations and error types.
        self._database = connections.create_connection(DEFAULT_DB_ALIAS)
        self._statement = _ledger_statement(self._database, "insert", 1)
        self._statements: dict[int, bytes] = {}
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening = asyncio.Lock()
        # libpq takes one statement at a time: allocations of two partitions take turns.
        self._writing = asyncio.Lock()
        self._retry_at = 0.0

    async def write_for(self, partition: str) -> LoopLedgerWrite | None:
        if doubts.pending(partition):
            # Earlier writes in doubt are settled by the next write in a thread (``_doubted``).
            return None
        connection = await self._ready()
        if connection is None:
            return None
        database = self._database

        async def write(allocations: list[LiveAllocation]) -> None:
            # Every value is text (the JSON columns and the time already written as such), and
            # none holds a NUL or a lone surrogate: the request checks refuse those.
            params = [value.encode() for row in _LedgerRows(partition, database).of(
                allocations
            ) for value in row]
            backend = connection.pgconn.backend_pid
            try:
                with database.wrap_database_errors:
                    await self._bounded(connection, len(allocations), params, remaining())
            except Exception:
                if doubts.outcome_unknown(connection):
                    doubts.doubt_record(partition=partition, backend=backend,
                                        keys=[allocation.key for allocation in allocations])
                raise
            finally:
                if connection.broken or connection.closed:
                    await self._drop(connection)

        return write

    async def _bounded(
        self, connection: psycopg.AsyncConnection[Any], rows: int, params: list[bytes],
        bound: float | None,
    ) -> None:
        """The write, given up on (the connection closed: ``OutcomeUnknown``) when its answer is
        later than ``bound``, what is left of its group's budget (``waits.until``), as
        ``DeadlineConnection`` does in the threads; waiting for another partition's write
        counts."""
        if bound is None:
            async with self._writing:
                await self._insert(connection, rows, params)
            return
        bound = max(bound, FLOOR_SECONDS) + MARGIN_SECONDS
        try:
            async with asyncio.timeout(bound):
                async with self._writing:
                    await self._insert(connection, rows, params)
        except TimeoutError:
            # ``_execute`` finished the connection if its statement was under way.
            raise OutcomeUnknown(ERR_NO_ANSWER.format(seconds=bound)) from None

    async def _insert(
        self, connection: psycopg.AsyncConnection[Any], rows: int, params: list[bytes]
    ) -> None:
        """``rows`` rows in one transaction: the prepared INSERT for one, one INSERT of them
        all for a group of up to ``_ROWS_PER_INSERT`` (each commits on its own), chunks of that
        size between BEGIN and COMMIT for more."""
        if rows == 1:
            await _execute(connection, params)
            return
        if rows <= _ROWS_PER_INSERT:
            await _execute(connection, params, self._statement_of(rows))
            return
        await _execute(connection, [], b"BEGIN")
        try:
            per_row = len(_INSERT_FIELDS)
            for start in range(0, rows, _ROWS_PER_INSERT):
                size = min(_ROWS_PER_INSERT, rows - start)
                chunk = params[start * per_row:(start + size) * per_row]
                await _execute(connection, chunk, self._statement_of(size))
            await _execute(connection, [], b"COMMIT")
        except BaseException:
            if not (connection.broken or connection.closed):
                await _execute(connection, [], b"ROLLBACK")
            raise

    def _statement_of(self, rows: int) -> bytes:
        """The INSERT of ``rows`` rows, numbered for libpq (at most ``_ROWS_PER_INSERT`` kept)."""
        statement = self._statements.get(rows)
        if statement is None:
            statement = self._statements[rows] = _numbered(
                _ledger_statement(self._database, "insert", rows)
            ).encode()
        return statement

    async def _ready(self) -> psycopg.AsyncConnection[Any] | None:
        loop = asyncio.get_running_loop()
        if self._loop is not None and self._loop is not loop:
            return None
        connection = self._connection
        if connection is not None and (
            connection.closed or connection.broken
            # A connection the server dropped while idle (a restart, an idle timeout) has its
            # goodbye waiting to be read: replaced before use, as the threads' pool does. Only
            # an idle one: while another partition's write is under way, its answer may wait.
            or (connection.pgconn.transaction_status == pq.TransactionStatus.IDLE
                and has_input(connection.fileno()))
        ):
            await self._drop(connection)
            connection = None
        if connection is not None:
            return connection
        async with self._opening:
            if self._connection is None and time.monotonic() >= self._retry_at:
                params = self._database.get_connection_params()
                # Django's cursor class is a synchronous one; the writes make their own cursor.
                params.pop("cursor_factory", None)
                try:
                    connection = await psycopg.AsyncConnection.connect(**params, autocommit=True)
                    await connection.execute(
                        f"PREPARE {_LOOP_INSERT.decode()} AS {_numbered(self._statement)}"
                    )
                    self._connection = connection
                except psycopg.Error:
                    logger.warning("the event loop's ledger connection failed; requests use "
                                   "threads for %g s", self.RETRY_SECONDS, exc_info=True)
                    self._retry_at = time.monotonic() + self.RETRY_SECONDS
                    return None
                self._loop = loop
            return self._connection

    async def _drop(self, connection: psycopg.AsyncConnection[Any]) -> None:
        if self._connection is connection:
            self._connection = None
        await connection.close()

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()


def _numbered(statement: str) -> str:
    """``statement`` with its ``%s`` placeholders numbered as PostgreSQL's ``PREPARE`` takes
    them (``$1``, ``$2``, ...)."""
    first, *rest = statement.split("%s")
    return first + "".join(f"${number}{part}" for number, part in enumerate(rest, 1))


async def _execute(
    connection: psycopg.AsyncConnection[Any], params: list[bytes], statement: bytes = b""
) -> None:
    """The loop's prepared INSERT with ``params`` (or ``statement``), awaited: sent through
    libpq, its answer read by a callback of the loop while the statement is under way; the
    statement's error raised as psycopg raises it."""
    pgconn = connection.pgconn
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    fileno = pgconn.socket
    if statement:
        pgconn.send_query_params(statement, params)
    else:
        pgconn.send_query_prepared(_LOOP_INSERT, params)
    if pgconn.flush():
        # The socket's buffer was full: the rest goes out as it drains.
        loop.add_writer(fileno, _flush_rest, pgconn, done)
    loop.add_reader(fileno, _read_answer, connection, done, [])
    try:
        await done
    finally:
        loop.remove_reader(fileno)
        loop.remove_writer(fileno)
        if not done.done() or done.cancelled():
            # Cancelled with its answer still to come (the statement bound ran out, or the loop
            # is closing): the connection is in the middle of a statement and of no more use
            # (the next write replaces it, and the write is in doubt: ``doubts``). Cancelling
            # the task cancels ``done`` too, so a cancelled one is as good as unanswered.
            pgconn.finish()


def _flush_rest(pgconn: Any, done: asyncio.Future[None]) -> None:
    try:
        if not pgconn.flush():
            asyncio.get_running_loop().remove_writer(pgconn.socket)
    except psycopg.Error as exc:
        if not done.done():
            done.set_exception(exc)


def _read_answer(
    connection: Any, done: asyncio.Future[None], errors: list[psycopg.Error]
) -> None:
    """What the server has sent of the statement's answer; ``done`` once it is whole. An error
    can come in one call and the answer's end in a later one: ``errors`` keeps it until then."""
    if done.done():
        return
    pgconn = connection.pgconn
    try:
        pgconn.consume_input()
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                if errors:
                    done.set_exception(errors[0])
                else:
                    done.set_result(None)
                return
            if result.status != pq.ExecStatus.COMMAND_OK:
                errors.append(psycopg.errors.error_from_result(
                    result, encoding=connection.info.encoding
                ))
    except psycopg.Error as exc:
        # The connection is gone (``consume_input`` failed): the write fails with it.
        done.set_exception(exc)
