"""The OpenAPI schema (drf-spectacular) and a page that shows it, from the app's own files.

drf-spectacular's Swagger and Redoc pages load their scripts from a CDN, which a machine without
a network cannot reach; this page renders the same schema on the server instead.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from django.shortcuts import render
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny

METHODS = ("get", "post", "put", "patch", "delete")


class SchemaView(SpectacularAPIView):
    permission_classes = [AllowAny]


@cache
def _schema() -> dict[str, Any]:
    # The routes are fixed for the life of the process, so the schema is made once.
    return SchemaGenerator().get_schema(request=None, public=True)


def _ref_name(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array" and "items" in schema:
        return f"list of {_ref_name(schema['items']) or schema['items'].get('type', 'items')}"
    return schema.get("type", "object")


def docs(request):
    schema = _schema()
    operations = []
    for url, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {})
            operations.append({
                "method": method.upper(),
                "path": url,
                "summary": operation.get("summary") or operation.get("description", ""),
                "parameters": [
                    {"name": p["name"], "in": p["in"], "required": p.get("required", False),
                     "description": p.get("description", "")}
                    for p in operation.get("parameters", [])
                ],
                "request": ", ".join(
                    f"{kind}: {_ref_name(content.get('schema'))}" for kind, content in body.items()
                ),
                "responses": [
                    {"status": status, "schema": _ref_name(
                        next(iter(answer.get("content", {}).values()), {}).get("schema")
                    ), "description": answer.get("description", "")}
                    for status, answer in operation.get("responses", {}).items()
                ],
            })
    components = {
        name: json.dumps(component, indent=2, sort_keys=True)
        for name, component in sorted(schema.get("components", {}).get("schemas", {}).items())
    }
    return render(request, "api/docs.html", {
        "info": schema.get("info", {}), "operations": operations, "components": components,
    })
