"""On PostgreSQL the server makes a token caller's allocate on its event loop (``LeanAllocations.
answer_on_loop``, ``services.LoopLedger``): the same answers as the views, each row committed
before its answer, and never a wait on the loop: a partition busy in a thread sends the request to
a thread, a dropped connection is replaced, a failed write is undone, and a request abandoned
while its write is under way still ends with the allocation both live and stored."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

from tests.api.allocation_support import (
    ALLOCATIONS,
    GiB,
    asgi_exchange,
    body,
    remember_token,
    token_of,
)
from tests.server_process import own_database_connection

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL"), reason="PostgreSQL only (set DATABASE_URL)"
    ),
    pytest.mark.django_db(transaction=True),
]


def _stored(key: str) -> bool:
    with own_database_connection() as database:
        return database.execute(
            "SELECT count(*) FROM allocations_allocation WHERE key = %s", [key]
        ).fetchone()[0] == 1


@pytest.fixture
def on_loop(monkeypatch):
    """The lean path with allocates on the loop, and the list of answers the loop made (the
    others went to a thread) or the errors it raised."""
    from quotaweb.api import lean
    from quotaweb.asgi import django_asgi_app

    served = lean.LeanAllocations(django_asgi_app, executor=django_asgi_app.pool)
    served.answer_on_loop()
    assert served.ledger is not None
    made: list = []
    real = lean.allocation_answer_on_loop

    async def counted(**kwargs):
        try:
            answer = await real(**kwargs)
        except Exception as error:
            made.append(type(error).__name__)
            raise
        if answer is not None:
            made.append(answer)
        return answer

    monkeypatch.setattr(lean, "allocation_answer_on_loop", counted)
    return served, made



def _store_unknown_row(connection, key: str) -> None:
    """A ledger row for ``key`` that the engine does not know, written on ``connection`` (in
    its open transaction, if it has one): the loop's INSERT of that key waits for it or fails."""
    connection.execute(
        "INSERT INTO allocations_allocation (partition, key, application_id, queue_path, "
        "\"user\", groups, resource, \"group\", created) VALUES ('default', %s, 'a', "
        "'root.eng', 'bob', '[]', '{}', '', now())",
        [key],
    )

def _run(served, scenario):
    """``scenario()`` on one event loop, the loop's ledger connection closed after it."""
    async def main():
        try:
            return await scenario()
        finally:
            await served.ledger.close()

    return asyncio.run(main())


def test_allocates_on_the_loop_answer_as_the_views_and_are_committed_first(
    on_loop, admin, capped_engines
):
    from quotaweb.asgi import django_asgi_app

    served, made = on_loop
    token = token_of(admin)
    steps = [body("k1", memory=8 * GiB), body("k1", memory=8 * GiB), body("k2", memory=4 * GiB)]

    async def scenario():
        await remember_token(served, token)
        answers = []
        for sent in steps:
            answers.append(await asgi_exchange(served, "POST", ALLOCATIONS, token=token,
                                               data=sent))
            if sent["allocationKey"] == "k1":
                assert _stored("k1")
        return answers

    lean = _run(served, scenario)
    assert [status for status, _ in made] == [201, 200, 409]
    asyncio.run(asgi_exchange(served, "DELETE", f"{ALLOCATIONS}/k1", token=token))
    views = [asyncio.run(asgi_exchange(django_asgi_app, "POST", ALLOCATIONS, token=token,
                                       data=sent)) for sent in steps]
    assert [answer[0] for answer in lean] == [201, 200, 409]
    assert lean == views


def test_a_partition_busy_in_a_thread_sends_the_allocate_to_a_thread_and_the_loop_runs_on(
    on_loop, admin, capped_engines
):
    served, made = on_loop
    token = token_of(admin)
    slot = capped_engines._slot("default")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with slot.lock:
            held.set()
            release.wait(5)

    async def scenario():
        await remember_token(served, token)
        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(5)
        request = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k1"))
        )
        ticks, started = 0, time.monotonic()
        while time.monotonic() - started < 0.3:
            await asyncio.sleep(0.01)
            ticks += 1
        assert not request.done()
        release.set()
        holder.join()
        return ticks, await request

    ticks, (status, _, _) = _run(served, scenario)
    assert status == 201
    assert ticks >= 10  # the loop went on while the request waited in a thread
    assert made == []
    assert _stored("k1")
    assert capped_engines.live_count("default") == 1


def test_a_connection_the_server_dropped_is_replaced_before_the_next_allocate(
    on_loop, admin, capped_engines
):
    served, made = on_loop
    token = token_of(admin)

    async def scenario():
        await remember_token(served, token)
        first = await asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k1"))
        loops = served.ledger._connection.info.backend_pid
        with own_database_connection() as admin_connection:
            admin_connection.execute("SELECT pg_terminate_backend(%s)", [loops])
        await asyncio.sleep(0.2)
        second = await asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k2"))
        return first[0], second[0]

    assert _run(served, scenario) == (201, 201)
    assert [status for status, _ in made] == [201, 201]
    assert _stored("k1")
    assert _stored("k2")


