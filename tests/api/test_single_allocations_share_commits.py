"""Single allocations of a partition share their ledger commits (``quotaweb.engine.commits``):
allocations admitted while one write is under way go to the database together in the next; no
answer comes before its own row is committed; a failed write undoes exactly its own admissions
(not those of the write after it) and raises the database's error to each of them; and after
allocates, retries and releases from many threads with writes failing at random, the engine holds
exactly what the ledger holds."""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict

import pytest
from django.db import OperationalError, connection

from quotaweb.allocations import services
from quotaweb.allocations.models import Allocation
from quotaweb.engine.outcomes import AllocationNotFound, KeyConflict, PartitionBusy
from tests.api.allocation_support import GiB, body, used

pytestmark = pytest.mark.django_db(transaction=True)

USERS = ["alice", "bob", "carol", "dave"]


class Writes:
    """The ledger's writes, counted, each held at its gate (if any) and failed on request."""

    def __init__(self, monkeypatch) -> None:
        self.rows: list[tuple[list[str], list[str]]] = []
        self.gates: dict[int, threading.Event] = {}
        self.failing: set[int] = set()
        self.fail_at_random = 0.0
        self.random = random.Random(0)
        self._lock = threading.Lock()
        real = services._ledger_write

        def ledger_write(partition):
            write = real(partition)

            def counted(stored, deleted):
                with self._lock:
                    number = len(self.rows)
                    self.rows.append(([a.key for a in stored], list(deleted)))
                    fail = number in self.failing or self.random.random() < self.fail_at_random
                gate = self.gates.get(number)
                if gate is not None:
                    assert gate.wait(10)
                if fail:
                    raise OperationalError(f"write {number} failed on purpose")
                write(stored, deleted)

            return counted

        monkeypatch.setattr(services, "_ledger_write", ledger_write)

    def allocations(self) -> list[list[str]]:
        """The rows of each write of allocations, in order."""
        return [stored for stored, _ in self.rows if stored]


def _allocate(key: str, answers: dict, **fields) -> threading.Thread:
    def run() -> None:
        try:
            answers[key] = services.allocation_create(
                partition="default", request=services.allocation_request(body(key, **fields))
            )
        except Exception as error:
            answers[key] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _open_rows(gateway) -> int:
    group = gateway._slot("default").commits._open
    return 0 if group is None else len(group.rows)


def _stored() -> set[str]:
    return set(Allocation.objects.values_list("key", flat=True))


def _engine_agrees_with_the_ledger(gateway) -> None:
    live = {a.key for a in gateway.live_snapshot("default").allocations}
    assert live == _stored()
    stored: dict[str, int] = defaultdict(int)
    for row in Allocation.objects.all():
        stored[row.user] += row.resource["memory"]
    for user in USERS:
        assert used(user).get("memory", 0) == stored[user]


def test_allocations_admitted_during_a_write_share_the_next_one(monkeypatch, capped_engines):
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    answers: dict = {}
    threads = [_allocate("k0", answers)]
    _until(lambda: len(writes.rows) == 1)
    threads += [_allocate(f"k{n}", answers, user=USERS[n % 4], app=f"app-{n}")
                for n in range(1, 8)]
    _until(lambda: _open_rows(capped_engines) == 7)
    writes.gates[0].set()
    for thread in threads:
        thread.join(10)
    assert all(answers[f"k{n}"].allowed for n in range(8))
    # Eight allocations, two transactions: the first alone, the seven that came during it.
    first, shared = writes.allocations()
    assert first == ["k0"]
    assert sorted(shared) == [f"k{n}" for n in range(1, 8)]
    _engine_agrees_with_the_ledger(capped_engines)


def test_no_answer_comes_before_its_own_rows_are_committed(monkeypatch, capped_engines):
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    writes.gates[1] = threading.Event()
    answers: dict = {}
    first = _allocate("k0", answers)
    _until(lambda: len(writes.rows) == 1)
    second = _allocate("k1", answers, user="bob")
    _until(lambda: _open_rows(capped_engines) == 1)
    time.sleep(0.2)
    # Both admitted (the engine counts them), neither stored, neither answered.
    assert capped_engines.live_count("default") == 2
    assert answers == {}
    assert _stored() == set()
    writes.gates[0].set()
    first.join(10)
    assert answers["k0"].allowed
    assert _stored() == {"k0"}
    # The second's write is under way but not committed: still no answer.
    _until(lambda: len(writes.rows) == 2)
    time.sleep(0.2)
    assert "k1" not in answers
    writes.gates[1].set()
    second.join(10)
    assert answers["k1"].allowed
    assert _stored() == {"k0", "k1"}


