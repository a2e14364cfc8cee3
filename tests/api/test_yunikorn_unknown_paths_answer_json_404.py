"""A path under /ws/v1/ that nothing serves answers YuniKorn's JSON error body with 404, for any
method, with or without a login, and with Django's debug mode on too (whose own 404 is an HTML
page): YuniKorn's clients parse JSON."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

UNKNOWN = [
    "/ws/v1/nothing", "/ws/v1/", "/ws/v1/partition/default", "/ws/v1/partition/default/queue/",
    "/ws/v1/partition/default/queues/extra", "/ws/v1/partitions/", "/ws/v1/history",
    "/ws/v1/scheduler", "/ws/v1/partition/default/usage",
]


def _is_json_404(response) -> None:
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body == {"status_code": 404, "message": body["message"],
                    "description": body["message"]}
    assert "/ws/v1/" in body["message"]


@pytest.mark.parametrize("url", UNKNOWN)
def test_an_unknown_path_is_a_json_404(viewer_token, capped_engines, url):
    _is_json_404(viewer_token.get(url))


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_any_method(admin_token, capped_engines, method):
    _is_json_404(getattr(admin_token, method)("/ws/v1/nothing"))


def test_without_a_login_and_in_debug_mode(client, settings):
    settings.DEBUG = True

    _is_json_404(client.get("/ws/v1/nothing/at/all"))


def test_the_message_names_the_method_and_path(viewer_token):
    response = viewer_token.get("/ws/v1/nothing")

    assert response.json()["message"] == "there is no GET /ws/v1/nothing in the API; see /api/docs/"


@pytest.mark.parametrize("url", [
    "/ws/v1/partition/default/application/a%0Ab", "/ws/v1/partition/gpu/node/a%0A",
    "/ws/v1/nothing%0A",
])
def test_a_newline_in_the_path_is_a_json_404_in_debug_mode_too(
    viewer_token, capped_engines, settings, url
):
    settings.DEBUG = True
    _is_json_404(viewer_token.get(url))


@pytest.mark.parametrize("url", [
    "/api/v1/partitions/default/allocations/%0Ax", "/api/v1/nothing%0A",
    "/api/v1/partitions/default/queues/root%0A/limits/",
])
def test_an_api_path_with_a_newline_is_the_api_json_404_in_debug_mode(
    viewer_token, capped_engines, settings, url
):
    settings.DEBUG = True
    response = viewer_token.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == "not_found"