def test_a_failed_write_on_the_loop_is_undone_and_answered_500(
    on_loop, admin, capped_engines
):
    served, made = on_loop
    token = token_of(admin)
    # A row the engine does not know: the ledger's INSERT of this key fails.
    with own_database_connection() as database:
        _store_unknown_row(database, "k1")

    async def scenario():
        await remember_token(served, token)
        return await asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k1"))

    status, _, answer = _run(served, scenario)
    assert made == ["IntegrityError"]  # the write failed on the loop, not in a thread
    assert status == 500
    assert b'"error":"internal"' in answer
    assert capped_engines.live_count("default") == 0  # k1 was undone


def test_an_allocate_abandoned_during_its_write_still_ends_live_and_stored(
    on_loop, admin, capped_engines
):
    served, _ = on_loop
    token = token_of(admin)
    blocker = own_database_connection()
    # An uncommitted row with the same key: the loop's INSERT waits on it.
    blocker.execute("BEGIN")
    _store_unknown_row(blocker, "k1")

    async def scenario():
        await remember_token(served, token)
        request = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k1"))
        )
        await asyncio.sleep(0.3)
        request.cancel()  # the client went away, say
        with pytest.raises(asyncio.CancelledError):
            await request
        blocker.execute("ROLLBACK")  # the waiting INSERT goes ahead and commits
        deadline = time.monotonic() + 5
        while not capped_engines._slot("default").commits.idle() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    try:
        _run(served, scenario)
    finally:
        blocker.close()
    assert _stored("k1")
    assert capped_engines.live_count("default") == 1


def test_a_write_under_way_is_not_taken_for_a_dropped_connection(on_loop, admin, capped_engines):
    from quotaweb.postgresql.base import has_input

    served, _ = on_loop
    ledger = served.ledger

    async def scenario():
        connection = await ledger._ready()
        # Another partition's statement, sent and answered but its answer not read yet: the
        # socket has input, as a dropped connection's has, yet the connection is busy, not dead.
        connection.pgconn.send_query(b"SELECT 1")
        while not has_input(connection.fileno()):
            await asyncio.sleep(0.01)
        kept = await ledger._ready() is connection
        connection.pgconn.consume_input()
        while connection.pgconn.get_result() is not None:
            pass
        return kept

    assert _run(served, scenario)


def test_allocates_on_the_loop_made_during_a_write_share_the_next_one(
    on_loop, admin, capped_engines, monkeypatch
):
    served, made = on_loop
    token = token_of(admin)
    inserts: list[int] = []
    real = served.ledger._insert

    async def counted(connection, rows, params):
        inserts.append(rows)
        await real(connection, rows, params)

    monkeypatch.setattr(served.ledger, "_insert", counted)
    blocker = own_database_connection()
    # An uncommitted row with the first key: the loop's first INSERT waits on it.
    blocker.execute("BEGIN")
    _store_unknown_row(blocker, "k0")

    async def scenario():
        await remember_token(served, token)
        first = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k0"))
        )
        while not inserts:
            await asyncio.sleep(0.01)
        others = [asyncio.ensure_future(asgi_exchange(
            served, "POST", ALLOCATIONS, token=token, data=body(f"k{n}", user=f"user{n}")
        )) for n in range(1, 6)]
        await asyncio.sleep(0.3)
        # All admitted, none answered while the first write waits.
        assert capped_engines.live_count("default") == 6
        assert not any(request.done() for request in [first, *others])
        blocker.execute("ROLLBACK")
        return [(await request)[0] for request in [first, *others]]

    try:
        statuses = _run(served, scenario)
    finally:
        blocker.close()
    assert statuses == [201] * 6
    assert [status for status, _ in made] == [201] * 6  # all made on the loop
    # Six allocations, two transactions: the first alone, the five made during it together.
    assert inserts == [1, 5]
    assert all(_stored(f"k{n}") for n in range(6))


def test_a_failed_group_on_the_loop_undoes_its_admissions_and_no_others(
    on_loop, admin, capped_engines
):
    served, made = on_loop
    token = token_of(admin)
    blocker = own_database_connection()
    # An uncommitted row with the first key holds the first write back; a stored row the
    # engine does not know makes the group admitted meanwhile fail as a whole.
    blocker.execute("BEGIN")
    _store_unknown_row(blocker, "k0")
    with own_database_connection() as database:
        _store_unknown_row(database, "k2")

    async def scenario():
        await remember_token(served, token)
        first = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k0"))
        )
        await asyncio.sleep(0.2)
        others = [asyncio.ensure_future(asgi_exchange(
            served, "POST", ALLOCATIONS, token=token, data=body(f"k{n}", user=f"user{n}")
        )) for n in range(1, 4)]
        await asyncio.sleep(0.3)
        assert capped_engines.live_count("default") == 4
        blocker.execute("ROLLBACK")
        return [(await request)[0] for request in [first, *others]]

    try:
        statuses = _run(served, scenario)
    finally:
        blocker.close()
    assert statuses == [201, 500, 500, 500]
    assert made[1:] == ["IntegrityError"] * 3  # one failed write, its error to each
    assert {a.key for a in capped_engines.live_snapshot("default").allocations} == {"k0"}
    assert _stored("k0")
    assert not _stored("k1")
    assert not _stored("k3")
