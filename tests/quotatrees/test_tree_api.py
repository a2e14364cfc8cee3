"""The quota tree endpoints (api.md "Quota trees and forests"): documents become versions,
nodes are read with quota, allocated, slack and consumers, modes switch, and who may do what."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees.models import TreeVersion
from tests.quotatrees.support import TREES, body, compact, example_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def example(admin_api, active_sample):
    answer = admin_api.put(f"{TREES}/example", example_document(), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_a_document_creates_the_tree_as_version_1(admin_api, example, admin):
    assert example == {"root": "A", "dangling": [], "unplaced": [], "version": 1,
                       "created": True}
    view = admin_api.get(f"{TREES}/example").json()
    assert view["root"] == "A"
    assert view["mode"] == "normal"
    assert view["version"] == 1
    nodes = {node["name"]: node for node in view["nodes"]}
    assert nodes["C"] == {"name": "C", "parent": "A", "hard": False, "quota": {"cpu": 6},
                          "allocated": {"cpu": 0}, "slack": {"cpu": 0}, "consumers": []}
    assert TreeVersion.objects.get(tree="example").author == admin


def test_consumers_are_placed_borrow_and_are_listed(admin_api, example):
    for cid in ("a", "b", "c"):
        answer = admin_api.post(f"{TREES}/example/allocations", body(cid, "N", 1),
                                format="json")
        assert answer.status_code == 201, answer.json()
    # N is full after a and b: c borrows at H (spec M1 step c)
    assert answer.json()["node"] == "H"
    assert answer.json()["preempted"] == []
    assert compact(admin_api.get(f"{TREES}/example").json()) == {
        "A": (3, []), "C": (3, []), "H": (3, ["c"]), "N": (2, ["a", "b"]),
    }
    listed = admin_api.get(f"{TREES}/example/allocations").json()["consumers"]
    assert [(c["id"], c["node"], c["borrowing"]) for c in listed] == [
        ("a", "N", False), ("b", "N", False), ("c", "H", True),
    ]
    # a leaves: c slides down into N
    assert admin_api.delete(f"{TREES}/example/allocations/a").status_code == 204
    assert compact(admin_api.get(f"{TREES}/example").json())["N"] == (2, ["b", "c"])


def test_a_new_version_re_places_consumers_and_the_document_exports(admin_api, example):
    admin_api.post(f"{TREES}/example/allocations", body("k", "K", 4, unPreemptable=True),
                   format="json")
    document = admin_api.get(f"{TREES}/example/document").json()
    assert document["spec"]["nodes"]["K"]["quota"] == {"cpu": "1"}
    del document["spec"]["nodes"]["D"]
    del document["spec"]["nodes"]["I"]
    del document["spec"]["nodes"]["J"]
    answer = admin_api.put(f"{TREES}/example", document, format="json")
    assert answer.status_code == 200
    assert answer.json()["version"] == 2
    assert answer.json()["unplaced"] == []
    assert compact(admin_api.get(f"{TREES}/example").json())["C"] == (4, ["k"])


def test_a_rejection_is_409_and_changes_nothing(admin_api, example):
    before = admin_api.get(f"{TREES}/example").json()
    answer = admin_api.post(f"{TREES}/example/allocations", body("big", "N", 11),
                            format="json")
    assert answer.status_code == 409
    assert answer.json()["allocated"] is False
    assert answer.json()["message"] == "Failed to allocate quota on quota designation 'example'"
    assert answer.json()["steps"]
    after = admin_api.get(f"{TREES}/example").json()
    assert after["nodes"] == before["nodes"]


def test_the_same_consumer_twice_is_a_conflict(admin_api, example):
    admin_api.post(f"{TREES}/example/allocations", body("a", "N", 1), format="json")
    again = admin_api.post(f"{TREES}/example/allocations", body("a", "N", 1), format="json")
    assert again.status_code == 409
    assert "already allocated" in again.json()["message"]


def test_maintenance_forces_allocations_and_refuses_trials(admin_api, example):
    answer = admin_api.put(f"{TREES}/example/mode", {"mode": "maintenance"}, format="json")
    assert answer.status_code == 200
    assert answer.json()["mode"] == "maintenance"
    forced = admin_api.post(f"{TREES}/example/allocations", body("x", "N", 50), format="json")
    assert forced.status_code == 201
    assert forced.json()["forced"] is True
    assert compact(admin_api.get(f"{TREES}/example").json())["A"] == (50, [])
    trial = admin_api.post(f"{TREES}/example/allocations?try=1", body("y", "N", 1),
                           format="json")
    assert trial.status_code == 409
    assert admin_api.put(f"{TREES}/example/mode", {"mode": "fast"},
                         format="json").status_code == 400


def test_a_trial_is_undone_exactly(admin_api, example):
    for cid in ("a", "b"):
        admin_api.post(f"{TREES}/example/allocations", body(cid, "N", 1), format="json")
    before = admin_api.get(f"{TREES}/example").json()["nodes"]
    trial = admin_api.post(f"{TREES}/example/allocations?try=1", body("d", "N", 2, priority=1),
                           format="json")
    assert trial.status_code == 201
    assert trial.json()["trial"] is True
    assert admin_api.post(f"{TREES}/example/allocations/d/undo").status_code == 204
    assert admin_api.get(f"{TREES}/example").json()["nodes"] == before
    assert admin_api.post(f"{TREES}/example/allocations/d/undo").status_code == 409


def test_a_tree_with_consumers_cannot_be_deleted(admin_api, example):
    admin_api.post(f"{TREES}/example/allocations", body("a", "N", 1), format="json")
    refused = admin_api.delete(f"{TREES}/example")
    assert refused.status_code == 409
    assert refused.json()["message"] == "consumer(s) allocated in tree example"
    admin_api.delete(f"{TREES}/example/allocations/a")
    assert admin_api.delete(f"{TREES}/example").status_code == 204
    assert admin_api.get(f"{TREES}/example").status_code == 404


def test_viewers_read_and_only_admins_write(viewer_api, example, outsider):
    assert viewer_api.get(f"{TREES}/example").status_code == 200
    assert viewer_api.put(f"{TREES}/example/mode", {"mode": "maintenance"},
                          format="json").status_code == 403
    assert viewer_api.post(f"{TREES}/example/allocations", body("a", "N", 1),
                           format="json").status_code == 403
    assert outsider.get(f"{TREES}/example").status_code == 401


def test_a_consumer_story_says_why(admin_api, example):
    for cid in ("a", "b", "c"):
        admin_api.post(f"{TREES}/example/allocations", body(cid, "N", 1), format="json")
    story = admin_api.get("/api/v1/consumers/c").json()
    assert story["placements"]["example"]["node"] == "H"
    assert story["placements"]["example"]["reasons"]
    (placed,) = story["events"]
    assert placed["kind"] == "allocated"
    assert placed["nodes"] == {"example": "H"}
    assert any("N" in step for step in placed["steps"])
