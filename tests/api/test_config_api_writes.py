"""``GET``/``PUT /api/v1/config``: the whole document read, replaced as a new version applied to
the engines, refused with every validation error, previewed with ``?dry_run=1``, and guarded by
``If-Match``/``base_version`` (412 with what changed since)."""

from __future__ import annotations

import json

import pytest

from quotaweb.api.views.config import (
    ERR_BASE_DISAGREES,
    ERR_EMPTY_BODY,
    ERR_IF_MATCH,
    ERR_NOTHING_ACTIVE,
)
from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import ERR_NO_CONFIG
from quotaweb.config.services import config_apply
from quotaweb.engine.gateway import engines_get
from tests.api.allocation_support import GiB, allocate
from tests.configs import SMALL_YAML
from trackers import validate_config

pytestmark = pytest.mark.django_db

URL = "/api/v1/config"

# alice's own limit lowered to 25Gi and a new queue: a valid change.
TIGHTER = SMALL_YAML.replace("{memory: 40Gi, vcore: \"20\"}", "{memory: 25Gi, vcore: \"20\"}")
# Three problems at once: a limit above its queue max, a bad user name, a bad quantity.
INVALID = SMALL_YAML.replace("{memory: 40Gi, vcore: \"20\"}", "{memory: 400Gi, vcore: \"20\"}") \
    .replace("users: [alice]", "users: [\"1alice\"]") \
    .replace("{memory: 60Gi}", "{memory: lots}")


def _put_yaml(client, text, **headers):
    return client.put(URL, text, content_type="application/yaml", **headers)


def _put_json(client, body, query=""):
    return client.put(URL + query, json.dumps(body), content_type="application/json")


def _alice_cap() -> dict:
    user = engines_get().user_usage("default", "alice")
    return user["queues"]["children"][0]["maxResources"]


def test_get_answers_the_active_version_with_its_yaml(viewer_token, active_small):
    response = viewer_token.get(URL)

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 1
    assert body["yaml"] == SMALL_YAML
    assert body["author"] is None
    assert body["comment"] == ""
    assert body["created"]
    assert response["ETag"] == '"1"'


def test_get_without_any_version_is_404(viewer_token):
    response = viewer_token.get(URL)

    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "message": ERR_NO_CONFIG, "details": []}


def test_put_yaml_stores_a_version_and_applies_it_to_the_engine(admin_token, admin, active_small):
    response = _put_yaml(admin_token, TIGHTER)

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 2
    assert body["author"] == admin.username
    assert body["impact"] == []
    assert response["ETag"] == '"2"'
    assert ConfigVersion.objects.get(number=2).yaml == TIGHTER
    assert _alice_cap() == {"memory": 25 * GiB, "vcore": 20_000}


def test_put_json_with_comment_and_base_version(admin_token, active_small):
    response = _put_json(admin_token, {"yaml": TIGHTER, "comment": "alice shares",
                                       "base_version": 1})

    assert response.status_code == 200
    assert response.json()["comment"] == "alice shares"
    assert ConfigVersion.objects.get(number=2).comment == "alice shares"
    assert ConfigVersion.objects.get(number=2).based_on_id == 1


def test_put_yaml_takes_a_comment_from_the_query(admin_token, active_small):
    response = admin_token.put(URL + "?comment=from+ci", TIGHTER, content_type="text/yaml")

    assert response.status_code == 200
    assert ConfigVersion.objects.get(number=2).comment == "from ci"


@pytest.mark.parametrize("content_type", ["application/x-yaml", "text/plain",
                                          "application/yaml; charset=utf-8"])
def test_put_takes_every_yaml_content_type(admin_token, active_small, content_type):
    response = admin_token.put(URL, TIGHTER, content_type=content_type)

    assert response.status_code == 200
    assert response.json()["version"] == 2


