"""The loop's ledger write reads PostgreSQL's answer from a loop callback, each time with what
has arrived (``ledger._read_answer``). An answer can arrive in pieces: the statement's error in
one, the end of the answer in a later one. The write must fail even then, never succeed because
the last piece carried no error."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg import pq

from quotaweb.allocations.ledger import _read_answer


class _Refused:
    """A result PostgreSQL sends for a duplicate key."""

    status = pq.ExecStatus.FATAL_ERROR

    def error_field(self, field):
        return b"23505" if field == pq.DiagnosticField.SQLSTATE else None

    def get_error_message(self, encoding="utf-8"):
        return "duplicate key value violates unique constraint"


class _Done:
    status = pq.ExecStatus.COMMAND_OK


class _PiecewiseConnection:
    """A connection whose libpq answer comes in ``pieces``: each call to the reader sees one,
    a list of the results ``get_result`` gives before it is busy again (None ends the answer)."""

    def __init__(self, pieces: list[list]) -> None:
        self.pieces = pieces
        self.ready: list = []
        self.pgconn = self
        self.info = self
        self.encoding = "utf-8"

    def consume_input(self) -> None:
        self.ready = list(self.pieces.pop(0))

    def is_busy(self) -> bool:
        return not self.ready

    def get_result(self):
        return self.ready.pop(0)


def _outcome(pieces: list[list]):
    async def read() -> None:
        done = asyncio.get_running_loop().create_future()
        connection, errors = _PiecewiseConnection(pieces), []
        while not done.done():
            _read_answer(connection, done, errors)
        return await done

    return asyncio.run(read())


def test_an_error_whose_answer_ends_in_a_later_piece_still_fails_the_write():
    with pytest.raises(psycopg.errors.UniqueViolation):
        _outcome([[_Refused()], [None]])


def test_an_error_and_its_end_in_one_piece_fail_the_write():
    with pytest.raises(psycopg.errors.UniqueViolation):
        _outcome([[_Refused(), None]])


def test_a_statement_done_in_pieces_succeeds_once_its_answer_ends():
    assert _outcome([[], [_Done()], [None]]) is None
