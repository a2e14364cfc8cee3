"""The OpenAPI schema at /api/schema/ describes the contract's endpoints, and /api/docs/ shows
it from the app's own files (no CDN)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


def test_the_schema_lists_the_allocation_endpoints(client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    paths = schema["paths"]
    for path, method in [
        ("/api/v1/partitions/{partition}/allocations", "post"),
        ("/api/v1/partitions/{partition}/allocations/batch", "post"),
        ("/api/v1/partitions/{partition}/allocations/{key}", "delete"),
        ("/api/v1/partitions/{partition}/applications/{application_id}", "delete"),
        ("/api/v1/partitions/{partition}/headroom", "get"),
        ("/api/v1/partitions/{partition}/events", "get"),
    ]:
        assert method in paths[path], (path, method)
    request = paths["/api/v1/partitions/{partition}/allocations"]["post"]["requestBody"]
    ref = request["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][ref]["properties"]) == {
        "allocationKey", "applicationId", "queuePath", "user", "groups", "resource"
    }


def test_the_docs_page_renders_every_operation_without_outside_scripts(client):
    response = client.get("/api/docs/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-operation="POST /api/v1/partitions/{partition}/allocations"' in html
    assert "cdn" not in html.lower()


def test_the_schema_is_valid_openapi_without_warnings(tmp_path):
    from django.core.management import call_command

    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert "openapi: 3.0" in out.read_text()
