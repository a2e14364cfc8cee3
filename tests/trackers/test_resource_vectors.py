"""Resource vector helpers: fit tests, minimum, pruned sums, Go map formatting."""

import pytest

from trackers.resources import (
    add_pruned,
    component_min,
    fits_headroom,
    fits_within,
    go_format,
    subtract_pruned,
)


@pytest.mark.parametrize(
    ("request_", "limit", "fits"),
    [
        ({}, {}, True),
        ({"memory": 5}, {}, True),
        ({"memory": 5}, {"memory": 5}, True),
        ({"memory": 6}, {"memory": 5}, False),
        ({"memory": 5, "vcore": 100}, {"memory": 5}, True),
        ({"vcore": 100}, {"memory": 0}, True),
        ({"memory": 1}, {"memory": 0}, False),
        ({"memory": 0}, {"memory": 0}, True),
        ({}, {"memory": 0}, True),
        ({"memory": 4, "vcore": 2}, {"memory": 5, "vcore": 1}, False),
    ],
)
def test_fits_within_treats_missing_types_as_unlimited(request_, limit, fits):
    assert fits_within(request_, limit) is fits


@pytest.mark.parametrize(
    ("request_", "headroom", "fits"),
    [
        ({"memory": 10**18}, None, True),
        ({"memory": 5}, {"memory": 5}, True),
        ({"memory": 6}, {"memory": 5}, False),
        ({"memory": 0}, {"memory": -5}, True),
        ({"memory": 1}, {"memory": -5}, False),
        ({"vcore": 1}, {"memory": -5}, True),
        ({}, {"memory": -1}, True),
    ],
)
def test_fits_headroom_counts_negative_room_as_zero(request_, headroom, fits):
    assert fits_headroom(request_, headroom) is fits


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (None, None, None),
        (None, {"memory": 1}, {"memory": 1}),
        ({"memory": 1}, None, {"memory": 1}),
        ({"memory": 3, "vcore": 1}, {"memory": 2, "gpu": 7}, {"memory": 2, "vcore": 1, "gpu": 7}),
        ({"memory": 0}, {"memory": 9}, {"memory": 0}),
        ({}, {}, {}),
    ],
)
def test_component_min_keeps_every_type_and_the_smaller_value(a, b, expected):
    assert component_min(a, b) == expected


def test_component_min_returns_new_dicts():
    a = {"memory": 1}
    out = component_min(a, None)
    out["memory"] = 9
    assert a == {"memory": 1}


def test_add_pruned_drops_types_that_reach_zero():
    a = {"memory": 5, "vcore": 2}
    assert add_pruned(a, {"memory": -5, "gpu": 1}) == {"vcore": 2, "gpu": 1}
    assert a == {"memory": 5, "vcore": 2}
    assert add_pruned({}, {"memory": 0}) == {}


def test_subtract_pruned_drops_types_that_reach_zero_and_keeps_negatives():
    assert subtract_pruned({"memory": 5, "vcore": 2}, {"memory": 5}) == {"vcore": 2}
    assert subtract_pruned({"memory": 5}, {"memory": 7}) == {"memory": -2}
    assert subtract_pruned({}, {"vcore": 0}) == {}


@pytest.mark.parametrize(
    ("res", "text"),
    [
        ({}, "map[]"),
        ({"memory": 10000, "vcore": 100000}, "map[memory:10000 vcore:100000]"),
        ({"vcore": 1, "memory": 2}, "map[memory:2 vcore:1]"),
        ({"vcores": 30, "memory": 10}, "map[memory:10 vcores:30]"),
        ({"nvidia.com/gpu": 0}, "map[nvidia.com/gpu:0]"),
    ],
)
def test_go_format_sorts_keys_like_go(res, text):
    assert go_format(res) == text
