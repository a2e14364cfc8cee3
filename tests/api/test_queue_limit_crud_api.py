"""Queue and limit-entry CRUD under ``/api/v1/partitions/{p}/queues/``: reads of the active
version, and writes that each become one validated, versioned, applied change (or a refusal with
every error and nothing stored)."""

from __future__ import annotations

import json

import pytest

from quotaweb.config.edits import ERR_ROOT_DELETE, ERR_ROOT_RENAME
from quotaweb.config.models import ConfigVersion
from quotaweb.config.services import config_apply
from quotaweb.engine.gateway import engines_get
from tests.api.allocation_support import GiB
from tests.configs import SMALL_YAML
from trackers.config.messages import ROOT_HAS_RESOURCES

pytestmark = pytest.mark.django_db

QUEUES = "/api/v1/partitions/default/queues"
ENG = f"{QUEUES}/root.eng"
LIMITS = f"{ENG}/limits"


def _send(client, method: str, url: str, body=None, **headers):
    return getattr(client, method)(
        url, json.dumps({} if body is None else body), content_type="application/json", **headers
    )


def _versions() -> int:
    return ConfigVersion.objects.count()


def _engine_queue(path: str) -> dict | None:
    stack = [engines_get().queues_usage("default")]
    while stack:
        node = stack.pop()
        if node["queuename"] == path:
            return node
        stack.extend(node.get("children", ()))
    return None


def _user_cap(user: str) -> dict | None:
    found = engines_get().user_usage("default", user)
    if found is None:
        return None
    return found["queues"]["children"][0].get("maxResources")


# -- reads -------------------------------------------------------------------------------------


def test_queues_are_listed_in_tree_order_with_row_field_names(viewer_token, active_small):
    response = viewer_token.get(f"{QUEUES}/")

    assert response.status_code == 200
    assert response["ETag"] == '"1"'
    root, eng = response.json()
    assert root["path"] == "root"
    assert root["children"] == ["root.eng"]
    assert eng == {
        "partition": "default", "path": "root.eng", "name": "eng", "has_resources": True,
        "guaranteed": {}, "max": {"memory": "100Gi", "vcore": "100"}, "max_applications": 0,
        "properties": {}, "admin_acl": None, "submit_acl": None, "is_parent": None,
        "child_template": None, "children": [],
        "limits": [
            {"index": 0, "description": "alice", "users": ["alice"], "groups": [],
             "max_resources": {"memory": "40Gi", "vcore": "20"}, "max_applications": 4},
            {"index": 1, "description": "everyone else", "users": ["*"], "groups": [],
             "max_resources": {"memory": "20Gi", "vcore": "10"}, "max_applications": 2},
            {"index": 2, "description": "ml group", "users": [], "groups": ["ml"],
             "max_resources": {"memory": "60Gi"}, "max_applications": 6},
        ],
    }


def test_one_queue_equals_its_entry_in_the_list(viewer_token, active_small):
    listed = viewer_token.get(f"{QUEUES}/").json()[1]

    for url in (f"{ENG}/", ENG, f"{QUEUES}/ROOT.ENG/",
                "/api/v1/partitions/DEFAULT/queues/root.eng/"):
        response = viewer_token.get(url)
        assert response.status_code == 200, url
        assert response.json() == listed


def test_limits_are_listed_in_order_and_one_by_index(viewer_token, active_small):
    limits = viewer_token.get(f"{LIMITS}/").json()
    assert [limit["index"] for limit in limits] == [0, 1, 2]

    response = viewer_token.get(f"{LIMITS}/2/")
    assert response.status_code == 200
    assert response.json() == limits[2]


@pytest.mark.parametrize("url", [
    "/api/v1/partitions/nowhere/queues/",
    "/api/v1/partitions/nowhere/queues/root/",
    f"{QUEUES}/root.nope/",
    f"{QUEUES}/eng/",
    f"{QUEUES}/root.nope/limits/",
    f"{LIMITS}/3/",
    f"{LIMITS}/-1/",
    f"{LIMITS}/first/",
])
def test_unknown_partitions_queues_and_entries_are_404_in_json(viewer_token, active_small, url):
    response = viewer_token.get(url)

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


# -- queues ------------------------------------------------------------------------------------


def test_create_a_queue_as_a_new_version_applied_to_the_engine(admin_token, admin, active_small):
    response = _send(admin_token, "post", f"{QUEUES}/", {
        "parent": "root.eng", "name": "ml", "max": {"memory": "10Gi", "vcore": 4},
        "max_applications": 3, "properties": {"note": "new team"}, "comment": "ml team",
    })

    assert response.status_code == 201
    body = response.json()
    assert body["version"] == 2
    assert body["author"] == admin.username
    assert body["comment"] == "ml team"
    assert body["queue"]["path"] == "root.eng.ml"
    assert body["queue"]["max"] == {"memory": "10Gi", "vcore": "4"}
    assert body["queue"]["max_applications"] == 3
    assert response["ETag"] == '"2"'
    assert ConfigVersion.objects.get(number=2).comment == "ml team"
    engine_ml = _engine_queue("root.eng.ml")
    assert engine_ml["maxResource"] == {"memory": 10 * GiB, "vcore": 4000}
    assert engine_ml["maxRunningApps"] == 3


