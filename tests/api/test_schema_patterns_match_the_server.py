"""The OpenAPI schema's patterns for names and If-Match say exactly what the server accepts: a value
the pattern allows is never refused as malformed, and a value it refuses is a 400. Generated
clients and fuzzers (schemathesis) rely on this."""

from __future__ import annotations

import json
import re
from functools import cache
from urllib.parse import quote

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from quotaweb.allocations.services import ALLOCATION_FIELDS
from quotaweb.api.views.config import ERR_IF_MATCH
from quotaweb.api.views.yunikorn import ERR_FORMAT, ERR_INVALID_GROUP, ERR_INVALID_USER
from tests.api.allocation_support import ALLOCATIONS, body
from tests.configs import SMALL_YAML
from trackers.ugm.engine import ERR_GROUP

pytestmark = pytest.mark.django_db

NAMES = [
    "alice", "_svc", "Bob.Smith@example.org", "a:b#c/d", "svc$", "a$b", "1alice", "al ice",
    "ml", "ml-team_2", "ml.team", "ml@x", "q" * 64, "q" * 65, "é", "root", "ROOT", "a.b.c",
]
IF_MATCH = ["1", '"1"', 'W/"1"', " 1 ", "*", "", "  ", "yesterday", "1, 2", '""', "W/", "-1",
            "1.0", '""1""', "\t1\t"]


@cache
def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _parameter(path: str, method: str, name: str) -> dict:
    operation = _schema()["paths"][path][method]
    return next(p for p in operation["parameters"] if p["name"] == name)


def _allows(schema: dict, value: str) -> bool:
    return re.search(schema["pattern"], value) is not None


@pytest.mark.parametrize("name", NAMES)
def test_user_and_group_name_patterns_are_the_rules_of_the_usage_reads(
    viewer_token, active_small, name
):
    for kind, refusal in (("user", ERR_INVALID_USER), ("group", ERR_INVALID_GROUP)):
        path = f"/ws/v1/partition/{{partition}}/usage/{kind}/{{{kind}}}"
        allowed = _allows(_parameter(path, "get", kind)["schema"], name)
        response = viewer_token.get(f"/ws/v1/partition/default/usage/{kind}/{quote(name, safe='')}")
        refused = response.status_code == 400 and response.json()["message"] == refusal
        assert allowed != refused, (kind, name, response.status_code)


@pytest.mark.parametrize("name", NAMES)
def test_the_group_pattern_of_an_allocate_body_is_the_engines_rule(
    admin_token, capped_engines, name
):
    groups = _schema()["components"]["schemas"]["AllocationInRequest"]["properties"]["groups"]
    schema = groups["items"]
    response = admin_token.post(ALLOCATIONS, body("k1", groups=[name]),
                                content_type="application/json")
    refused = response.status_code == 400 and (
        response.json()["message"] == ERR_GROUP.format(group=name))
    assert _allows(schema, name) != refused, (name, response.status_code, response.content)


@pytest.mark.parametrize("groups", ["ml", "ml,dev", "ml,,dev,", ",", "ml,g g", "*", "ml,*"])
def test_the_groups_pattern_of_headroom_is_the_engines_rule(admin_token, capped_engines, groups):
    schema = _parameter("/api/v1/partitions/{partition}/headroom", "get", "groups")["schema"]
    response = admin_token.get("/api/v1/partitions/default/headroom", {
        "queuePath": "root.eng", "user": "alice", "applicationId": "a", "groups": groups})
    assert _allows(schema, groups) == (response.status_code == 200), response.content


def test_an_allocate_body_schema_takes_exactly_the_fields_the_server_takes():
    schema = _schema()["components"]["schemas"]["AllocationInRequest"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == ALLOCATION_FIELDS


@pytest.mark.parametrize("queue", ["root.eng", "eng", "root.a@b", "root..eng", "root.é", "ROOT"])
def test_the_queue_pattern_of_the_queue_reads_is_their_rule(viewer_token, active_small, queue):
    path = "/ws/v1/partition/{partition}/queue/{queue}"
    allowed = _allows(_parameter(path, "get", "queue")["schema"], queue)
    response = viewer_token.get(f"/ws/v1/partition/default/queue/{quote(queue, safe='')}")
    assert allowed == (response.status_code != 400), (queue, response.status_code)


@pytest.mark.parametrize("queue_path", ["root", "ROOT.eng", "root.eng", "eng", "root.a b", "x.a"])
def test_the_queue_path_pattern_of_headroom_is_the_engines_rule(
    admin_token, active_small, queue_path
):
    schema = _parameter("/api/v1/partitions/{partition}/headroom", "get", "queuePath")["schema"]
    response = admin_token.get("/api/v1/partitions/default/headroom",
                               {"queuePath": queue_path, "user": "alice", "applicationId": "a"})
    assert _allows(schema, queue_path) == (response.status_code == 200), response.content


@pytest.mark.parametrize("value", IF_MATCH)
def test_the_if_match_pattern_is_what_the_writes_accept(admin_token, active_small, value):
    schema = _parameter("/api/v1/config", "put", "If-Match")["schema"]
    client = Client(HTTP_AUTHORIZATION=admin_token.defaults["HTTP_AUTHORIZATION"])
    response = client.put("/api/v1/config", json.dumps({"yaml": SMALL_YAML}),
                          content_type="application/json", HTTP_IF_MATCH=value)
    malformed = response.status_code == 400 and (
        response.json()["message"] == ERR_IF_MATCH.format(value=value))
    assert _allows(schema, value) != malformed, (value, response.status_code, response.content)


def test_an_empty_format_is_refused_as_the_schema_says(viewer_token, active_small):
    response = viewer_token.get("/ws/v1/config", {"format": ""})
    assert response.status_code == 400
    assert response.json()["message"] == ERR_FORMAT


def test_a_write_to_no_route_with_a_session_is_the_json_404_not_a_csrf_page(admin, active_small):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    response = client.delete("/api/v1/partitions/default/nowhere\n/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