def test_the_impact_lists_who_is_above_the_new_limit(admin_token, active_small):
    allocate(active_small, queue="root.eng", app="app-1", user="alice", groups=["ml"],
             memory=30 * GiB)

    response = _put_yaml(admin_token, TIGHTER)

    assert response.status_code == 200
    assert response.json()["impact"] == [{
        "partition": "default", "kind": "user", "name": "alice", "queuePath": "root.eng",
        "usage": {"memory": 30 * GiB}, "limit": {"memory": 25 * GiB, "vcore": 20_000},
        "runningApplications": 1, "maxApplications": 4,
    }]


def test_invalid_yaml_is_400_with_every_error_and_nothing_stored(admin_token, active_small):
    expected = validate_config(INVALID)
    assert len(expected) == 3

    response = _put_yaml(admin_token, INVALID)

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid"
    assert body["details"] == expected
    for error in body["details"]:
        assert {"code", "path", "field", "message"} <= set(error)
    assert ConfigVersion.objects.count() == 1
    assert _alice_cap() == {"memory": 40 * GiB, "vcore": 20_000}


@pytest.mark.parametrize("text", ["partitions: [", "- a list\n", "partitions:\n  - nme: x\n",
                                  "   \n", "partitions: []\n"])
def test_unusable_documents_are_400_with_details(admin_token, active_small, text):
    response = _put_yaml(admin_token, text)

    assert response.status_code == 400
    assert response.json()["details"]
    assert all("code" in error for error in response.json()["details"])
    assert ConfigVersion.objects.count() == 1


def test_the_same_content_makes_no_new_version(admin_token, active_small):
    response = _put_yaml(admin_token, SMALL_YAML)

    assert response.status_code == 200
    assert response.json()["version"] == 1
    assert ConfigVersion.objects.count() == 1


# -- dry run ----------------------------------------------------------------------------------


def test_dry_run_reports_validity_changes_and_impact_and_stores_nothing(admin_token, active_small):
    allocate(active_small, queue="root.eng", app="app-1", user="alice", memory=30 * GiB)

    response = admin_token.put(URL + "?dry_run=1", TIGHTER, content_type="application/yaml")

    assert response.status_code == 200
    body = response.json()
    assert body["dry_run"] is True
    assert body["valid"] is True
    assert body["active_version"] == 1
    assert body["details"] == []
    assert [(c["kind"], c["queuePath"], c["index"]) for c in body["changes"]] == [
        ("limit", "root.eng", 0)
    ]
    assert [(item["kind"], item["name"]) for item in body["impact"]] == [("user", "alice")]
    assert ConfigVersion.objects.count() == 1
    assert _alice_cap() == {"memory": 40 * GiB, "vcore": 20_000}


def test_dry_run_of_an_invalid_document_answers_as_the_real_write_would(
    admin_token, active_small
):
    dry = _put_json(admin_token, {"yaml": INVALID}, query="?dry_run=true")
    real = _put_json(admin_token, {"yaml": INVALID})

    assert dry.status_code == real.status_code == 400
    assert dry.json() == real.json()
    assert dry.json()["error"] == "invalid"
    assert dry.json()["details"] == validate_config(INVALID)
    assert ConfigVersion.objects.count() == 1


def test_a_stale_dry_run_answers_as_the_real_write_would(admin_token, active_small):
    _someone_else_applies()

    dry = _put_json(admin_token, {"yaml": TIGHTER, "base_version": 1}, query="?dry_run=1")
    real = _put_json(admin_token, {"yaml": TIGHTER, "base_version": 1})

    assert dry.status_code == real.status_code == 412
    assert dry.json() == real.json()
    assert ConfigVersion.objects.count() == 2


@pytest.mark.parametrize("value", ["null", "maybe", ""])
def test_a_dry_run_flag_that_is_no_boolean_is_400(admin_token, active_small, value):
    response = admin_token.put(URL + f"?dry_run={value}", TIGHTER,
                               content_type="application/yaml")

    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"
    assert ConfigVersion.objects.count() == 1


def test_dry_run_is_a_write_viewers_cannot_make(viewer_token, active_small):
    response = viewer_token.put(URL + "?dry_run=1", TIGHTER, content_type="application/yaml")

    assert response.status_code == 403


