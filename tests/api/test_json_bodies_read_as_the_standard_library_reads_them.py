"""A JSON body reads as Python's ``json`` reads it (values, and the exact types: an integer past
64 bits stays an exact int), though orjson reads it first; what either refuses is the contract's
400 with the standard library's reason."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError

from quotaweb.api.parsers import ERR_JSON, ERR_NOT_UTF8, json_body

_SCALARS = (
    st.none() | st.booleans() | st.text()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


def _typed(value: object) -> object:
    """``value`` with each number tagged with its type: 1 and 1.0 compare equal, but differ."""
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    return (type(value).__name__, value)


@settings(max_examples=400, deadline=None)
@given(value=_VALUES, ascii_only=st.booleans())
def test_any_json_document_reads_as_the_standard_library_reads_it(value, ascii_only):
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert _typed(json_body(data)) == _typed(json.loads(data))


@pytest.mark.parametrize("data", [
    b"123456789012345678901234567890",
    b'{"resource": {"memory": 99999999999999999999999}}',
    b"[18446744073709551616, -9223372036854775809]",
])
def test_integers_past_64_bits_stay_exact_integers(data):
    assert _typed(json_body(data)) == _typed(json.loads(data))


def test_a_byte_order_mark_is_not_part_of_the_document():
    assert json_body(b'\xef\xbb\xbf{"operations": []}') == {"operations": []}


@pytest.mark.parametrize(("data", "message"), [
    (b"[NaN]", ERR_JSON.format(reason="NaN is not a JSON value")),
    (b'{"a": 1', None),
    (b"", None),
    (b"\xff\xfe", ERR_NOT_UTF8),
])
def test_what_is_not_json_is_the_contracts_400_with_the_standard_librarys_reason(data, message):
    with pytest.raises(ParseError) as refused:
        json_body(data)
    if message is None:
        try:
            json.loads(data)
        except ValueError as exc:
            message = ERR_JSON.format(reason=exc)
    assert str(refused.value.detail) == message
