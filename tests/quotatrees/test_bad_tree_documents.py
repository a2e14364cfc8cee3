"""Bad tree documents and consumer bodies get a clear 400 that says what and where (code, node
or consumer, JSON field), and change nothing."""

from __future__ import annotations

import copy

import pytest

from tests.quotatrees.support import TREES, body, example_document

pytestmark = pytest.mark.django_db


def _broken(change) -> dict:
    document = copy.deepcopy(example_document())
    change(document["spec"]["nodes"], document)
    return document


def _set(node, key, value):
    def change(nodes, document):
        nodes[node][key] = value
    return change


def _drop_root(nodes, document):
    nodes["A"]["parent"] = "Z"


def _second_root(nodes, document):
    nodes["B"]["parent"] = "nil"


def _cycle(nodes, document):
    nodes["A"]["parent"] = "K"


@pytest.mark.parametrize(("change", "code", "path", "field"), [
    (_set("K", "parent", "Q"), "danglingNode", "K", "spec.nodes.K.parent"),
    (_second_root, "multipleRoots", "B", "spec.nodes.B.parent"),
    (_cycle, "cycle", "A", "spec.nodes.A.parent"),
    (_set("C", "quota", {"cpu": "1000m"}), "invalidQuota", "C", "spec.nodes.C.quota.cpu"),
    (_set("C", "quota", {"cpu": "-1"}), "invalidQuota", "C", "spec.nodes.C.quota.cpu"),
    (_set("C", "quota", {"gpu": "1"}), "unknownResource", "C", "spec.nodes.C.quota.gpu"),
    (_set("C", "hard", "maybe"), "invalidHard", "C", "spec.nodes.C.hard"),
])
def test_a_broken_tree_is_a_400_naming_the_node(admin_api, active_sample, change, code, path,
                                                 field):
    answer = admin_api.put(f"{TREES}/example", _broken(change), format="json")
    assert answer.status_code == 400, answer.json()
    details = answer.json()["details"]
    assert any(d["code"] == code and d["path"] == path and d["field"] == field
               for d in details), details
    assert admin_api.get(f"{TREES}/example").status_code == 404


def test_no_root_at_all_and_the_wrong_kind(admin_api, active_sample):
    for change, code in ((_drop_root, "noRoot"),
                         (lambda nodes, doc: doc.update(kind="Tree"), "invalidKind")):
        answer = admin_api.put(f"{TREES}/example", _broken(change), format="json")
        assert answer.status_code == 400
        assert code in [d["code"] for d in answer.json()["details"]]


def test_the_address_and_the_document_must_name_the_same_tree(admin_api, active_sample):
    answer = admin_api.put(f"{TREES}/other", example_document(), format="json")
    assert answer.status_code == 400
    assert answer.json()["details"][0]["field"] == "metadata.name"


def test_a_bad_update_leaves_the_active_version(admin_api, active_sample):
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    admin_api.put(f"{TREES}/example", _broken(_cycle), format="json")
    assert admin_api.get(f"{TREES}/example").json()["version"] == 1


@pytest.mark.parametrize(("sent", "code"), [
    (body("x", "Q", 1), "invalidGroup"),
    (body("x", "C", 1), "invalidGroup"),  # C is not a leaf
    ({**body("x", "N", 1), "request": {"cpu": -1}}, "invalidRequest"),
    ({**body("x", "N", 1), "request": {"cpu": "1.5"}}, "invalidRequest"),
    ({**body("x", "N", 1), "request": {"gpu": 2}}, "unknownResource"),
    ({**body("x", "N", 1), "request": [1, 2]}, "wrongRequestLength"),
    ({"groupID": "N", "request": {"cpu": 1}}, "missingConsumerId"),
])
def test_a_bad_consumer_is_a_400_and_changes_nothing(admin_api, active_sample, sent, code):
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    before = admin_api.get(f"{TREES}/example").json()["nodes"]
    answer = admin_api.post(f"{TREES}/example/allocations", sent, format="json")
    assert answer.status_code in (400, 409), answer.json()
    found = answer.json().get("details") or []
    codes = [d["code"] for d in found] or [answer.json().get("code")]
    assert code in codes, answer.json()
    assert admin_api.get(f"{TREES}/example").json()["nodes"] == before


def test_unknown_trees_and_consumers_are_404(admin_api, active_sample):
    assert admin_api.get(f"{TREES}/nope").status_code == 404
    assert admin_api.post(f"{TREES}/nope/allocations", body("x", "N", 1),
                          format="json").status_code == 404
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    assert admin_api.delete(f"{TREES}/example/allocations/ghost").status_code == 404


def test_a_body_that_is_not_an_object_is_a_400(admin_api, active_sample):
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    assert admin_api.post(f"{TREES}/example/allocations", [1], format="json").status_code == 400
    assert admin_api.put(f"{TREES}/example", "tree", format="json").status_code == 400
