"""An application's ``stateLog`` (``StateDAOInfo``: ``time`` in nanoseconds, ``applicationState``)
follows its allocations made through the API: ``Accepted`` and ``Running`` when its first
allocation is committed, nothing more for later ones, ``Completed`` when its last is released
(the partition-wide read still finds it, with ``finishedTime``), and a new life when it
allocates again. After a restart a live application's log starts at its oldest stored
allocation. Times lie between the moments around the calls that made them."""

from __future__ import annotations

import time

import pytest

from quotaweb.allocations.applications import nanoseconds
from quotaweb.allocations.models import Allocation
from quotaweb.core.services import engines_start
from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db

APP = "/ws/v1/partition/default/application/app-1"


def _allocate(client, key: str) -> tuple[int, int]:
    """Allocate ``key`` for app-1; the moments (ns) just before and after the call."""
    before = time.time_ns()
    response = client.post(ALLOCATIONS, body(key), format="json")
    assert response.status_code == 201, response.json()
    return before, time.time_ns()


def _log(client) -> list[tuple[str, int]]:
    log = client.get(APP).json()["stateLog"]
    for entry in log:
        assert set(entry) == {"time", "applicationState"}
        assert type(entry["time"]) is int
        assert type(entry["applicationState"]) is str
    return [(entry["applicationState"], entry["time"]) for entry in log]


def test_the_first_allocation_accepts_and_runs_the_application(
    admin_api, viewer_token, capped_engines
):
    before, after = _allocate(admin_api, "k1")
    _allocate(admin_api, "k2")

    log = _log(viewer_token)
    assert [state for state, _ in log] == ["Accepted", "Running"]
    assert all(before <= moment <= after for _, moment in log)
    app = viewer_token.get(APP).json()
    assert app["applicationState"] == "Running"
    assert "finishedTime" not in app


def test_the_last_release_completes_it(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1")
    _allocate(admin_api, "k2")
    admin_api.delete(f"{ALLOCATIONS}/k1")
    assert [state for state, _ in _log(viewer_token)] == ["Accepted", "Running"]

    before = time.time_ns()
    assert admin_api.delete(f"{ALLOCATIONS}/k2").status_code == 204
    after = time.time_ns()

    app = viewer_token.get(APP).json()
    log = _log(viewer_token)
    assert [state for state, _ in log] == ["Accepted", "Running", "Completed"]
    # Oldest first, each no earlier than the one before.
    assert [moment for _, moment in log] == sorted(moment for _, moment in log)
    assert before <= log[-1][1] <= after
    assert app["applicationState"] == "Completed"
    assert app["finishedTime"] == log[-1][1]
    assert app["submissionTime"] == log[0][1]
    assert app["queueName"] == "root.eng"
    assert app["user"] == "alice"
    assert "allocations" not in app


def test_an_application_released_whole_completes_once(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1")
    _allocate(admin_api, "k2")

    admin_api.delete("/api/v1/partitions/default/applications/app-1")

    assert [state for state, _ in _log(viewer_token)] == ["Accepted", "Running", "Completed"]


def test_allocating_again_starts_a_new_life(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1")
    admin_api.delete(f"{ALLOCATIONS}/k1")

    before, after = _allocate(admin_api, "k2")

    log = _log(viewer_token)
    assert [state for state, _ in log] == ["Accepted", "Running"]
    assert all(before <= moment <= after for _, moment in log)


def test_a_batch_keeps_the_order_of_its_operations(admin_api, viewer_token, capped_engines):
    operations = [
        {"op": "allocate", **body("k1")}, {"op": "allocate", **body("k2")},
        {"op": "release", "allocationKey": "k1"}, {"op": "release", "allocationKey": "k2"},
    ]
    response = admin_api.post(f"{ALLOCATIONS}/batch", {"operations": operations}, format="json")
    assert response.status_code == 200

    assert [state for state, _ in _log(viewer_token)] == ["Accepted", "Running", "Completed"]


def test_after_a_restart_the_log_starts_at_the_oldest_stored_allocation(
    admin_api, viewer_token, capped_engines
):
    _allocate(admin_api, "k1")
    _allocate(admin_api, "k2")
    oldest = nanoseconds(Allocation.objects.get(key="k1").created)

    engines_start()

    assert _log(viewer_token) == [("Accepted", oldest), ("Running", oldest)]
    assert viewer_token.get(APP).json()["submissionTime"] == oldest