def test_a_new_queue_goes_under_root_by_default(admin_token, active_small):
    response = _send(admin_token, "post", QUEUES, {"name": "web"})

    assert response.status_code == 201
    assert response.json()["queue"]["path"] == "root.web"
    assert [q["path"] for q in admin_token.get(f"{QUEUES}/").json()] == [
        "root", "root.eng", "root.web"
    ]


def test_position_places_a_new_queue_among_its_siblings(admin_token, active_small):
    _send(admin_token, "post", QUEUES, {"name": "web"})

    _send(admin_token, "post", QUEUES, {"name": "first", "position": 0})

    assert admin_token.get(f"{QUEUES}/root/").json()["children"] == [
        "root.first", "root.eng", "root.web"
    ]


def test_an_invalid_new_queue_is_400_with_details_and_nothing_stored(admin_token, active_small):
    response = _send(admin_token, "post", QUEUES, {
        "parent": "root.eng", "name": "big", "max": {"memory": "200Gi"},
    })

    assert response.status_code == 400
    details = response.json()["details"]
    assert details
    assert {"code", "path", "field", "message"} <= set(details[0])
    assert any(error["path"] in ("root.eng.big", "root.eng") for error in details)
    assert _versions() == 1
    assert _engine_queue("root.eng.big") is None


def test_a_duplicate_or_badly_named_queue_is_refused_with_its_rule(admin_token, active_small):
    duplicate = _send(admin_token, "post", QUEUES, {"name": "ENG"})
    bad_name = _send(admin_token, "post", QUEUES, {"name": "no spaces"})

    assert duplicate.status_code == 400
    assert bad_name.status_code == 400
    assert {e["code"] for e in duplicate.json()["details"]} & {"Q3"}
    assert {e["code"] for e in bad_name.json()["details"]} & {"Q2"}
    assert _versions() == 1


def test_a_new_queue_needs_a_name(admin_token, active_small):
    response = _send(admin_token, "post", QUEUES, {"parent": "root"})

    assert response.status_code == 400
    assert [item["field"] for item in response.json()["details"]] == ["name"]


def test_a_new_queue_under_a_missing_parent_or_partition_is_404(admin_token, active_small):
    assert _send(admin_token, "post", QUEUES, {"parent": "root.x", "name": "a"}).status_code == 404
    missing = _send(admin_token, "post", "/api/v1/partitions/gpu/queues/", {"name": "a"})
    assert missing.status_code == 404
    assert _versions() == 1


def test_patch_changes_only_the_fields_sent(admin_token, active_small):
    response = _send(admin_token, "patch", f"{ENG}/", {"max": {"memory": "80Gi"}})

    assert response.status_code == 200
    queue = response.json()["queue"]
    assert queue["max"] == {"memory": "80Gi"}
    assert len(queue["limits"]) == 3
    assert _engine_queue("root.eng")["maxResource"] == {"memory": 80 * GiB}


def test_patch_can_rename_and_answers_the_queue_at_its_new_path(admin_token, active_small):
    response = _send(admin_token, "patch", ENG, {"name": "engineering"})

    assert response.status_code == 200
    assert response.json()["queue"]["path"] == "root.engineering"
    assert admin_token.get(f"{ENG}/").status_code == 404
    assert _engine_queue("root.engineering") is not None


def test_the_root_cannot_be_renamed_or_given_resources(admin_token, active_small):
    renamed = _send(admin_token, "patch", f"{QUEUES}/root/", {"name": "top"})
    resourced = _send(admin_token, "patch", f"{QUEUES}/root/", {"max": {"memory": "1Gi"}})

    assert (renamed.status_code, renamed.json()["error"]) == (409, "refused")
    assert renamed.json()["message"] == ERR_ROOT_RENAME
    assert resourced.status_code == 400
    assert ROOT_HAS_RESOURCES in [e["message"] for e in resourced.json()["details"]]
    assert _versions() == 1


def test_delete_a_queue(admin_token, active_small):
    _send(admin_token, "post", QUEUES, {"name": "web"})

    response = _send(admin_token, "delete", f"{QUEUES}/root.web/", {"comment": "web moved"})

    assert response.status_code == 200
    assert response.json()["version"] == 3
    assert response.json()["comment"] == "web moved"
    assert admin_token.get(f"{QUEUES}/root.web/").status_code == 404
    assert _engine_queue("root.web") is None


