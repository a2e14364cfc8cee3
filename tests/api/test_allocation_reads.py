"""Reads of the allocation API: live allocations with filters and pages, headroom ("will it
fit?", changing nothing), and the events feed."""

from __future__ import annotations

import pytest

from quotaweb.api.views import allocations as views
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

PARTITION = "/api/v1/partitions/default"


@pytest.fixture
def three(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("a1", memory=GiB), format="json")
    admin_api.post(ALLOCATIONS, body("b1", user="bob", app="app-b", groups=[],
                                     queue="root.eng.web"), format="json")
    admin_api.post(ALLOCATIONS, body("c1", user="carol", app="app-c", queue="root.ops"),
                   format="json")


def _keys(response) -> list[str]:
    return [item["allocationKey"] for item in response.json()["results"]]


def test_filters_by_user_group_queue_and_application(viewer_api, three):
    assert _keys(viewer_api.get(ALLOCATIONS)) == ["a1", "b1", "c1"]
    assert _keys(viewer_api.get(ALLOCATIONS, {"user": "bob"})) == ["b1"]
    # carol's application is in root.ops, where no limit names ml: it counts against no group.
    assert _keys(viewer_api.get(ALLOCATIONS, {"group": "ml"})) == ["a1"]
    assert _keys(viewer_api.get(ALLOCATIONS, {"queue": "root.eng"})) == ["a1", "b1"]
    assert _keys(viewer_api.get(ALLOCATIONS, {"application": "app-c"})) == ["c1"]
    first = viewer_api.get(ALLOCATIONS).json()["results"][0]
    assert first | {"created": "-"} == {
        "allocationKey": "a1", "applicationId": "app-1", "queuePath": "root.eng",
        "user": "alice", "groups": ["ml"], "group": "ml", "resource": {"memory": GiB},
        "created": "-",
    }


def test_pages(viewer_api, three):
    page = viewer_api.get(ALLOCATIONS, {"per_page": "2", "page": "2"}).json()
    assert (page["count"], page["page"], page["pages"]) == (3, 2, 2)
    assert [item["allocationKey"] for item in page["results"]] == ["c1"]
    for bad in ({"per_page": "0"}, {"per_page": "5000"}, {"page": "x"}):
        response = viewer_api.get(ALLOCATIONS, bad)
        assert response.status_code == 400
        assert response.json()["error"] == "bad_request"


def test_headroom_answers_without_changing_anything(viewer_api, three, capped_engines):
    before = capped_engines.users_usage("default")
    response = viewer_api.get(f"{PARTITION}/headroom", {
        "queuePath": "root.eng", "user": "alice", "groups": "ml", "applicationId": "app-9",
    })
    assert response.status_code == 200
    # alice: 10Gi cap, 1Gi used; the ml group: 16Gi cap, 1Gi used; root.eng: 100Gi, 2Gi used.
    assert response.json() == {"headroom": {"memory": 9 * GiB, "vcore": 100_000},
                               "canRunApp": True}
    assert capped_engines.users_usage("default") == before
    unlimited = viewer_api.get(f"{PARTITION}/headroom", {
        "queuePath": "root.ops", "user": "dave", "applicationId": "x",
    })
    assert unlimited.json() == {"headroom": None, "canRunApp": True}


def test_headroom_needs_its_parameters(viewer_api, three):
    response = viewer_api.get(f"{PARTITION}/headroom", {"user": "alice"})
    assert response.status_code == 400
    assert response.json()["message"] == views.ERR_HEADROOM_PARAMS


def test_events_tell_allocations_releases_and_denials(admin_api, viewer_api, three):
    admin_api.post(ALLOCATIONS, body("a2", memory=20 * GiB), format="json")  # denied
    admin_api.delete(f"{ALLOCATIONS}/b1")
    feed = viewer_api.get(f"{PARTITION}/events").json()
    assert [(e["seq"], e["type"], e["allocationKey"]) for e in feed["events"]] == [
        (1, "allocated", "a1"), (2, "allocated", "b1"), (3, "allocated", "c1"),
        (4, "denied", "a2"), (5, "released", "b1"),
    ]
    denied = feed["events"][3]
    assert denied["reason"] == "userQuota"
    assert "alice" in denied["message"]
    assert (feed["last"], feed["oldest"]) == (5, 1)
    later = viewer_api.get(f"{PARTITION}/events", {"after": "3"}).json()["events"]
    assert [e["seq"] for e in later] == [4, 5]
    assert viewer_api.get(f"{PARTITION}/events", {"after": "-1"}).status_code == 400


def test_unknown_partition_reads_are_404(viewer_api, capped_engines):
    for url in ("/api/v1/partitions/nope/allocations", "/api/v1/partitions/nope/events"):
        assert viewer_api.get(url).status_code == 404
