"""On SQLite the server makes a token caller's allocate on its event loop too, and one writer
thread writes each group (``quotaweb.allocations.ledger_writer``): the same answers as the views,
each row committed before its answer, allocations admitted during a write sharing the next one,
a failed group undone as a whole, and the loop never waiting for the database."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, asgi_exchange, body

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="SQLite only"),
    pytest.mark.django_db(transaction=True),
]


def _token(user) -> str:
    from rest_framework.authtoken.models import Token

    return Token.objects.get_or_create(user=user)[0].key


def _database_file() -> str:
    from django.db import connection

    return connection.settings_dict["NAME"]


def _stored(key: str) -> bool:
    with sqlite3.connect(_database_file()) as database:
        return database.execute(
            "SELECT count(*) FROM allocations_allocation WHERE key = ?", [key]
        ).fetchone()[0] == 1


def _store_unknown_row(database: sqlite3.Connection, key: str) -> None:
    """A ledger row for ``key`` that the engine does not know: the writer's INSERT of it fails."""
    database.execute(
        "INSERT INTO allocations_allocation (partition, key, application_id, queue_path, "
        "\"user\", groups, resource, \"group\", created) VALUES ('default', ?, 'a', "
        "'root.eng', 'bob', '[]', '{}', '', '2026-01-01 00:00:00')",
        [key],
    )


@pytest.fixture
def on_loop(monkeypatch):
    """The lean path with allocates on the loop; the sizes of the groups the writer thread
    wrote, and the answers the loop made (the others went to a request thread)."""
    from quotaweb.allocations import ledger_writer
    from quotaweb.api import lean
    from quotaweb.asgi import django_asgi_app

    served = lean.LeanAllocations(django_asgi_app, executor=django_asgi_app.pool)
    served.answer_on_loop()
    assert isinstance(served.ledger, ledger_writer.WriterThreadLedger)
    groups: list[int] = []
    written = ledger_writer._written

    def counted(write, allocations):
        groups.append(len(allocations))
        written(write, allocations)

    monkeypatch.setattr(ledger_writer, "_written", counted)
    made: list = []
    real = lean.allocation_answer_on_loop

    async def recorded(**kwargs):
        try:
            answer = await real(**kwargs)
        except Exception as error:
            made.append(type(error).__name__)
            raise
        if answer is not None:
            made.append(answer[0])
        return answer

    monkeypatch.setattr(lean, "allocation_answer_on_loop", recorded)
    yield served, groups, made
    asyncio.run(served.ledger.close())


async def _remember(served, token: str) -> None:
    """A first allocate and its release, in threads: the token's admin is remembered after."""
    await asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("first"))
    await asgi_exchange(served, "DELETE", f"{ALLOCATIONS}/first", token=token)


def _writer_held() -> sqlite3.Connection:
    """Another connection holding SQLite's one write lock: the writer's INSERT waits for it
    (within the busy timeout)."""
    database = sqlite3.connect(_database_file(), isolation_level=None, check_same_thread=False)
    database.execute("BEGIN IMMEDIATE")
    return database


def test_allocates_on_the_loop_answer_as_the_views_and_are_committed_first(
    on_loop, admin, capped_engines
):
    from quotaweb.asgi import django_asgi_app

    served, groups, made = on_loop
    token = _token(admin)
    steps = [body("k1", memory=8 * GiB), body("k1", memory=8 * GiB), body("k2", memory=4 * GiB)]

    async def scenario():
        await _remember(served, token)
        answers = []
        for sent in steps:
            answers.append(await asgi_exchange(served, "POST", ALLOCATIONS, token=token,
                                               data=sent))
            if sent["allocationKey"] == "k1":
                assert _stored("k1")
        return answers

    lean = asyncio.run(scenario())
    # A replay of k1 and the denial of k2 are answered without a write.
    assert made == [201, 200, 409]
    assert groups == [1]
    asyncio.run(asgi_exchange(served, "DELETE", f"{ALLOCATIONS}/k1", token=token))
    views = [asyncio.run(asgi_exchange(django_asgi_app, "POST", ALLOCATIONS, token=token,
                                       data=sent)) for sent in steps]
    assert lean == views


