"""``maxUsedResource`` of an application: the largest usage per type quotaweb can vouch for,
retraced from the live allocations back through the kept events of the application (its
allocations and releases) to its first live allocation. Where the events do not reach back (a
restart restores allocations without events), it is the usage now: a lower bound."""

from __future__ import annotations

import pytest

from quotaweb.allocations.applications import max_used
from quotaweb.core.services import engines_start
from quotaweb.engine.gateway import engines_reset
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

APP = "/ws/v1/partition/default/application/app-1"
RELEASE = "/api/v1/partitions/default/allocations"


def _allocate(client, key: str, memory: int, **kwargs) -> None:
    response = client.post(ALLOCATIONS, body(key, memory=memory, **kwargs), format="json")
    assert response.status_code == 201, response.json()


def test_a_release_leaves_the_peak_above_the_usage(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1", 2 * GiB)
    _allocate(admin_api, "k2", 3 * GiB)
    assert admin_api.delete(f"{RELEASE}/k2").status_code in (200, 204)
    _allocate(admin_api, "k3", GiB)

    app = viewer_token.get(APP).json()

    assert app["usedResource"] == {"memory": 3 * GiB}
    assert app["maxUsedResource"] == {"memory": 5 * GiB}


def test_an_application_id_used_again_starts_a_new_peak(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1", 4 * GiB)
    admin_api.delete("/api/v1/partitions/default/applications/app-1")
    _allocate(admin_api, "k2", GiB)

    app = viewer_token.get(APP).json()

    # The walk back stops at the first live allocation of this application's life.
    assert app["maxUsedResource"] == {"memory": GiB}


def test_after_a_restart_the_peak_is_the_usage_now(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1", 2 * GiB)
    _allocate(admin_api, "k2", 3 * GiB)
    admin_api.delete(f"{RELEASE}/k2")
    engines_reset()
    engines_start()  # the ledger restores k1, without the events that led to it

    app = viewer_token.get(APP).json()

    assert app["usedResource"] == app["maxUsedResource"] == {"memory": 2 * GiB}


def _event(kind: str, memory: int, app: str = "app-1", queue: str = "root.eng") -> dict:
    return {"type": kind, "applicationId": app, "queuePath": queue,
            "resource": {"memory": memory}}


def test_the_walk_undoes_only_this_applications_events_in_that_queue():
    events = [
        _event("allocated", 5),                      # before the live allocation: not reached
        _event("released", 5),
        _event("allocated", 4),                      # the live one
        _event("allocated", 9, app="app-2"),         # another application
        _event("allocated", 6, queue="root.other"),  # this application, another queue
        _event("allocated", 3),
        _event("denied", 50),                        # changed nothing
        _event("released", 3),
    ]

    assert max_used({"memory": 4}, 1, events, application_id="app-1", queue="root.eng") == {
        "memory": 7,
    }
    # Over the whole partition the other queue's allocation counts too.
    assert max_used({"memory": 10}, 2, events, application_id="app-1", queue=None) == {
        "memory": 13,
    }