def test_a_retry_of_an_allocation_still_being_written_waits_for_it(monkeypatch, capped_engines):
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    answers: dict = {}
    first = _allocate("k0", answers)
    _until(lambda: len(writes.rows) == 1)
    again: dict = {}
    retry = _allocate("k0", again)
    time.sleep(0.2)
    assert answers == {}
    assert again == {}
    writes.gates[0].set()
    first.join(10)
    retry.join(10)
    assert answers["k0"].allowed
    assert not answers["k0"].replayed
    # Answered from the committed row, after it was committed.
    assert again["k0"].allowed
    assert again["k0"].replayed
    assert len(writes.allocations()) == 1


def test_a_failed_write_undoes_exactly_its_own_admissions(monkeypatch, capped_engines):
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    writes.gates[1] = threading.Event()
    writes.failing.add(1)
    answers: dict = {}
    threads = [_allocate("first", answers)]
    _until(lambda: len(writes.rows) == 1)
    # Two admitted during the first write: they share the second, which fails ...
    threads += [_allocate("failed-1", answers, user="bob"),
                _allocate("failed-2", answers, user="bob", app="app-2")]
    _until(lambda: _open_rows(capped_engines) == 2)
    writes.gates[0].set()
    _until(lambda: len(writes.rows) == 2)
    # ... and one admitted while the failing write is under way goes in the third, unaffected.
    threads.append(_allocate("after", answers, user="bob", app="app-3"))
    _until(lambda: _open_rows(capped_engines) == 1)
    writes.gates[1].set()
    for thread in threads:
        thread.join(10)
    assert [sorted(rows) for rows in writes.allocations()] == [
        ["first"], ["failed-1", "failed-2"], ["after"]
    ]
    # The database's own error, to each allocation of the failed write.
    assert isinstance(answers["failed-1"], OperationalError)
    assert answers["failed-1"] is answers["failed-2"]
    assert answers["first"].allowed
    assert answers["after"].allowed
    assert _stored() == {"first", "after"}
    _engine_agrees_with_the_ledger(capped_engines)
    assert used("bob") == {"memory": GiB}


def test_a_release_of_an_allocation_still_being_written_waits_for_it(
    monkeypatch, capped_engines
):
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    answers: dict = {}
    first = _allocate("k0", answers)
    _until(lambda: len(writes.rows) == 1)
    released: list = []
    release = threading.Thread(target=lambda: (released.append(
        services.allocation_release(partition="default", key="k0")), connection.close()))
    release.start()
    time.sleep(0.2)
    assert released == []
    assert answers == {}
    writes.gates[0].set()
    first.join(10)
    release.join(10)
    assert answers["k0"].allowed
    assert released[0].key == "k0"
    # The INSERT committed before the DELETE ran: nothing is left behind.
    assert writes.rows == [(["k0"], []), ([], ["k0"])]
    assert _stored() == set()
    _engine_agrees_with_the_ledger(capped_engines)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_engine_holds_what_the_ledger_holds_after_concurrent_work_and_failed_writes(
    monkeypatch, capped_engines, seed
):
    writes = Writes(monkeypatch)
    writes.random = random.Random(seed)
    writes.fail_at_random = 0.2
    acknowledged: dict[int, set[str]] = {}

    def client(number: int) -> None:
        rng = random.Random(seed * 100 + number)
        mine: set[str] = acknowledged.setdefault(number, set())
        try:
            for step in range(40):
                roll = rng.random()
                if mine and roll < 0.3:
                    key = rng.choice(sorted(mine))
                    try:
                        services.allocation_release(partition="default", key=key)
                        mine.discard(key)
                    except (OperationalError, PartitionBusy):
                        pass
                    continue
                # A retry of one of its own (answered again, or admitted afresh if it failed).
                key = (rng.choice(sorted(mine)) if mine and roll < 0.4
                       else f"c{number}-{step}")
                user = USERS[sum(map(ord, key)) % len(USERS)]
                request = services.allocation_request(
                    body(key, user=user, app=f"{user}-app", memory=GiB)
                )
                try:
                    admission = services.allocation_create(partition="default", request=request)
                except (OperationalError, KeyConflict, AllocationNotFound, PartitionBusy):
                    continue
                if admission.allowed:
                    mine.add(key)
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert any(len(stored) > 1 for stored in writes.allocations()), "no write was shared"
    # Every acknowledged, unreleased allocation is stored, and nothing else is.
    assert _stored() == set().union(*acknowledged.values())
    _engine_agrees_with_the_ledger(capped_engines)
