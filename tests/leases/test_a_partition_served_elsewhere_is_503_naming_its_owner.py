"""With leases, a peer holds engines only for the partitions it owns (``engine.owners``): a
request for a configured partition owned by another peer is 503 with Retry-After naming that
peer; one for a partition being rebuilt waits for it, within the request's bound; an unknown
partition is still 404; a slot whose lease was not renewed in time stops answering by itself."""

from __future__ import annotations

import threading
import time

import pytest

from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db


@pytest.fixture
def leased(db):
    """``CAPPED_YAML`` active and loaded as a peer does before any lease: no slot at all."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start
    from tests.configs import CAPPED_YAML

    config_apply(yaml_text=CAPPED_YAML, author=None, base_version=None)
    return engines_start(leased=True)


def test_a_partition_owned_by_another_peer_names_it(leased, admin_api):
    from quotaweb.engine.owners import ERR_NOT_OWNER

    leased.owners_note({"default": ("p2", "10.0.0.2:8000")})
    response = admin_api.post(ALLOCATIONS, body("k1"), format="json")

    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json() == {
        "error": "not_owner", "details": [], "owner": "p2", "address": "10.0.0.2:8000",
        "message": ERR_NOT_OWNER.format(partition="default", owner="p2",
                                        address="10.0.0.2:8000"),
    }


def test_an_unknown_partition_is_still_404(leased, admin_api):
    response = admin_api.post(
        "/api/v1/partitions/nope/allocations", body("k1"), format="json"
    )
    assert response.status_code == 404


def test_a_request_waits_for_a_partition_being_rebuilt(leased, admin_api):
    from quotaweb.allocations.services import ledger_restore

    leased.slot_arrive("default", epoch=0, fresh_until=time.monotonic() + 60)
    ledger_restore(partitions=["default"])
    threading.Timer(0.3, leased.slot_ready, ["default"]).start()

    started = time.monotonic()
    response = admin_api.post(ALLOCATIONS, body("k1"), format="json")
    assert response.status_code == 201
    assert time.monotonic() - started >= 0.25
    assert leased.partitions() == ["default"]


def test_a_partition_never_rebuilt_in_time_is_503_moving(leased, admin_api, settings):
    from quotaweb.engine.owners import ERR_MOVING

    settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS = 300
    leased.slot_arrive("default", epoch=0, fresh_until=time.monotonic() + 60)
    response = admin_api.post(ALLOCATIONS, body("k1"), format="json")
    assert response.status_code == 503
    assert response.json()["message"] == ERR_MOVING.format(partition="default")


def test_a_lease_not_renewed_in_time_stops_the_slot_until_it_is(leased, admin_api):
    from quotaweb.engine.owners import ERR_UNCONFIRMED

    leased.slot_arrive("default", epoch=0, fresh_until=time.monotonic() + 60)
    leased.slot_ready("default")
    assert admin_api.post(ALLOCATIONS, body("k1"), format="json").status_code == 201

    leased.leases_fresh({"default": 0}, until=time.monotonic() - 0.001)
    response = admin_api.post(ALLOCATIONS, body("k2"), format="json")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json()["error"] == "database_unavailable"
    assert ERR_UNCONFIRMED.format(partition="default") in response.json()["message"]

    leased.leases_fresh({"default": 0}, until=time.monotonic() + 60)
    assert admin_api.post(ALLOCATIONS, body("k2"), format="json").status_code == 201


def test_a_dropped_partition_is_served_elsewhere_at_once(leased, admin_api):
    leased.slot_arrive("default", epoch=0, fresh_until=time.monotonic() + 60)
    leased.slot_ready("default")
    leased.owners_note({"default": ("p2", "10.0.0.2:8000")})
    leased.slot_drop("default")

    response = admin_api.post(ALLOCATIONS, body("k1"), format="json")
    assert (response.status_code, response.json()["owner"]) == (503, "p2")
    assert leased.partitions() == []