def test_a_delete_without_a_body_works_too(admin_token, active_small):
    _send(admin_token, "post", QUEUES, {"name": "web"})

    assert admin_token.delete(f"{QUEUES}/root.web/").status_code == 200


def test_deleting_the_root_is_409(admin_token, active_small):
    response = _send(admin_token, "delete", f"{QUEUES}/root/")

    assert (response.status_code, response.json()["error"]) == (409, "refused")
    assert response.json()["message"] == ERR_ROOT_DELETE
    assert _versions() == 1


def test_deleting_an_unknown_queue_is_404(admin_token, active_small):
    assert _send(admin_token, "delete", f"{QUEUES}/root.nope/").status_code == 404


# -- limit entries -----------------------------------------------------------------------------


def test_a_new_entry_goes_before_the_first_wildcard_by_default(admin_token, active_small):
    response = _send(admin_token, "post", f"{LIMITS}/", {
        "description": "bob", "users": ["bob"], "max_resources": {"memory": "5Gi"},
        "max_applications": 1,
    })

    assert response.status_code == 201
    body = response.json()
    assert body["version"] == 2
    assert body["limit"] == {
        "index": 1, "description": "bob", "users": ["bob"], "groups": [],
        "max_resources": {"memory": "5Gi"}, "max_applications": 1,
    }
    descriptions = [limit["description"] for limit in admin_token.get(LIMITS).json()]
    assert descriptions == ["alice", "bob", "everyone else", "ml group"]
    assert _user_cap("bob") == {"memory": 5 * GiB}


def test_a_new_wildcard_entry_goes_last_and_position_is_honoured(admin_token, active_small):
    wildcard = _send(admin_token, "post", LIMITS, {"groups": ["*"], "max_applications": 9})
    first = _send(admin_token, "post", LIMITS, {"users": ["carol"], "position": 0,
                                                "max_applications": 1})

    assert wildcard.json()["limit"]["index"] == 3
    assert first.json()["limit"]["index"] == 0
    assert [limit["users"] or limit["groups"] for limit in admin_token.get(LIMITS).json()] == [
        ["carol"], ["alice"], ["*"], ["ml"], ["*"]
    ]


def test_an_invalid_entry_is_400_with_every_error(admin_token, active_small):
    response = _send(admin_token, "post", LIMITS, {
        "users": ["bob", "1bad"], "max_resources": {"memory": "500Gi"},
    })

    assert response.status_code == 400
    codes = [error["code"] for error in response.json()["details"]]
    assert "L12" in codes
    assert "L2" in codes
    assert _versions() == 1
    assert _user_cap("bob") is None


def test_patch_an_entry_keeps_the_fields_not_sent(admin_token, active_small):
    response = _send(admin_token, "patch", f"{LIMITS}/0/", {"max_applications": 3})

    assert response.status_code == 200
    assert response.json()["limit"] == {
        "index": 0, "description": "alice", "users": ["alice"], "groups": [],
        "max_resources": {"memory": "40Gi", "vcore": "20"}, "max_applications": 3,
    }
    alice = engines_get().user_usage("default", "alice")["queues"]["children"][0]
    assert alice["maxApplications"] == 3


def test_delete_an_entry_and_the_rest_move_up(admin_token, active_small):
    response = _send(admin_token, "delete", f"{LIMITS}/0/")

    assert response.status_code == 200
    assert [limit["description"] for limit in admin_token.get(LIMITS).json()] == [
        "everyone else", "ml group"
    ]
    # alice has no limit of her own any more: without usage she is not tracked at all.
    assert engines_get().user_usage("default", "alice") is None


def test_entries_of_the_root_are_the_partition_limits(admin_token, active_small):
    response = _send(admin_token, "post", f"{QUEUES}/root/limits/", {
        "users": ["alice"], "max_applications": 10,
    })

    assert response.status_code == 201
    assert admin_token.get(f"{QUEUES}/root/limits/0").json()["users"] == ["alice"]


@pytest.mark.parametrize(("method", "url"), [
    ("patch", f"{LIMITS}/3/"), ("delete", f"{LIMITS}/3/"), ("patch", f"{LIMITS}/x/"),
    ("post", f"{QUEUES}/root.nope/limits/"), ("delete", f"{QUEUES}/root.nope/limits/0/"),
])
def test_writes_to_unknown_entries_are_404(admin_token, active_small, method, url):
    response = _send(admin_token, method, url, {"users": ["bob"]} if method != "delete" else None)

    assert response.status_code == 404
    assert _versions() == 1


