"""The name rules of ``trackers.names`` as OpenAPI schemas, for the parameters and body fields
the API checks against them: the schema then says which names are refused (400), so generated
clients and fuzzers know before they ask."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter

from trackers.names import GROUP_NAME_RE, QUEUE_NAME_RE, USER_NAME_RE
from trackers.ugm.engine import MAX_QUEUE_DEPTH

_SEGMENT = QUEUE_NAME_RE.pattern
QUEUE_NAME_PATTERN = rf"^{_SEGMENT}$"
# ``root`` in any case, then up to MAX_QUEUE_DEPTH - 1 queue names (the engine lower-cases).
QUEUE_PATH_PATTERN = rf"^[Rr][Oo][Oo][Tt](\.{_SEGMENT}){{0,{MAX_QUEUE_DEPTH - 1}}}$"
# /ws/v1/ names a queue by dotted queue names, with or without the root.
QUEUE_NAMES_PATTERN = rf"^{_SEGMENT}(\.{_SEGMENT})*$"
USER_NAME_PATTERN = rf"^{USER_NAME_RE.pattern}$"
GROUP_NAME_PATTERN = rf"^{GROUP_NAME_RE.pattern}$"
# Headroom's ``groups``: group names between commas (empty ones are skipped).
GROUP_NAMES_PATTERN = rf"^({GROUP_NAME_RE.pattern})?(,({GROUP_NAME_RE.pattern})?)*$"


def any_case_pattern(words: tuple[str, ...], *, or_empty: bool = False) -> str:
    """A pattern matching any of ``words`` (ASCII) in any case (JSON Schema's patterns have no
    flags), or nothing at all when ``or_empty``."""
    def any_case(word: str) -> str:
        return "".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in word)

    return f"^({'|'.join(any_case(word) for word in words)}){'?' if or_empty else ''}$"


def pattern_string(pattern: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "pattern": pattern, **more}


def path_parameter(name: str, pattern: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, pattern_string(pattern), location=OpenApiParameter.PATH,
                            description=description)
