"""An allocation in a request body is refused exactly when an error names a field of it, and an
accepted one carries the fields it was sent: the quick check a batch runs per operation and the
field-by-field errors it answers with follow the same rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotaweb.allocations.requests import (
    ALLOCATION_FIELDS,
    ERR_UNKNOWN_KEY,
    MAX_GROUPS,
    MAX_PRIORITY,
    MAX_QUANTITY,
    MAX_RESOURCE_TYPES,
    MAX_TEXT,
    MIN_PRIORITY,
    AllocationInvalid,
    _request_errors,
    allocation_request,
    batch_request,
)

# Near the edges of every rule: empty, at and over the limit, NUL, a lone surrogate, non-ASCII.
_TEXTS = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["", "a" * MAX_TEXT, "a" * (MAX_TEXT + 1), "a" * 1024, "a" * 1025,
                     "x\x00y", "x\ud800y", "\udfff", "é", "root.eng"]),
)
_ANY = st.one_of(_TEXTS, st.none(), st.booleans(), st.integers(-3, 3), st.lists(_TEXTS, max_size=2),
                 st.dictionaries(_TEXTS, st.integers(), max_size=2))
_QUANTITIES = st.one_of(st.integers(-1, 5), st.sampled_from([MAX_QUANTITY, MAX_QUANTITY + 1]),
                        st.booleans(), st.floats(0, 2), st.none(), st.text(max_size=2))
_RESOURCES = st.one_of(
    st.dictionaries(_TEXTS, _QUANTITIES, max_size=3),
    st.dictionaries(st.integers(0, 3), st.integers(0, 3), min_size=1, max_size=2),
    _ANY,
)
_GOOD_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                     min_size=1, max_size=6)
_GOOD = {
    "allocationKey": _GOOD_TEXT, "applicationId": _GOOD_TEXT, "queuePath": _GOOD_TEXT,
    "user": _GOOD_TEXT, "groups": st.lists(_GOOD_TEXT, max_size=2),
    "resource": st.dictionaries(_GOOD_TEXT, st.integers(0, MAX_QUANTITY), max_size=2),
    "priority": st.one_of(st.integers(-3, 3), st.sampled_from([MIN_PRIORITY, MAX_PRIORITY])),
    "nodeId": st.one_of(_GOOD_TEXT, st.just("n" * MAX_TEXT)),
}
_BAD = {
    **{name: st.one_of(_TEXTS, _ANY) for name in ("allocationKey", "applicationId", "queuePath",
                                                  "user")},
    "groups": st.one_of(st.lists(_TEXTS, max_size=3), st.lists(_ANY, min_size=1, max_size=2),
                        _ANY),
    "resource": _RESOURCES,
    "priority": st.one_of(_ANY, st.floats(-1, 1),
                          st.sampled_from([MIN_PRIORITY - 1, MAX_PRIORITY + 1, "1"])),
    "nodeId": st.one_of(_TEXTS, _ANY),
}
# Keys an allocation does not have: typos, other cases, the batch's own, anything.
_UNKNOWN = st.dictionaries(
    st.one_of(st.sampled_from(["grups", "Groups", "op", "resources", "", "x\ud800"]), _TEXTS),
    _ANY, max_size=2,
)
# Mostly good fields with a few bad ones: a body with one bad field shows that rule alone.
_BODIES = st.one_of(
    st.fixed_dictionaries(
        {name: st.one_of(good, good, _BAD[name]) for name, good in _GOOD.items()}
    ),
    st.builds(lambda good, more: {**more, **good},
              st.fixed_dictionaries(_GOOD), _UNKNOWN),
    st.fixed_dictionaries({}, optional={name: st.one_of(good, _BAD[name])
                                        for name, good in _GOOD.items()}),
    _ANY,
)


@settings(max_examples=1500, deadline=None)
@given(data=_BODIES)
def test_a_body_is_refused_exactly_when_an_error_names_one_of_its_fields(data):
    errors = _request_errors(data, "x.", ALLOCATION_FIELDS)
    if errors:
        with pytest.raises(AllocationInvalid) as refused:
            allocation_request(data, at="x.")
        assert refused.value.errors == errors
        assert all(error["field"].startswith("x") for error in errors)
        return
    assert allocation_request(data, at="x.") == (
        data["allocationKey"], data["applicationId"], data["queuePath"], data["user"],
        tuple(data.get("groups", [])), data["resource"], None, data.get("priority", 0),
        data.get("nodeId", ""),
    )


@pytest.mark.parametrize("bad", [
    {"allocationKey": "k\x00"}, {"user": "\ud83d"}, {"groups": ["ml", 7]},
    {"groups": ["a" * (MAX_TEXT + 1)]}, {"resource": {"vcore": True}},
    {"resource": {"": 1}}, {"resource": {"vcore": -1}}, {"queuePath": "q" * 1025},
    {"groups": [""]}, {"groups": ["g"] * (MAX_GROUPS + 1)},
    {"resource": {"vcore": MAX_QUANTITY + 1}},
    {"resource": {f"r{n}": 1 for n in range(MAX_RESOURCE_TYPES + 1)}},
    {"applicationId": ""}, {"user": "u" * (MAX_TEXT + 1)}, {"grups": ["ml"]},
])
def test_a_batch_answers_each_bad_field_in_its_place_and_keeps_the_rest(bad):
    good = {"op": "allocate", "allocationKey": "k1", "applicationId": "app",
            "queuePath": "root.eng", "user": "alice", "groups": ["ml"],
            "resource": {"vcore": 1000}}
    parsed = batch_request({"operations": [good, {**good, "allocationKey": "k2", **bad}]})
    assert parsed[0].allocation.key == "k1"
    assert isinstance(parsed[1], AllocationInvalid)
    assert [error["field"].split(".")[1] for error in parsed[1].errors] == list(bad)


@pytest.mark.parametrize(("operation", "unknown"), [
    ({"op": "allocate", "allocationKey": "k2", "applicationId": "app", "queuePath": "root.eng",
      "user": "alice", "grups": ["ml"], "resource": {"vcore": 1}}, ["grups"]),
    ({"op": "release", "allocationKey": "k1", "user": "alice"}, ["user"]),
    ({"op": "release", "allocationKey": "k1", "x\ud800": 1}, ["'x\\ud800'"]),
])
def test_an_unknown_key_refuses_its_operation_and_is_named_with_its_place(operation, unknown):
    good = {"op": "release", "allocationKey": "k0"}
    parsed = batch_request({"operations": [good, operation]})
    assert parsed[0].key == "k0"
    assert isinstance(parsed[1], AllocationInvalid)
    named = [error for error in parsed[1].errors
             if error["message"].startswith(ERR_UNKNOWN_KEY.split("{")[0])]
    assert [error["field"] for error in named] == [f"operations[1].{key}" for key in unknown]