# -- preconditions ----------------------------------------------------------------------------


def _someone_else_applies():
    config_apply(yaml_text=SMALL_YAML.replace("100Gi", "120Gi"), author=None, base_version=1)


@pytest.mark.parametrize("if_match", ["1", '"1"', 'W/"1"'])
def test_if_match_on_the_active_version_is_accepted(admin_token, active_small, if_match):
    response = _put_yaml(admin_token, TIGHTER, HTTP_IF_MATCH=if_match)

    assert response.status_code == 200
    assert response.json()["version"] == 2


def test_if_match_on_an_older_version_is_412_with_what_changed(admin_token, active_small):
    _someone_else_applies()

    response = _put_yaml(admin_token, TIGHTER, HTTP_IF_MATCH="1")

    assert response.status_code == 412
    body = response.json()
    assert body["error"] == "precondition_failed"
    assert body["base_version"] == 1
    assert body["active_version"] == 2
    (change,) = body["details"]
    assert (change["kind"], change["change"], change["queuePath"]) == ("queue", "changed",
                                                                       "root.eng")
    assert change["old"]["max"] == {"memory": "100Gi", "vcore": "100"}
    assert change["new"]["max"] == {"memory": "120Gi", "vcore": "100"}
    assert ConfigVersion.objects.count() == 2


def test_base_version_in_json_is_a_precondition_too(admin_token, active_small):
    _someone_else_applies()

    response = _put_json(admin_token, {"yaml": TIGHTER, "base_version": 1})

    assert response.status_code == 412
    assert ConfigVersion.objects.count() == 2


def test_a_stale_precondition_is_412_even_for_content_equal_to_the_active(
    admin_token, active_small
):
    _someone_else_applies()
    active_text = ConfigVersion.objects.get(number=2).yaml

    assert _put_yaml(admin_token, active_text, HTTP_IF_MATCH="1").status_code == 412


def test_a_stale_dry_run_is_412_too(admin_token, active_small):
    _someone_else_applies()

    response = admin_token.put(URL + "?dry_run=1", TIGHTER, content_type="application/yaml",
                               HTTP_IF_MATCH="1")

    assert response.status_code == 412


def test_if_match_star_means_whatever_is_active(admin_token, active_small):
    _someone_else_applies()

    assert _put_yaml(admin_token, TIGHTER, HTTP_IF_MATCH="*").status_code == 200


def test_if_match_star_without_any_version_is_412(admin_token, db):
    response = _put_yaml(admin_token, SMALL_YAML, HTTP_IF_MATCH="*")

    assert response.status_code == 412
    assert response.json()["message"] == ERR_NOTHING_ACTIVE
    assert not ConfigVersion.objects.exists()


def test_the_first_version_can_be_put_without_a_precondition(admin_token, db):
    response = _put_yaml(admin_token, SMALL_YAML)

    assert response.status_code == 200
    assert response.json()["version"] == 1
    assert response.json()["based_on"] is None


def test_a_malformed_if_match_is_400(admin_token, active_small):
    response = _put_yaml(admin_token, TIGHTER, HTTP_IF_MATCH="yesterday")

    assert response.status_code == 400
    assert response.json()["message"] == ERR_IF_MATCH.format(value="yesterday")


def test_if_match_and_base_version_must_agree(admin_token, active_small):
    response = admin_token.put(URL, json.dumps({"yaml": TIGHTER, "base_version": 2}),
                               content_type="application/json", HTTP_IF_MATCH="1")

    assert response.status_code == 400
    assert response.json()["message"] == ERR_BASE_DISAGREES.format(header=1, body=2)


