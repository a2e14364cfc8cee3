"""Errors of the ``/ws/v1/`` reads: YuniKorn's status codes and texts in its error body
``{"status_code", "message", "description"}``, and a 503 (never a 500) while engines start."""

from __future__ import annotations

import pytest

from quotaweb.api.errors import ERR_YUNIKORN_PARTITION as ERR_PARTITION_NOT_FOUND
from quotaweb.api.views.yunikorn import (
    ERR_GROUP_NOT_FOUND,
    ERR_INVALID_GROUP,
    ERR_INVALID_USER,
    ERR_MISSING_PARAMETERS,
    ERR_USER_NOT_FOUND,
)
from quotaweb.config.selectors import ERR_NO_CONFIG
from quotaweb.engine.gateway import ERR_NOT_LOADED as ERR_ENGINES_NOT_LOADED

pytestmark = pytest.mark.django_db

USAGE = "/ws/v1/partition/default/usage"


def _error(response, status: int, message: str) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"status_code": status, "message": message, "description": message}


@pytest.mark.parametrize(("url", "status", "message"), [
    (f"{USAGE}/user/1InvalidUser", 400, ERR_INVALID_USER),
    (f"{USAGE}/user/al%20ice", 400, ERR_INVALID_USER),
    # Query-unescape: "+" is a space, which no user name holds.
    (f"{USAGE}/user/al+ice", 400, ERR_INVALID_USER),
    (f"{USAGE}/user/nobody", 404, ERR_USER_NOT_FOUND),
    (f"{USAGE}/group/nobody", 404, ERR_GROUP_NOT_FOUND),
    # The group regex refuses "@", "#", "/" and the wildcard.
    (f"{USAGE}/group/test_a-b_c%40%23d%40do%3Amai%2Fn.com", 400, ERR_INVALID_GROUP),
    (f"{USAGE}/group/a%40b", 400, ERR_INVALID_GROUP),
    (f"{USAGE}/group/*", 400, ERR_INVALID_GROUP),
    (f"{USAGE}/group/%2A", 400, ERR_INVALID_GROUP),
    (f"{USAGE}/user/", 400, ERR_MISSING_PARAMETERS),
    (f"{USAGE}/group/", 400, ERR_MISSING_PARAMETERS),
])
def test_names(viewer_token, active_small, url, status, message):
    _error(viewer_token.get(url), status, message)


@pytest.mark.parametrize("url", [
    f"{USAGE}/user/%Zt", f"{USAGE}/group/%Zt", f"{USAGE}/user/alice%", f"{USAGE}/user/a%4",
])
def test_a_malformed_escape_is_a_bad_request(viewer_token, active_small, url):
    response = viewer_token.get(url)

    assert response.status_code == 400
    body = response.json()
    assert body["status_code"] == 400
    assert body["message"].startswith("invalid URL escape")
    assert body["description"] == body["message"]


def test_the_escape_text_names_the_bad_escape_as_go_does(viewer_token, active_small):
    assert viewer_token.get(f"{USAGE}/user/%Zt").json()["message"] == 'invalid URL escape "%Zt"'


@pytest.mark.parametrize("tail", [
    "queues", "usage/users", "usage/groups", "usage/user/alice", "usage/group/ml",
])
def test_an_unknown_partition_is_not_found(viewer_token, active_small, tail):
    _error(viewer_token.get(f"/ws/v1/partition/nowhere/{tail}"), 404, ERR_PARTITION_NOT_FOUND)


@pytest.mark.parametrize("url", [
    "/ws/v1/partitions", "/ws/v1/partition/default/queues", f"{USAGE}/users", f"{USAGE}/groups",
    f"{USAGE}/user/alice", f"{USAGE}/group/ml",
])
def test_reads_before_the_engines_exist_are_503_not_500(viewer_token, url):
    _error(viewer_token.get(url), 503, ERR_ENGINES_NOT_LOADED)


def test_config_without_any_version_is_not_found(viewer_token):
    _error(viewer_token.get("/ws/v1/config"), 404, ERR_NO_CONFIG)


@pytest.mark.parametrize("accept", ["application/yaml", "text/yaml", "*/*"])
def test_config_errors_are_json_even_when_yaml_was_asked_for(viewer_token, accept):
    response = viewer_token.get("/ws/v1/config", HTTP_ACCEPT=accept)

    _error(response, 404, ERR_NO_CONFIG)


def test_config_in_a_type_it_cannot_give_is_406_in_json(viewer_token, active_small):
    response = viewer_token.get("/ws/v1/config", HTTP_ACCEPT="text/html")

    assert response.status_code == 406
    assert response.json()["status_code"] == 406


def test_writes_to_a_read_are_405_in_yunikorn_shape(admin_token, active_small):
    response = admin_token.post(f"{USAGE}/users")

    assert response.status_code == 405
    assert response.json()["status_code"] == 405
