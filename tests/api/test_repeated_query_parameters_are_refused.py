"""A query parameter given twice is refused (400, naming it) on every endpoint of the API, never
read as its last value: ``PUT /api/v1/config?dry_run=1&dry_run=0`` was a real write. The lean
path answers the same as the views, and nothing changes."""

from __future__ import annotations

import asyncio
import json

import pytest

from quotaweb.api.parameters import ERR_REPEATED, repeated_parameters
from quotaweb.config.models import ConfigVersion
from tests.api.allocation_support import ALLOCATIONS, asgi_exchange, body
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db(transaction=True)

TIGHTER = SMALL_YAML.replace("100Gi", "90Gi")


@pytest.mark.parametrize("query", ["?dry_run=1&dry_run=0", "?dry_run=1&dry%5Frun=0",
                                   "?dry_run=1&x=1&dry_run=1"])
def test_a_repeated_dry_run_is_refused_and_writes_nothing(admin_token, active_small, query):
    response = admin_token.put("/api/v1/config" + query, TIGHTER,
                               content_type="application/yaml")
    assert response.status_code == 400
    assert response.json() == {"error": "bad_request", "details": ["dry_run"],
                               "message": ERR_REPEATED.format(names="dry_run")}
    assert ConfigVersion.objects.count() == 1


def test_a_single_dry_run_still_previews(admin_token, active_small):
    response = admin_token.put("/api/v1/config?dry_run=1&x=", TIGHTER,
                               content_type="application/yaml")
    assert response.status_code == 200
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize(("path", "query"), [
    ("/api/v1/partitions/default/allocations", "page=1&page=2"),
    ("/api/v1/partitions/default/events", "after=0&after=5"),
    ("/api/schema/", "format=json&format=yaml"),
])
def test_every_api_endpoint_refuses_a_repeated_parameter(admin_token, active_small, path, query):
    response = admin_token.get(f"{path}?{query}")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"
    assert response.json()["details"] == [query.split("=")[0]]


def test_the_yunikorn_reads_refuse_it_in_their_shape(viewer_token, active_small):
    response = viewer_token.get("/ws/v1/config?format=json&format=yaml")
    message = ERR_REPEATED.format(names="format")
    assert response.status_code == 400
    assert response.json() == {"status_code": 400, "message": message, "description": message}


def test_pages_outside_the_api_are_left_alone(admin, client, active_small):
    client.force_login(admin)
    assert client.get("/?a=1&a=2").status_code == 200


def test_the_lean_path_answers_a_repeated_headroom_parameter_as_the_views(
    admin, capped_engines
):
    from rest_framework.authtoken.models import Token

    from quotaweb.asgi import application, django_asgi_app

    token = Token.objects.get_or_create(user=admin)[0].key
    query = b"queuePath=root.eng&user=alice&applicationId=a&user=bob"
    path = "/api/v1/partitions/default/headroom"
    lean = asyncio.run(asgi_exchange(application, "GET", path, token=token, query=query))
    views = asyncio.run(asgi_exchange(django_asgi_app, "GET", path, token=token, query=query))
    assert lean == views
    assert lean[0] == 400
    assert json.loads(lean[2])["details"] == ["user"]
    allocate = asyncio.run(asgi_exchange(application, "POST", ALLOCATIONS, token=token,
                                         data=body("k1"), query=b"a=1&a=2"))
    assert allocate[0] == 400
    assert capped_engines.live_count("default") == 0


def test_names_are_compared_as_django_reads_them():
    assert repeated_parameters(b"a=1&b=2&a=3&b=4&c=5&a=6") == ["a", "b"]
    assert repeated_parameters("a=1;a=2") == []  # one parameter "a", valued "1;a=2"
    assert repeated_parameters("a&a") == ["a"]
    assert repeated_parameters("") == []
