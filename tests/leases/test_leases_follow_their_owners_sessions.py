"""The lease table as peers use it (``leases.store``): a lease is taken at a new epoch, by one
peer only; a dead peer's units are free at once (its session's advisory lock went with it), a
stalled peer's only once its lease expired by PostgreSQL's clock; a name held by a live peer is
refused."""

from __future__ import annotations

import time

import pytest

from tests.leases.support import TTL_MS, lease_rows, lease_store, postgres_only

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]

UNITS = ["default", "gpu", "quota-trees"]


@pytest.fixture
def stores():
    opened = []

    def make(name: str, ttl_ms: int = TTL_MS):
        store = lease_store(name, ttl_ms)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


def _take_all(store) -> dict[str, int]:
    survey = store.survey(UNITS)
    return {unit: store.take(unit, epoch=survey.epochs[unit]) for unit in UNITS}


def test_a_unit_is_taken_at_the_next_epoch_by_one_peer_only(stores):
    first, second = stores("p1"), stores("p2")
    survey = first.survey(UNITS)
    assert survey.held == dict.fromkeys(UNITS)
    assert first.take("default", epoch=survey.epochs["default"]) == 1
    # p2 acts on the same (now old) look at the table: the compare-and-set refuses it.
    assert second.take("default", epoch=survey.epochs["default"]) is None
    assert lease_rows()["default"] == ("p1", 1)
    assert first.renew() == {"default": 1}
    assert second.renew() == {}


def test_a_dead_peers_units_are_free_at_once(stores):
    first, second = stores("p1"), stores("p2")
    _take_all(first)
    assert second.survey(UNITS).held["gpu"] == ("p1", 1)

    # The process died: its session ends (no goodbye, its row still says it was seen just now).
    first._connection.close()
    survey = second.survey(UNITS)
    assert survey.held == dict.fromkeys(UNITS)
    assert "p1" not in survey.live
    assert second.take("gpu", epoch=survey.epochs["gpu"]) == 2


def test_a_stalled_peers_units_are_free_only_once_expired(stores):
    first, second = stores("p1"), stores("p2")
    _take_all(first)
    # p1 is alive (its session holds its lock) but renews nothing.
    assert second.survey(UNITS).held["default"] == ("p1", 1)
    time.sleep(TTL_MS / 1000 + 0.2)
    survey = second.survey(UNITS)
    assert survey.held == dict.fromkeys(UNITS)
    assert second.take("default", epoch=survey.epochs["default"]) == 2
    # Woken up, p1's renewal no longer names the unit: it has lost it.
    assert "default" not in first.renew()


def test_a_released_unit_is_free_for_the_next_taker(stores):
    first, second = stores("p1"), stores("p2")
    first.take("gpu", epoch=first.survey(UNITS).epochs["gpu"])
    first.release("gpu", epoch=1)
    survey = second.survey(UNITS)
    assert survey.held["gpu"] is None
    assert second.take("gpu", epoch=survey.epochs["gpu"]) == 2


def test_a_name_held_by_a_live_peer_is_refused(stores):
    from quotaweb.leases.store import ERR_NAME_TAKEN, NameTaken

    stores("p1")
    with pytest.raises(NameTaken) as refused:
        stores("p1")
    assert str(refused.value) == ERR_NAME_TAKEN.format(name="p1")
