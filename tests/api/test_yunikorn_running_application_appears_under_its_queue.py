"""A user's application, allocated through ``POST /api/v1/partitions/{p}/allocations``, is a
running YuniKorn application (``ApplicationDAOInfo``) under its queue with its allocations
(``AllocationDAOInfo``): ``/queue/{q}/applications``, ``/queue/{q}/application/{a}`` and
``/application/{a}``, with YuniKorn's names, omissions and types and its 404 texts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from quotaweb.allocations.applications import nanoseconds
from quotaweb.allocations.models import Allocation
from quotaweb.api.views.yunikorn import ERR_APPLICATION_NOT_FOUND, ERR_QUEUE_NOT_FOUND
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

PARTITION = "/ws/v1/partition/default"


@pytest.fixture
def running(admin_api, capped_engines):
    """alice's app-1 with two allocations in root.eng, bob's app-2 with one."""
    sent = [
        body("k1", app="app-1", memory=2 * GiB),
        body("k2", app="app-1", memory=3 * GiB),
        body("k3", app="app-2", user="bob", groups=[], memory=GiB),
    ]
    sent[1]["resource"]["vcore"] = 500
    for one in sent:
        response = admin_api.post(ALLOCATIONS, one, format="json")
        assert response.status_code == 201, response.json()
    return capped_engines


def _created(key: str) -> int:
    return nanoseconds(Allocation.objects.get(key=key).created)


def test_the_queue_lists_its_running_applications_with_their_allocations(viewer_token, running):
    response = viewer_token.get(f"{PARTITION}/queue/root.eng/applications")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    app_1, app_2 = response.json()
    # Its state changes (times in test_yunikorn_state_log_follows_the_allocations.py).
    assert [state["applicationState"] for state in app_1.pop("stateLog")] == [
        "Accepted", "Running",
    ]
    assert app_1 == {
        "applicationID": "app-1",
        "usedResource": {"memory": 5 * GiB, "vcore": 500},
        "maxUsedResource": {"memory": 5 * GiB, "vcore": 500},
        "partition": "default",
        "queueName": "root.eng",
        "submissionTime": _created("k1"),
        "allocations": [
            {
                "allocationKey": "k1", "requestTime": _created("k1"),
                "allocationTime": _created("k1"), "resource": {"memory": 2 * GiB},
                "priority": "0", "applicationId": "app-1", "partition": "default",
                "queueName": "root.eng",
            },
            {
                "allocationKey": "k2", "requestTime": _created("k2"),
                "allocationTime": _created("k2"), "resource": {"memory": 3 * GiB, "vcore": 500},
                "priority": "0", "applicationId": "app-1", "partition": "default",
                "queueName": "root.eng",
            },
        ],
        "applicationState": "Running",
        "user": "alice",
        "groups": ["ml"],
    }
    # bob gave no groups: "groups" is left out, not empty.
    assert app_2["applicationID"] == "app-2"
    assert app_2["user"] == "bob"
    assert "groups" not in app_2


def test_times_are_nanoseconds_since_the_epoch(viewer_token, running):
    app = viewer_token.get(f"{PARTITION}/application/app-1").json()

    ns = app["submissionTime"]
    assert type(ns) is int
    assert ns % 1000 == 0  # the ledger keeps microseconds
    moment = datetime.fromtimestamp(ns // 10**9, UTC).replace(microsecond=ns // 1000 % 10**6)
    assert moment == Allocation.objects.get(key="k1").created
    assert app["submissionTime"] <= app["allocations"][1]["allocationTime"]


def test_fields_quotaweb_cannot_fill_are_left_out(viewer_token, running):
    app = viewer_token.get(f"{PARTITION}/application/app-1").json()

    # A running application has no finishedTime.
    for field in ("pendingResource", "finishedTime", "requests", "rejectedMessage",
                  "placeholderData", "hasReserved", "reservations"):
        assert field not in app, field
    for allocation in app["allocations"]:
        for field in ("nodeId", "allocationTags", "allocationDelay", "placeholder"):
            assert field not in allocation, field


def test_one_application_is_the_same_by_queue_and_by_partition(viewer_token, running):
    listed = viewer_token.get(f"{PARTITION}/queue/root.eng/applications").json()[0]
    by_queue = viewer_token.get(f"{PARTITION}/queue/root.eng/application/app-1")
    by_partition = viewer_token.get(f"{PARTITION}/application/app-1")

    assert by_queue.status_code == by_partition.status_code == 200
    assert by_queue.json() == by_partition.json() == listed


def test_a_parent_queue_holds_no_applications(viewer_token, running):
    # YuniKorn keeps applications on leaf queues: root lists none, although usage adds up there.
    assert viewer_token.get(f"{PARTITION}/queue/root/applications").json() == []


def test_a_released_application_leaves_its_queue(admin_api, viewer_token, running):
    admin_api.delete("/api/v1/partitions/default/applications/app-1")

    # As in YuniKorn, a completed application is no longer in its queue (the partition-wide
    # read still finds it: test_yunikorn_state_log_follows_the_allocations.py).
    assert [a["applicationID"] for a in viewer_token.get(
        f"{PARTITION}/queue/root.eng/applications").json()] == ["app-2"]
    response = viewer_token.get(f"{PARTITION}/queue/root.eng/application/app-1")
    assert response.status_code == 404
    assert response.json()["message"] == ERR_APPLICATION_NOT_FOUND


def test_an_application_in_a_queue_with_an_odd_name_is_reachable_percent_encoded(
    admin_api, viewer_token, running
):
    sent = body("k9", app="team/app#1", user="carol", queue="root.eng.a/b@c")
    response = admin_api.post(ALLOCATIONS, sent, format="json")
    assert response.status_code == 201, response.json()

    listed = viewer_token.get(f"{PARTITION}/queue/root.eng.a%2Fb%40c/applications").json()
    one = viewer_token.get(f"{PARTITION}/queue/root.eng.a%2Fb%40c/application/team%2Fapp%231")

    assert [app["applicationID"] for app in listed] == ["team/app#1"]
    assert one.json()["queueName"] == "root.eng.a/b@c"


@pytest.mark.parametrize(("url", "message"), [
    (f"{PARTITION}/queue/root.nowhere/applications", ERR_QUEUE_NOT_FOUND),
    (f"{PARTITION}/queue/root.nowhere/application/app-1", ERR_QUEUE_NOT_FOUND),
    (f"{PARTITION}/queue/root.eng/application/app-9", ERR_APPLICATION_NOT_FOUND),
    (f"{PARTITION}/application/app-9", ERR_APPLICATION_NOT_FOUND),
    ("/ws/v1/partition/nowhere/application/app-1", "Partition not found"),
    ("/ws/v1/partition/nowhere/queue/root.eng/applications", "Partition not found"),
])
def test_unknown_names_are_yunikorns_404(viewer_token, running, url, message):
    response = viewer_token.get(url)

    assert response.status_code == 404
    assert response.json() == {"status_code": 404, "message": message, "description": message}


def test_an_application_in_another_queue_is_not_in_this_one(admin_api, viewer_token, running):
    sent = body("k5", app="app-5", user="carol", queue="root.other")
    assert admin_api.post(ALLOCATIONS, sent, format="json").status_code == 201

    response = viewer_token.get(f"{PARTITION}/queue/root.eng/application/app-5")

    assert response.status_code == 404
    assert response.json()["message"] == ERR_APPLICATION_NOT_FOUND
    assert viewer_token.get(f"{PARTITION}/application/app-5").json()["queueName"] == "root.other"
