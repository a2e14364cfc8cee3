"""Request body parsers of the API: YAML as text, and JSON, both read with a size cap.

Neither parser goes through ``request.body``: Django raises ``RequestDataTooBig`` from there for a
body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, which no API error shape covers. They read the stream
themselves, at most one byte past their cap, and answer 413 in the contract's shape instead; so a
huge body costs at most the cap in memory and never becomes a 500.
"""

from __future__ import annotations

import json
from typing import IO, Any

import orjson
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from quotaweb.api.problems import too_large
from trackers.config.loader import MAX_BYTES

ERR_NOT_UTF8 = "the request body is not UTF-8 text"
ERR_JSON = "the request body is not valid JSON: {reason}"
ERR_JSON_DEPTH = "the request body is not valid JSON: it is nested too deeply"

# A whole configuration is at most what the trackers loader accepts; JSON bodies carry one such
# document (escaped, so up to about twice as long) plus a few small fields.
YAML_MAX_BYTES = MAX_BYTES


def json_max_bytes() -> int:
    return max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0, 2 * MAX_BYTES + 64 * 1024)


def read_capped(stream: IO[bytes] | None, *, limit: int) -> bytes:
    """The whole body, or 413 when it is longer than ``limit`` bytes."""
    if stream is None:
        return b""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise too_large(limit)
    return data


def decode_text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError(ERR_NOT_UTF8) from None
    # A byte order mark is how some editors save "UTF-8"; it is not part of the document.
    return text.removeprefix("\ufeff")


class YamlTextParser(BaseParser):
    """A YAML document as the raw ``str`` (the validator reads it, with line numbers)."""

    media_type = "application/yaml"

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> str:
        return decode_text(read_capped(stream, limit=YAML_MAX_BYTES))


class XYamlTextParser(YamlTextParser):
    media_type = "application/x-yaml"


class TextYamlParser(YamlTextParser):
    media_type = "text/yaml"


class PlainTextParser(YamlTextParser):
    media_type = "text/plain"


class AnyTextParser(YamlTextParser):
    """Any content type as text: ``validate-conf`` takes the body whatever the client labelled
    it (``curl -d @queues.yaml`` sends ``application/x-www-form-urlencoded``), as YuniKorn does."""

    media_type = "*/*"


YAML_PARSERS = [YamlTextParser, XYamlTextParser, TextYamlParser, PlainTextParser]


class CappedJsonParser(BaseParser):
    """JSON with a size cap; malformed, non-UTF-8 or absurdly nested JSON is a 400."""

    media_type = "application/json"

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        return json_body(read_capped(stream, limit=json_max_bytes()))


# Every digit to "0", anything else to "x": a run of 19 digits is then a plain substring, found
# ten times faster than by a regular expression.
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x78 for byte in range(256))
_LONG_RUN = b"0" * 19


def json_body(data: bytes) -> Any:
    """A JSON body already read within its cap; ``ParseError`` when it is not JSON.

    orjson reads strict JSON (UTF-8, no NaN, no lone surrogates) four times as fast as the
    standard library, which matters for a batch of 10,000 operations; anything it refuses is
    read again by the standard library, whose answer (the value, or the error and where) is the
    contract's. So is a body with a run of 19 digits or more: orjson turns an integer beyond 64
    bits into a float, where the standard library keeps it exact."""
    if _LONG_RUN not in data.translate(_DIGITS_AS_ZEROS):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    text = decode_text(data)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise ParseError(ERR_JSON.format(reason=exc)) from None
    except RecursionError:
        raise ParseError(ERR_JSON_DEPTH) from None


def _refuse_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; Python's reader would accept them.
    raise ValueError(f"{name} is not a JSON value")
