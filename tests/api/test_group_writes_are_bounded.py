"""Group commit within issue 24's bounded waits: a release (or a batch) waits for a group write
under way only within its budget and is then ``PartitionBusy`` (503), changing nothing; a
follower waits for its group's outcome, even past its own budget, and is answered only once its
row is durable; a group write that ends without knowing whether it committed makes every key of
the group a write in doubt, undone in the engine and settled by the partition's next write."""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.db import OperationalError, connection

from quotaweb.allocations import ledger, services
from quotaweb.engine.outcomes import PartitionBusy
from quotaweb.postgresql.waits import OutcomeUnknown, unavailable_reason
from tests.api.allocation_support import body
from tests.api.test_single_allocations_share_commits import (
    Writes,
    _allocate,
    _open_rows,
    _stored,
    _until,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _create(key: str) -> None:
    request = services.allocation_request(body(key, memory=2**20))
    assert services.allocation_create(partition="default", request=request).allowed


def test_a_release_waits_for_a_group_write_only_within_its_budget(
    monkeypatch, capped_engines, settings
):
    _create("kept")
    settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS = 300
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    answers: dict = {}
    held = _allocate("k0", answers)
    _until(lambda: len(writes.rows) == 1)

    started = time.monotonic()
    with pytest.raises(PartitionBusy):
        services.allocation_release(partition="default", key="kept")
    waited = time.monotonic() - started

    assert waited < 2
    assert capped_engines.live_allocation("default", "kept") is not None
    writes.gates[0].set()
    held.join(10)
    assert answers["k0"].allowed
    # Once the write is over, the same release goes through.
    services.allocation_release(partition="default", key="kept")
    assert _stored() == {"k0"}


def test_a_follower_is_answered_after_its_row_is_durable_even_past_its_budget(
    monkeypatch, capped_engines, settings
):
    settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS = 300
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    answers: dict = {}
    leader = _allocate("k0", answers)
    _until(lambda: len(writes.rows) == 1)
    follower = _allocate("k1", answers, user="bob")
    _until(lambda: _open_rows(capped_engines) == 1)
    # The follower's budget runs out while the write before its group's is held.
    time.sleep(0.6)
    assert "k1" not in answers
    writes.gates[0].set()
    leader.join(10)
    follower.join(10)

    assert answers["k1"].allowed
    assert _stored() == {"k0", "k1"}


@pytest.mark.skipif(not os.environ.get("DATABASE_URL"), reason="PostgreSQL only: in-doubt writes")
def test_a_group_write_of_unknown_outcome_puts_its_keys_in_doubt_and_answers_503(
    monkeypatch, capped_engines
):
    from quotaweb.allocations import doubts

    doubts.doubts_reset()
    writes = Writes(monkeypatch)
    writes.gates[0] = threading.Event()
    real_insert = ledger._ledger_insert
    in_doubt = {"k1", "k2", "k3"}

    def insert(partition, allocations, database, **options):
        if {a.key for a in allocations} == in_doubt:
            # As the client's bound does: the connection closed, the commit unknown.
            database.connection.close()
            error = OperationalError("no answer")
            error.__cause__ = OutcomeUnknown("the database did not answer within 0.5 s")
            raise error
        real_insert(partition, allocations, database, **options)

    monkeypatch.setattr(ledger, "_ledger_insert", insert)
    answers: dict = {}
    threads = [_allocate("k0", answers)]
    _until(lambda: len(writes.rows) == 1)
    threads += [_allocate(key, answers, user="bob", app=f"app-{key}") for key in sorted(in_doubt)]
    _until(lambda: _open_rows(capped_engines) == 3)
    writes.gates[0].set()
    for thread in threads:
        thread.join(10)

    try:
        assert answers["k0"].allowed
        for key in in_doubt:
            assert unavailable_reason(answers[key]) is not None, answers[key]
            assert capped_engines.live_allocation("default", key) is None
        assert doubts.doubts_of("default") == in_doubt
        # The partition's next write settles them.
        _create("next")
        assert not doubts.pending("default")
        assert _stored() == {"k0", "next"}
    finally:
        doubts.doubts_reset()
        connection.close()