def test_allocates_made_during_a_write_share_the_next_one_and_the_loop_runs_on(
    on_loop, admin, capped_engines
):
    served, groups, made = on_loop
    token = _token(admin)

    async def scenario():
        await _remember(served, token)
        holder = _writer_held()
        first = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k0"))
        )
        while not groups:
            await asyncio.sleep(0.005)
        others = [asyncio.ensure_future(asgi_exchange(
            served, "POST", ALLOCATIONS, token=token, data=body(f"k{n}", user=f"user{n}")
        )) for n in range(1, 6)]
        ticks, started = 0, time.monotonic()
        while time.monotonic() - started < 0.3:
            await asyncio.sleep(0.01)
            ticks += 1
        # All admitted, none answered while the first write waits, and the loop went on.
        assert capped_engines.live_count("default") == 6
        assert not any(request.done() for request in [first, *others])
        holder.execute("ROLLBACK")
        holder.close()
        return ticks, [(await request)[0] for request in [first, *others]]

    ticks, statuses = asyncio.run(scenario())
    assert ticks >= 10
    assert statuses == [201] * 6
    assert made == [201] * 6
    # Six allocations, two transactions: the first alone, the five made during it together.
    assert groups == [1, 5]
    assert all(_stored(f"k{n}") for n in range(6))


def test_a_failed_group_is_undone_as_a_whole_and_answered_500(on_loop, admin, capped_engines):
    served, groups, made = on_loop
    token = _token(admin)
    with sqlite3.connect(_database_file()) as database:
        _store_unknown_row(database, "k2")

    async def scenario():
        await _remember(served, token)
        holder = _writer_held()
        first = asyncio.ensure_future(
            asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("k0"))
        )
        while not groups:
            await asyncio.sleep(0.005)
        others = [asyncio.ensure_future(asgi_exchange(
            served, "POST", ALLOCATIONS, token=token, data=body(f"k{n}", user=f"user{n}")
        )) for n in range(1, 4)]
        await asyncio.sleep(0.2)
        assert capped_engines.live_count("default") == 4
        holder.execute("ROLLBACK")
        holder.close()
        return [(await request)[0] for request in [first, *others]]

    statuses = asyncio.run(scenario())
    assert statuses == [201, 500, 500, 500]
    assert made[1:] == ["IntegrityError"] * 3  # one failed write, its error to each
    assert {a.key for a in capped_engines.live_snapshot("default").allocations} == {"k0"}
    assert _stored("k0")
    assert not _stored("k1")
    assert not _stored("k3")


def test_a_write_past_the_busy_timeout_is_undone_and_answered_503(
    on_loop, admin, capped_engines
):
    from django.db import connections

    served, groups, made = on_loop
    token = _token(admin)

    async def scenario():
        await _remember(served, token)
        holder = _writer_held()
        try:
            return await asgi_exchange(served, "POST", ALLOCATIONS, token=token,
                                       data=body("k1"))
        finally:
            holder.execute("ROLLBACK")
            holder.close()

    # The writer thread's connection waits for the lock no longer than the busy timeout.
    timeout = connections["default"].settings_dict["OPTIONS"]["timeout"]
    started = time.monotonic()
    status, headers, answer = asyncio.run(scenario())
    assert status == 503
    assert headers[b"retry-after"] == b"2"
    assert b'"error":"database_unavailable"' in answer
    assert time.monotonic() - started < timeout + 2
    assert groups == [1]
    assert made == ["OperationalError"]  # "database is locked", in the writer thread
    assert capped_engines.live_count("default") == 0
    assert not _stored("k1")
