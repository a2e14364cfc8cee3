"""Step 2 hands out exactly what is left (Hamilton rule), unlike the old half-up rounding."""

from __future__ import annotations

import pytest

from tests.trackers.elastic.support import build, eq, runtimes
from trackers.elastic.split import split


def test_ten_borrowers_share_three_spare_units():
    # Half-up rounding gave each 3/10 -> 0 and stranded all three.
    names = [f"g{n}" for n in range(10)]
    tree = build(*(eq(name, 0, 10, 1) for name in names), total=3,
                 demand=dict.fromkeys(names, 10))
    assert runtimes(tree, *names) == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert tree.unallocated("root") == {}


def test_three_siblings_share_two_units():
    # Half-up rounding gave each 2/3 -> 1, handing out three units of two.
    tree = build(eq("a", 0, 10, 1), eq("b", 0, 10, 1), eq("c", 0, 10, 1), total=2,
                 demand={"a": 10, "b": 10, "c": 10})
    assert runtimes(tree, "a", "b", "c") == [1, 1, 0]


def test_ties_go_by_name_not_by_document_order():
    tree = build(eq("zeta", 0, 10, 1), eq("alpha", 0, 10, 1), eq("mid", 0, 10, 1), total=2,
                 demand={"zeta": 10, "alpha": 10, "mid": 10})
    assert runtimes(tree, "alpha", "mid", "zeta") == [1, 1, 0]


def test_largest_remainder_wins_before_names():
    # 5 units by weights 1:2:4 -> exact 5/7, 10/7, 20/7: bases 0/1/2, remainders 5, 3, 6.
    assert split(5, [10, 10, 10], [0, 0, 0], [1, 2, 4], [True] * 3, [0, 1, 2]) == [1, 1, 3]


@pytest.mark.parametrize("left", [1, 2, 3, 7, 99, 1000003])
def test_shares_add_up_to_what_was_left(left):
    weights = [3, 0, 5, 7, 1, 1]
    got = split(left, [10**9] * 6, [0] * 6, weights, [True] * 6, list(range(6)))
    assert sum(got) == left
    assert got[1] == 0


def test_memory_in_bytes_stays_exact():
    total = 3 * 2**40 + 1
    got = split(total, [2**50] * 3, [0] * 3, [2**30] * 3, [True] * 3, [0, 1, 2])
    assert sum(got) == total
    assert max(got) - min(got) == 1
