"""The OpenAPI schema's error answers, added where a view does not document them itself.

A drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS['POSTPROCESSING_HOOKS']``, after
the default enum hook). Every error an operation can answer comes from the one error path
(``quotaweb.api.errors``), so which ones it can give follows from the operation's shape:

- 401 (no or bad credentials) and 403 (a viewer's write) where it needs a login;
- 404 where its path names something (a parameter in the path);
- 400 where it takes a body or query parameters (bad values, a body that does not parse), for
  every configuration write (an edit refused), and for ``/ws/v1/`` queue, user and group names
  that are no valid names;
- 413 and 415 where it takes a body (too large, an unknown content type);
- 409 and 412 for configuration writes (another version became active; ``If-Match``);
- 404 for the configuration's reads before one is applied, 406 for ``/ws/v1/config``;
- 503 while the quota engines are starting.

``/api/v1/`` errors are ``ApiError`` ``{"error", "message", "details"}``; ``/ws/v1/`` errors are
YuniKorn's ``YunikornError`` ``{"status_code", "message", "description"}``. What a view
documents itself (a 409 denial's own shape, say) is kept as it is.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension

API_ERROR = "ApiError"
YUNIKORN_ERROR = "YunikornError"

_API_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An /api/v1/ error: a code, one sentence, and details (validator rules, "
    "changes since a version, field errors). 409 and 412 on the configuration add "
    "base_version and active_version.",
    "properties": {
        "error": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "array", "items": {}},
    },
    "required": ["error", "message", "details"],
}
_YUNIKORN_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "YuniKorn's error body.",
    "properties": {
        "status_code": {"type": "integer"},
        "message": {"type": "string"},
        "description": {"type": "string"},
    },
    "required": ["status_code", "message", "description"],
}

_TEXTS = {
    "400": "a bad query value, or a body that does not parse or is not valid",
    "401": "no credentials, or credentials that are not valid",
    "403": "not allowed: a viewer's write",
    "404": "nothing under this path",
    "409": "another version became active while this change was applied",
    "412": "the version named by If-Match or base_version is no longer the active one",
    "413": "the body is over the size limit",
    "406": "an Accept header naming no type this operation answers",
    "415": "a body of a content type this operation does not read",
    "503": "the quota engines are still starting",
}
_METHODS = ("get", "put", "post", "patch", "delete")
_EXPORT_ELASTICQUOTA = "/api/v1/partitions/{partition}/export/elasticquota"
# Answers that do not follow from an operation's shape: the active configuration's reads are 404
# until one is applied, a page past the last is 404, and the one endpoint that negotiates its
# answer's type is 406 for an Accept it cannot answer.
_MORE = {
    ("get", "/api/v1/config"): ["404"],
    ("get", "/api/v1/config/versions"): ["404"],
    ("get", "/ws/v1/config"): ["404", "406"],
    ("get", _EXPORT_ELASTICQUOTA): ["409"],
}
# Where a code means something else than it does everywhere else.
_OWN_TEXTS = {
    ("get", _EXPORT_ELASTICQUOTA, "409"): "a resource type of the partition has no Kubernetes "
    "name, so it cannot be written as an ElasticQuota",
}


def _is_config_write(path: str, method: str) -> bool:
    if method == "get":
        return False
    return path.startswith("/api/v1/config") or path.startswith(
        ("/api/v1/partitions/{partition}/queues/", "/api/v1/partitions/{partition}/import/")
    )


def _statuses(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    codes = []
    if operation.get("security"):
        codes += ["401", "403"]
    if "{" in path:
        codes.append("404")
    has_body = "requestBody" in operation
    has_query = any(p.get("in") == "query" for p in operation.get("parameters", []))
    names_checked = path.startswith("/ws/v1/") and any(
        f"{{{name}}}" in path for name in ("queue", "user", "group"))
    if has_body or has_query or names_checked or _is_config_write(path, method):
        codes.append("400")
    if has_body:
        codes += ["413", "415"]
    if _is_config_write(path, method):
        codes += ["409", "412"]
    codes += _MORE.get((method, path), [])
    codes.append("503")
    return codes


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool,
                        **kwargs: Any) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(API_ERROR, _API_ERROR_SCHEMA)
    schemas.setdefault(YUNIKORN_ERROR, _YUNIKORN_ERROR_SCHEMA)
    for path, operations in result.get("paths", {}).items():
        if path.startswith("/ws/v1/"):
            component = YUNIKORN_ERROR
        elif path.startswith("/api/v1/"):
            component = API_ERROR
        else:
            continue
        for method in _METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for code in _statuses(path, method, operation):
                responses.setdefault(code, {
                    "description": _OWN_TEXTS.get((method, path, code), _TEXTS[code]),
                    "content": {"application/json": {
                        "schema": {"$ref": f"#/components/schemas/{component}"},
                    }},
                })
            operation["responses"] = dict(sorted(responses.items()))
    return result


def nullable_as_type_lists(result: dict[str, Any], generator: Any, request: Any, public: bool,
                           **kwargs: Any) -> dict[str, Any]:
    """OpenAPI 3.1 says "may be null" with a type list; DRF's pagination schema still writes
    3.0's ``nullable`` (``next``, ``previous``), which 3.1 readers ignore: rewrite it."""
    stack: list[Any] = [result]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.pop("nullable", False) and isinstance(item.get("type"), str):
                item["type"] = [item["type"], "null"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return result


class StrictSerializerExtension(OpenApiSerializerExtension):
    """A ``StrictSerializer`` refuses unknown fields (400): its schema says so
    (``additionalProperties: false``), so generated clients and fuzzers do not send them."""

    target_class = "quotaweb.api.serializers.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        schema["additionalProperties"] = False
        return schema