# -- bodies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "body", "names"), [
    (f"{ENG}/", {"maximum": {"memory": "1Gi"}, "colour": "red"}, "colour, maximum"),
    (f"{LIMITS}/0/", {"maxresources": {"memory": "1Gi"}}, "maxresources"),
    (f"{QUEUES}/", {"name": "x", "children": []}, "children"),
    (f"{LIMITS}/", {"users": ["x"], "index": 0}, "index"),
])
def test_unknown_fields_are_400_naming_them(admin_token, active_small, url, body, names):
    method = "patch" if url.rstrip("/")[-1].isdigit() or url == f"{ENG}/" else "post"

    response = _send(admin_token, method, url, body)

    assert response.status_code == 400
    assert f"unknown fields: {names}" in response.json()["message"]
    assert _versions() == 1


@pytest.mark.parametrize(("url", "body", "field"), [
    (f"{ENG}/", {"max_applications": "3"}, "max_applications"),
    (f"{ENG}/", {"max_applications": 3.0}, "max_applications"),
    (f"{ENG}/", {"max_applications": -1}, "max_applications"),
    (f"{ENG}/", {"max_applications": 2**64}, "max_applications"),
    (f"{ENG}/", {"max": "10Gi"}, "max"),
    (f"{ENG}/", {"max": {"memory": 10.5}}, "max"),
    (f"{ENG}/", {"max": {"memory": None}}, "max"),
    (f"{ENG}/", {"guaranteed": ["memory"]}, "guaranteed"),
    (f"{ENG}/", {"properties": {"a": 1}}, "properties"),
    (f"{ENG}/", {"is_parent": "yes"}, "is_parent"),
    (f"{ENG}/", {"name": 7}, "name"),
    (f"{ENG}/", {"submit_acl": ["alice"]}, "submit_acl"),
    (f"{ENG}/", {"child_template": "none"}, "child_template"),
    (f"{LIMITS}/0/", {"users": "alice"}, "users"),
    (f"{LIMITS}/0/", {"groups": [1, 2]}, "groups"),
    (f"{LIMITS}/0/", {"max_resources": {"memory": True}}, "max_resources"),
    (f"{LIMITS}/0/", {"description": 5}, "description"),
    (f"{LIMITS}/0/", {"base_version": "1"}, "base_version"),
])
def test_wrong_types_are_400_naming_the_field(admin_token, active_small, url, body, field):
    response = _send(admin_token, "patch", url, body)

    assert response.status_code == 400
    assert [item["field"] for item in response.json()["details"]] == [field]
    assert _versions() == 1


@pytest.mark.parametrize("raw", [b"{", b"[]", b"null", b'"x"', b"\xff"])
def test_a_body_that_is_not_a_json_object_is_400(admin_token, active_small, raw):
    response = admin_token.patch(f"{ENG}/", raw, content_type="application/json")

    assert response.status_code == 400
    assert _versions() == 1


def test_quantities_the_validator_refuses_come_back_as_details(admin_token, active_small):
    response = _send(admin_token, "patch", f"{ENG}/", {"max": {"memory": "lots", "vcore": -4}})

    assert response.status_code == 400
    quantities = [error for error in response.json()["details"] if error["code"] == "QTY"]
    assert sorted(error["field"].rsplit(".", 1)[-1] for error in quantities) == [
        "memory", "vcore"
    ]


# -- preconditions -----------------------------------------------------------------------------


def _someone_else_applies():
    config_apply(yaml_text=SMALL_YAML.replace("100Gi", "120Gi"), author=None, base_version=1)


@pytest.mark.parametrize(("method", "url", "body"), [
    ("post", f"{QUEUES}/", {"name": "web"}),
    ("patch", f"{ENG}/", {"max_applications": 5}),
    ("delete", f"{ENG}/", None),
    ("post", f"{LIMITS}/", {"users": ["bob"], "max_applications": 1}),
    ("patch", f"{LIMITS}/0/", {"max_applications": 1}),
    ("delete", f"{LIMITS}/0/", None),
])
def test_every_write_from_a_stale_version_is_412(admin_token, active_small, method, url, body):
    _someone_else_applies()

    by_header = _send(admin_token, method, url, body, HTTP_IF_MATCH="1")
    by_body = _send(admin_token, method, url, {**(body or {}), "base_version": 1})

    assert by_header.status_code == 412
    assert by_body.status_code == 412
    assert by_header.json()["active_version"] == 2
    assert by_header.json()["details"][0]["queuePath"] == "root.eng"
    assert _versions() == 2


def test_a_write_from_the_active_version_is_accepted(admin_token, active_small):
    _someone_else_applies()

    response = _send(admin_token, "patch", f"{ENG}/", {"max_applications": 50, "base_version": 2})

    assert response.status_code == 200
    assert response.json()["version"] == 3
    assert response.json()["based_on"] == 2
