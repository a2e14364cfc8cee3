"""Forests through the API (spec M5): a consumer is allocated on every tree of the forest or on
none; a rejection changes no tree; preempted consumers leave every tree; release and trials."""

from __future__ import annotations

import pytest

from tests.quotatrees.support import FORESTS, TREES, tree_document

pytestmark = pytest.mark.django_db

CONTEXT = tree_document("ContextTree", ["cpu"], [
    ("Root", None, 10), ("Org-A", "Root", 4), ("Org-B", "Root", 6), ("Org-C", "Root", 4),
    ("Context-1", "Org-A", 1), ("Context-2", "Org-A", 1), ("Context-3", "Org-B", 2),
    ("Context-4", "Org-B", 2), ("Context-5", "Org-C", 4),
], hard={"Org-B", "Context-4"})
SERVICE = tree_document("ServiceTree", ["cpu", "disk"], [
    ("Root", None, {"cpu": 16, "disk": 12}), ("Srvc-X", "Root", {"cpu": 3, "disk": 4}),
    ("Srvc-Y", "Root", {"cpu": 4, "disk": 4}), ("Srvc-Z", "Root", {"cpu": 5, "disk": 4}),
], hard={"Srvc-X"})


def job(cid, context_group, cpu, service_group, service, priority=0) -> dict:
    return {"kind": "Consumer", "spec": {"id": cid, "trees": [
        {"treeName": "ContextTree", "groupID": context_group, "request": {"cpu": cpu},
         "priority": priority},
        {"treeName": "ServiceTree", "groupID": service_group,
         "request": {"cpu": service[0], "disk": service[1]}, "priority": priority},
    ]}}


@pytest.fixture
def forest(admin_api, active_sample):
    for document in (CONTEXT, SERVICE):
        name = document["metadata"]["name"]
        assert admin_api.put(f"{TREES}/{name}", document, format="json").status_code == 201
    answer = admin_api.put(f"{FORESTS}/demo", {"trees": ["ContextTree", "ServiceTree"]},
                           format="json")
    assert answer.status_code == 200
    return admin_api


def _where(api, tree) -> dict:
    view = api.get(f"{TREES}/{tree}").json()
    return {n["name"]: (n["allocated"], n["consumers"]) for n in view["nodes"]
            if any(n["allocated"].values()) or n["consumers"]}


def test_the_forest_demo_ends_as_the_spec_says(forest):
    url = f"{FORESTS}/demo/allocations"
    assert forest.post(url, job("job-1", "Context-4", 2, "Srvc-X", (2, 1)),
                       format="json").json()["nodes"] == {"ContextTree": "Context-4",
                                                          "ServiceTree": "Srvc-X"}
    assert forest.post(url, job("job-2", "Context-2", 3, "Srvc-Y", (1, 1)),
                       format="json").json()["nodes"]["ContextTree"] == "Org-A"
    assert forest.post(url, job("job-3", "Context-3", 4, "Srvc-Z", (4, 2)),
                       format="json").json()["nodes"]["ContextTree"] == "Org-B"
    four = forest.post(url, job("job-4", "Context-2", 4, "Srvc-X", (3, 4), priority=1),
                       format="json").json()
    assert four["allocated"] is True
    assert sorted(four["preempted"]) == ["job-1", "job-2"]
    before = (_where(forest, "ContextTree"), _where(forest, "ServiceTree"))
    five = forest.post(url, job("job-5", "Context-4", 4, "Srvc-Z", (2, 8), priority=1),
                       format="json")
    assert five.status_code == 409
    assert five.json()["message"] == "Failed to allocate quota on quota designation 'ContextTree'"
    assert (_where(forest, "ContextTree"), _where(forest, "ServiceTree")) == before
    assert before == (
        {"Root": ({"cpu": 8}, []), "Org-A": ({"cpu": 4}, ["job-4"]),
         "Org-B": ({"cpu": 4}, ["job-3"])},
        {"Root": ({"cpu": 7, "disk": 6}, []), "Srvc-X": ({"cpu": 3, "disk": 4}, ["job-4"]),
         "Srvc-Z": ({"cpu": 4, "disk": 2}, ["job-3"])},
    )
    # the preempted jobs are gone from both trees, and their story says by whom
    story = forest.get("/api/v1/consumers/job-1").json()
    assert story["placements"] == {}
    assert story["events"][0]["kind"] == "preempted"
    assert story["events"][0]["preemption"]["by"] == "job-4"


def test_release_and_trials_span_every_tree(forest):
    url = f"{FORESTS}/demo/allocations"
    forest.post(url, job("job-1", "Context-4", 2, "Srvc-X", (2, 1)), format="json")
    before = (_where(forest, "ContextTree"), _where(forest, "ServiceTree"))
    trial = forest.post(f"{url}?try=1", job("t", "Context-1", 1, "Srvc-Y", (1, 1)),
                        format="json")
    assert trial.status_code == 201
    assert forest.post(f"{url}/t/undo").status_code == 204
    assert (_where(forest, "ContextTree"), _where(forest, "ServiceTree")) == before
    assert forest.delete(f"{url}/job-1").status_code == 204
    assert _where(forest, "ContextTree") == {}
    assert _where(forest, "ServiceTree") == {}


def test_a_consumer_naming_a_tree_outside_the_forest_is_a_clean_error(forest, admin_api):
    admin_api.put(f"{TREES}/other", tree_document("other", ["cpu"], [("R", None, 5)]),
                  format="json")
    document = job("x", "Context-1", 1, "Srvc-Y", (1, 1))
    document["spec"]["trees"].append({"treeName": "other", "groupID": "R",
                                      "request": {"cpu": 1}})
    answer = forest.post(f"{FORESTS}/demo/allocations", document, format="json")
    assert answer.status_code == 400
    assert "other" in answer.json()["message"]
    assert _where(forest, "ContextTree") == {}


def test_a_tree_is_in_one_forest_at_most(forest):
    answer = forest.put(f"{FORESTS}/second", {"trees": ["ContextTree"]}, format="json")
    assert answer.status_code == 409
    assert forest.put(f"{FORESTS}/third", {"trees": "ContextTree"}, format="json").status_code \
        == 400
