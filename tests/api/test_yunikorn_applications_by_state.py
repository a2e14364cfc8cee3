"""``/ws/v1/partition/{p}/applications/{state}`` as yunikorn-core answers it: ``active`` lists
the applications with live allocations (each as the partition-wide application read gives it),
``?status=`` keeps those in one active state, ``completed`` the completed applications still
kept, ``rejected`` none (quotaweb denies allocations, never applications); state and status in
any case. Another state or status is YuniKorn's 400 with its message; an unknown partition its
404."""

from __future__ import annotations

import pytest

from quotaweb.allocations.applications import ERR_ACTIVE_STATUS, ERR_APP_STATE
from quotaweb.api.errors import ERR_YUNIKORN_PARTITION
from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db

BY_STATE = "/ws/v1/partition/default/applications"


@pytest.fixture
def three_apps(admin_api, capped_engines):
    """app-1 and app-2 running (app-2 with two allocations), app-3 completed."""
    for key, app, user in (("k1", "app-1", "alice"), ("k2", "app-2", "alice"),
                           ("k3", "app-2", "alice"), ("k4", "app-3", "bob")):
        response = admin_api.post(ALLOCATIONS, body(key, app=app, user=user), format="json")
        assert response.status_code == 201, response.json()
    assert admin_api.delete(f"{ALLOCATIONS}/k4").status_code == 204
    return capped_engines


def _one(client, app: str) -> dict:
    return client.get(f"/ws/v1/partition/default/application/{app}").json()


def test_active_lists_the_running_applications_as_their_own_reads(viewer_token, three_apps):
    response = viewer_token.get(f"{BY_STATE}/active")

    assert response.status_code == 200
    assert response.json() == [_one(viewer_token, "app-1"), _one(viewer_token, "app-2")]


@pytest.mark.parametrize(("status", "apps"), [
    ("running", ["app-1", "app-2"]), ("Running", ["app-1", "app-2"]), ("accepted", []),
    ("new", []), ("completing", []), ("", ["app-1", "app-2"]),
])
def test_status_keeps_the_active_applications_in_that_state(
    viewer_token, three_apps, status, apps
):
    response = viewer_token.get(f"{BY_STATE}/ACTIVE", {"status": status})

    assert response.status_code == 200
    assert [app["applicationID"] for app in response.json()] == apps


def test_completed_lists_the_completed_applications_kept(viewer_token, three_apps):
    response = viewer_token.get(f"{BY_STATE}/completed")

    assert response.status_code == 200
    [app] = response.json()
    assert app == _one(viewer_token, "app-3")
    assert app["applicationState"] == "Completed"
    assert type(app["finishedTime"]) is int


def test_rejected_is_always_empty(viewer_token, three_apps):
    response = viewer_token.get(f"{BY_STATE}/Rejected")

    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize(("url", "status", "message"), [
    (f"{BY_STATE}/running", 400, ERR_APP_STATE),
    (f"{BY_STATE}/completed2", 400, ERR_APP_STATE),
    (f"{BY_STATE}/active?status=completed", 400, ERR_ACTIVE_STATUS),
    (f"{BY_STATE}/active?status=bogus", 400, ERR_ACTIVE_STATUS),
    ("/ws/v1/partition/nope/applications/active", 404, ERR_YUNIKORN_PARTITION),
])
def test_unknown_states_statuses_and_partitions_are_yunikorns_errors(
    viewer_token, three_apps, url, status, message
):
    response = viewer_token.get(url)

    assert response.status_code == status
    assert response.json() == {"status_code": status, "message": message, "description": message}
