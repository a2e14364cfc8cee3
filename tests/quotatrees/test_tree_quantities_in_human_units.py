"""Quota tree amounts are read and written in the product's units: cpu in cores or millicores
(shown as vcore), memory with a binary or decimal unit (shown as GiB, TiB), other resources as
counts. An amount shown in an input reads back to the same value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotaweb.quotatrees.explain import MSG_SHORT, shortfalls
from quotaweb.quotatrees.units import (
    ERR_QUANTITY,
    example_of,
    tree_quantity,
    tree_quantity_input,
    tree_quantity_parse,
    tree_resource_text,
)

GIB = 2**30


@pytest.mark.parametrize(("text", "resource", "value"), [
    ("64Gi", "memory", 64 * GIB), ("500m", "cpu", 500), ("2", "cpu", 2000),
    (" 4 ", "nvidia.com/gpu", 4), ("1G", "memory", 10**9), ("0", "cpu", 0),
])
def test_typed_amounts(text, resource, value):
    assert tree_quantity_parse(text, resource) == value


@pytest.mark.parametrize(("text", "resource"), [
    ("64Gx", "memory"), ("1.5", "cpu"), ("-1", "memory"), ("", "cpu"), ("lots", "gpu"),
])
def test_what_is_not_an_amount_is_said_with_an_example(text, resource):
    with pytest.raises(ValueError, match="is not an amount of") as raised:
        tree_quantity_parse(text, resource)
    assert str(raised.value) == ERR_QUANTITY.format(
        value=text, resource=resource, example=example_of(resource))


def test_amounts_for_people():
    assert tree_quantity("memory", 48 * GIB) == "48 GiB"
    assert tree_quantity("memory", 2 * 1024 * GIB) == "2 TiB"
    assert tree_quantity("cpu", 2500) == "2.5 vcore"
    assert tree_quantity("gpu", 3) == "3"
    assert tree_resource_text({"memory": 16 * GIB, "cpu": 500}) == "cpu 0.5 vcore, memory 16 GiB"
    assert tree_resource_text({}) == "nothing"


@given(st.sampled_from(["cpu", "memory", "gpu"]), st.integers(min_value=0, max_value=2**62))
def test_an_input_reads_back_to_its_value(resource, value):
    assert tree_quantity_parse(tree_quantity_input(resource, value), resource) == value


def test_the_shortfall_sentence():
    view = {"nodes": [
        {"name": "lab", "parent": None, "hard": False, "quota": {"memory": 64 * GIB},
         "allocated": {"memory": 52 * GIB}},
        {"name": "team", "parent": "lab", "hard": False, "quota": {"memory": 32 * GIB},
         "allocated": {"memory": 0}},
    ]}
    assert shortfalls(view, group="team", request={"memory": 16 * GIB}) == [
        "lab has 12 GiB of memory left; the consumer asks for 16 GiB: 4 GiB short"
    ]
    assert MSG_SHORT.startswith("{node} has {left} of {resource} left")
