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
        ("/api/v1/partitions/{partition}/nodes", "put"),
    ]:
        assert method in paths[path], (path, method)
    request = paths["/api/v1/partitions/{partition}/allocations"]["post"]["requestBody"]
    ref = request["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][ref]["properties"]) == {
        "allocationKey", "applicationId", "queuePath", "user", "groups", "resource", "priority",
        "nodeId",
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
    assert "openapi: 3.1" in out.read_text()


def _schema(client) -> dict:
    return json.loads(client.get("/api/schema/?format=json").content)


def test_every_operation_documents_its_errors_in_the_shape_of_its_path(client):
    schema = _schema(client)
    assert {"ApiError", "YunikornError"} <= set(schema["components"]["schemas"])
    for path, operations in schema["paths"].items():
        shape = "YunikornError" if path.startswith("/ws/v1/") else "ApiError"
        for method, operation in operations.items():
            responses = operation["responses"]
            expected = {"401", "403", "503"}
            if "{" in path:
                expected.add("404")
            if "requestBody" in operation:
                expected |= {"400", "413", "415"}
            if any(p["in"] == "query" for p in operation.get("parameters", [])):
                expected.add("400")
            assert expected <= set(responses), (method, path, sorted(responses))
            for code in ("401", "403", "503"):
                ref = responses[code]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/" + shape), (method, path, code)


def test_what_a_view_documents_itself_is_kept(client):
    responses = _schema(client)["paths"]["/api/v1/partitions/{partition}/allocations"]["post"][
        "responses"]
    assert responses["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/DeniedOut")


def test_config_writes_document_409_and_412(client):
    paths = _schema(client)["paths"]
    assert {"409", "412"} <= set(paths["/api/v1/config"]["put"]["responses"])
    assert {"409", "412"} <= set(
        paths["/api/v1/config/versions/{number}/rollback"]["post"]["responses"])


def test_ws_config_documents_yaml_and_json(client):
    answer = _schema(client)["paths"]["/ws/v1/config"]["get"]["responses"]["200"]["content"]
    assert {"text/yaml", "application/json"} <= set(answer)


def test_page_parameters_are_documented_as_bounded_integers(client):
    parameters = {p["name"]: p["schema"] for p in _schema(client)["paths"][
        "/api/v1/config/versions"]["get"]["parameters"]}
    assert parameters["page"]["type"] == parameters["page_size"]["type"] == "integer"
    assert parameters["page_size"]["maximum"] == 500
