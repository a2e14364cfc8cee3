"""Hypothesis against the OpenAPI document: every operation of /api/v1/ and /ws/v1/ called with
generated path values, query parameters and bodies (valid by the schema, or any JSON, or text)
never answers 500, and every answer fits the schema: a documented status with a body that
validates against its schema, or an error status with the contract's error body.
"""

from __future__ import annotations

import json
import string
from functools import cache
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
# Statuses any operation may answer with the contract's error body, documented or not.
ERROR_STATUSES = {400, 401, 403, 404, 405, 409, 412, 413, 415, 503}
NAME_CHARS = string.ascii_letters + string.digits + "-_.@:/#%+ *é"
KNOWN = ["default", "root", "root.eng", "root.eng.ml", "alice", "ml", "k1", "app-1", "1", "0"]


@cache
def _schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations() -> list[tuple[str, str]]:
    return sorted(
        (path, method)
        for path, item in _schema()["paths"].items()
        if path.startswith(("/api/v1/", "/ws/v1/"))
        for method in METHODS
        if method in item
    )


def _json_schema(schema: Any) -> Any:
    """An OpenAPI 3.1 schema (JSON Schema already) with its component references pointing into
    ``$defs``."""
    if isinstance(schema, list):
        return [_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "$ref":
            out[key] = value.replace("#/components/schemas/", "#/$defs/")
        elif key not in ("readOnly", "writeOnly", "example", "format"):
            out[key] = _json_schema(value)
    return out


@cache
def _defs() -> dict[str, Any]:
    return {
        name: _json_schema(component)
        for name, component in _schema().get("components", {}).get("schemas", {}).items()
    }


def _validate(instance: Any, schema: dict[str, Any]) -> None:
    jsonschema.validate(instance, {**_json_schema(schema), "$defs": _defs()})


# -- strategies -------------------------------------------------------------------------------

any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
names = st.sampled_from(KNOWN) | st.text(NAME_CHARS, min_size=1, max_size=20)


def _from_schema(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy:
    if "$ref" in schema:
        return st.deferred(lambda: _from_schema(_defs()[schema["$ref"].rsplit("/", 1)[-1]],
                                                depth + 1))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_from_schema(sub, depth + 1) for sub in schema[key]])
    if "allOf" in schema:
        return _from_schema(schema["allOf"][0], depth + 1)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if depth > 6:
        return st.none()
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {name: _from_schema(sub, depth + 1) for name, sub in properties.items()
             if name in required},
            optional={name: _from_schema(sub, depth + 1) for name, sub in properties.items()
                      if name not in required},
        ) if properties else st.dictionaries(
            names, _from_schema(schema.get("additionalProperties") or {}, depth + 1)
            if isinstance(schema.get("additionalProperties"), dict) else any_json,
            max_size=3,
        )
    if kind == "array":
        return st.lists(_from_schema(schema.get("items", {}), depth + 1), max_size=3)
    if kind == "string":
        return names
    if kind == "integer":
        return st.integers(min_value=-5, max_value=2**64) | st.integers(0, 10)
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    return any_json


def _request(path: str, method: str) -> st.SearchStrategy:
    operation = _schema()["paths"][path][method]
    path_params = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
    query_params = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
    content = operation.get("requestBody", {}).get("content", {})
    bodies = [st.none()]
    for kind, media in content.items():
        if "json" in kind:
            bodies.append(st.tuples(st.just("json"), _from_schema(media.get("schema", {}))))
            bodies.append(st.tuples(st.just("json"), any_json))
        else:
            bodies.append(st.tuples(st.just(kind), st.text(max_size=200)))
    return st.fixed_dictionaries({
        "path": st.fixed_dictionaries(dict.fromkeys(path_params, names)),
        "query": st.dictionaries(st.sampled_from(query_params), names, max_size=3)
        if query_params else st.just({}),
        "body": st.one_of(bodies),
    })


# -- the check ---------------------------------------------------------------------------------


def _call(client, path: str, method: str, request: dict[str, Any]):
    from urllib.parse import quote

    url = path
    for name, value in request["path"].items():
        url = url.replace("{" + name + "}", quote(value, safe=""))
    body = request["body"]
    kwargs: dict[str, Any] = {}
    if body is not None:
        kind, payload = body
        if kind == "json":
            kwargs = {"data": json.dumps(payload), "content_type": "application/json"}
        else:
            kwargs = {"data": payload, "content_type": kind}
    if request["query"]:
        url += "?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in request["query"].items())
    return getattr(client, method)(url, **kwargs)


def _check_answer(path: str, method: str, response) -> None:
    status = response.status_code
    assert status < 500, (method, path, status, response.content[:300])
    documented = _schema()["paths"][path][method].get("responses", {})
    answer = documented.get(str(status))
    media = response.get("Content-Type", "")
    if answer is not None:
        content = answer.get("content", {})
        json_schema = next((c.get("schema") for k, c in content.items() if "json" in k), None)
        if json_schema is not None and "json" in media:
            _validate(json.loads(response.content), json_schema)
        return
    assert status in ERROR_STATUSES, (method, path, status, "undocumented status")
    error = json.loads(response.content)
    keys = {"status_code", "message", "description"} if path.startswith("/ws/v1/") else {
        "error", "message", "details"}
    assert keys <= set(error), (method, path, status, error)


@pytest.mark.parametrize(("path", "method"), _operations())
def test_no_operation_answers_500_or_outside_the_schema(
    admin_api, capped_engines, path, method
):
    # Something live to find, so generated keys and names sometimes hit real allocations.
    admin_api.post(ALLOCATIONS, body("k1"), format="json")

    @settings(max_examples=40, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(request=_request(path, method))
    def run(request):
        _check_answer(path, method, _call(admin_api, path, method, request))

    run()
