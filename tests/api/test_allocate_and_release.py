"""Allocate and release through the API: admission and increase in one step, stored in the
ledger before the answer, idempotent by allocation key, released exactly."""

from __future__ import annotations

import json

import pytest

from quotaweb.engine.gateway import ERR_PARTITION
from quotaweb.engine.outcomes import ERR_KEY_CONFLICT
from tests.api.allocation_support import ALLOCATIONS, GiB, body, ledger, used

pytestmark = pytest.mark.django_db


def test_an_accepted_allocation_is_stored_and_counted(admin_api, capped_engines):
    response = admin_api.post(ALLOCATIONS, body("k1"), format="json")
    assert response.status_code == 201
    assert response.json() == {"allowed": True, "allocationKey": "k1", "group": "ml"}
    assert used("alice") == {"memory": GiB}
    assert ledger() == {"k1": {"memory": GiB}}


def test_a_retry_with_the_same_body_is_not_counted_twice(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    again = admin_api.post(ALLOCATIONS, body("k1"), format="json")
    assert again.status_code == 200
    assert again.json() == {"allowed": True, "allocationKey": "k1", "group": "ml"}
    assert used("alice") == {"memory": GiB}
    assert len(ledger()) == 1


def test_the_same_key_with_another_body_is_a_conflict(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    response = admin_api.post(ALLOCATIONS, body("k1", memory=2 * GiB), format="json")
    assert response.status_code == 409
    assert response.json()["error"] == "allocation_key_conflict"
    assert response.json()["message"] == ERR_KEY_CONFLICT.format(key="k1")
    assert used("alice") == {"memory": GiB}


def test_a_denial_says_why_with_the_headroom_and_changes_nothing(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1", memory=8 * GiB), format="json")
    response = admin_api.post(ALLOCATIONS, body("k2", memory=4 * GiB), format="json")
    assert response.status_code == 409
    denied = response.json()
    assert denied["allowed"] is False
    assert denied["reason"] == "userQuota"
    assert denied["headroom"] == {"memory": 2 * GiB, "vcore": 100_000}
    assert "alice" in denied["message"]
    assert used("alice") == {"memory": 8 * GiB}
    assert set(ledger()) == {"k1"}


def test_the_application_cap_denies_a_third_application(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("a", app="app-1"), format="json")
    admin_api.post(ALLOCATIONS, body("b", app="app-2"), format="json")
    response = admin_api.post(ALLOCATIONS, body("c", app="app-3"), format="json")
    assert (response.status_code, response.json()["reason"]) == (409, "maxApplications")


def test_release_takes_the_usage_back_and_deletes_the_row(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    admin_api.post(ALLOCATIONS, body("k2", memory=2 * GiB), format="json")
    response = admin_api.delete(f"{ALLOCATIONS}/k1")
    assert response.status_code == 204
    assert used("alice") == {"memory": 2 * GiB}
    assert set(ledger()) == {"k2"}
    assert admin_api.delete(f"{ALLOCATIONS}/k1").status_code == 404


def test_keys_with_slashes_are_released_too(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("job/7/task:0"), format="json")
    assert admin_api.delete(f"{ALLOCATIONS}/job/7/task:0").status_code == 204
    assert ledger() == {}


def test_releasing_an_application_releases_all_its_allocations(admin_api, capped_engines):
    for key in ("t1", "t2", "t3"):
        admin_api.post(ALLOCATIONS, body(key), format="json")
    admin_api.post(ALLOCATIONS, body("other", app="app-2"), format="json")
    response = admin_api.delete("/api/v1/partitions/default/applications/app-1")
    assert response.status_code == 200
    assert response.json() == {"released": ["t1", "t2", "t3"]}
    assert set(ledger()) == {"other"}
    assert used("alice") == {"memory": GiB}
    assert admin_api.delete("/api/v1/partitions/default/applications/app-1").status_code == 404


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"allocationKey": ""}, "allocationKey"),
        ({"user": 7}, "user"),
        ({"groups": "ml"}, "groups"),
        ({"resource": {"memory": -1}}, "resource"),
        ({"resource": {"memory": 2**63}}, "resource"),
        ({"resource": {"memory": 1.5}}, "resource"),
        ({"resource": []}, "resource"),
        ({"queuePath": None}, "queuePath"),
        ({"applicationId": "app\x00"}, "applicationId"),
        ({"groups": ["m\x00l"]}, "groups"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(admin_api, capped_engines, change, field):
    response = admin_api.post(ALLOCATIONS, {**body("k1"), **change}, format="json")
    assert response.status_code == 400
    assert [detail["field"] for detail in response.json()["details"]] == [field]
    assert ledger() == {}


@pytest.mark.parametrize("field", ["allocationKey", "applicationId", "user", "groups", "resource"])
def test_a_lone_surrogate_in_any_text_is_400_naming_the_field(admin_api, capped_engines, field):
    # JSON can spell one (\ud800) though no database can store it: it used to fail at the
    # ledger, as a 500.
    sent = {**body("k1"), "groups": ["ml"], "resource": {"memory": 1}}
    sent[field] = {"groups": ["m@l"], "resource": {"mem@ry": 1}}.get(field, "a@b")
    text = json.dumps(sent).replace("@", "\\ud800")
    response = admin_api.post(ALLOCATIONS, text, content_type="application/json")
    assert response.status_code == 400
    assert [detail["field"] for detail in response.json()["details"]] == [field]
    assert capped_engines.live_count("default") == 0
    assert ledger() == {}


def test_a_bad_queue_path_or_user_name_is_400(admin_api, capped_engines):
    for change in ({"queuePath": "eng.ml"}, {"user": "bad name!"}):
        response = admin_api.post(ALLOCATIONS, {**body("k1"), **change}, format="json")
        assert response.status_code == 400
        assert response.json()["error"] == "bad_request"
    assert ledger() == {}


def test_malformed_json_is_400(admin_api, capped_engines):
    response = admin_api.post(ALLOCATIONS, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"


def test_an_unknown_partition_is_404(admin_api, capped_engines):
    response = admin_api.post("/api/v1/partitions/nope/allocations", body("k1"), format="json")
    assert response.status_code == 404
    assert response.json()["message"] == ERR_PARTITION.format(partition="nope")


def test_viewers_read_but_cannot_allocate_and_strangers_get_401(viewer_api, capped_engines, client):
    assert viewer_api.post(ALLOCATIONS, body("k1"), format="json").status_code == 403
    assert viewer_api.get(ALLOCATIONS).status_code == 200
    anonymous = client.post(ALLOCATIONS, body("k1"), content_type="application/json")
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"] == "Token"
    assert ledger() == {}


def test_a_drf_token_authenticates(admin, capped_engines, client):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=admin)
    response = client.post(
        ALLOCATIONS, body("k1"), content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token.key}",
    )
    assert response.status_code == 201