def test_a_change_that_loses_the_race_is_409_without_and_412_with_a_precondition(
    admin_token, active_small, monkeypatch
):
    from quotaweb.config import services

    real_apply = services.config_apply
    racers = iter(["130Gi", "140Gi"])

    def racing_apply(**kwargs):
        # Another admin's change lands between the precondition check and the write.
        real_apply(yaml_text=SMALL_YAML.replace("100Gi", next(racers)), author=None,
                   base_version=services.active_version_number())
        return real_apply(**kwargs)

    monkeypatch.setattr(services, "config_apply", racing_apply)

    response = _put_yaml(admin_token, TIGHTER)
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"
    assert response.json()["details"][0]["queuePath"] == "root.eng"

    response = _put_yaml(admin_token, TIGHTER, HTTP_IF_MATCH="2")
    assert response.status_code == 412
    assert response.json()["error"] == "precondition_failed"
    assert response.json()["active_version"] == 3
    assert not ConfigVersion.objects.filter(yaml=TIGHTER).exists()


# -- bad bodies -------------------------------------------------------------------------------


def test_an_empty_yaml_body_is_400(admin_token, active_small):
    response = admin_token.put(URL, "", content_type="application/yaml")

    assert response.status_code == 400
    assert response.json()["message"] == ERR_EMPTY_BODY


@pytest.mark.parametrize(("body", "field"), [
    ({}, "yaml"),
    ({"yaml": 5}, "yaml"),
    ({"yaml": None}, "yaml"),
    ({"yaml": SMALL_YAML, "comment": 5}, "comment"),
    ({"yaml": SMALL_YAML, "base_version": "1"}, "base_version"),
    ({"yaml": SMALL_YAML, "base_version": True}, "base_version"),
    ({"yaml": SMALL_YAML, "base_version": -1}, "base_version"),
    ({"yaml": SMALL_YAML, "comment": "x" * 1001}, "comment"),
])
def test_wrong_json_types_are_400_naming_the_field(admin_token, active_small, body, field):
    response = _put_json(admin_token, body)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert [item["field"] for item in response.json()["details"]] == [field]


def test_unknown_json_fields_are_400_naming_them(admin_token, active_small):
    response = _put_json(admin_token, {"yaml": TIGHTER, "dryrun": True, "author": "x"})

    assert response.status_code == 400
    assert "unknown fields: author, dryrun" in response.json()["message"]
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize("raw", [b"{", b"[1, 2", b"NaN", b'{"yaml": "a"} trailing', b"\xff\xfe",
                                 b"[" * 100_000 + b"]" * 100_000, b"[]", b'"partitions: []"'])
def test_malformed_json_is_400(admin_token, active_small, raw):
    response = admin_token.put(URL, raw, content_type="application/json")

    assert response.status_code == 400
    assert ConfigVersion.objects.count() == 1


def test_yaml_that_is_not_utf8_is_400(admin_token, active_small):
    response = admin_token.put(URL, b"partitions: \xff", content_type="application/yaml")

    assert response.status_code == 400


def test_a_huge_yaml_body_is_413(admin_token, active_small):
    from trackers.config.loader import MAX_BYTES

    response = _put_yaml(admin_token, "#" * (MAX_BYTES + 1))

    assert response.status_code == 413
    assert response.json()["error"] == "too_large"


def test_a_huge_yaml_inside_json_is_413(admin_token, active_small):
    from trackers.config.loader import MAX_BYTES

    response = _put_json(admin_token, {"yaml": "#" * (MAX_BYTES + 1)})

    assert response.status_code == 413


def test_a_huge_json_body_is_413_without_being_read_whole(admin_token, active_small):
    from quotaweb.api.parsers import json_max_bytes

    response = admin_token.put(URL, b" " * (json_max_bytes() + 1), content_type="application/json")

    assert response.status_code == 413


def test_a_form_body_is_415(admin_token, active_small):
    response = admin_token.put(URL, "yaml=x", content_type="application/x-www-form-urlencoded")

    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


def test_the_route_answers_with_a_trailing_slash_too(admin_token, active_small):
    assert admin_token.get(URL + "/").status_code == 200
    response = admin_token.put(URL + "/", TIGHTER, content_type="application/yaml")
    assert response.status_code == 200
    assert response.json()["version"] == 2
