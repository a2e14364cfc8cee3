"""The rules behind the bars: thresholds, the over-limit case, effective limits along a path and
the most constrained limit (``limits``; ``live.js`` follows the same rules)."""

from __future__ import annotations

import pytest

from quotaweb.usage.limits import APPLICATIONS, Bar, Level, most_constrained, tree_row

GiB = 2**30


@pytest.mark.parametrize(
    ("used", "level", "width"),
    [(0, "ok", 0), (59, "ok", 59), (60, "60", 60), (74, "60", 74), (75, "75", 75), (89, "75", 89),
     (90, "90", 90), (100, "90", 100), (101, "over", 100)],
)
def test_colours_at_60_75_and_90_percent_and_a_colour_of_its_own_above(used, level, width):
    bar = Bar("nvidia.com/gpu", used, 100, "root")
    assert (bar.level, bar.width) == (level, width)


def test_the_text_says_how_much_of_what_in_human_units_and_the_title_the_raw_numbers():
    bar = Bar("memory", 9_500_000_000, 10_000_000_000, "root.eng")
    assert bar.text == "8.8 GiB of 9.3 GiB · 95 %"
    assert bar.title == (
        "memory: 9500000000 bytes used of 10000000000 bytes, 500000000 bytes left; "
        "tightest limit at root.eng"
    )
    assert Bar("vcore", 2500, None).text == "2.5 vcore · no limit"
    assert Bar(APPLICATIONS, 3, 2, "root").text == "3 of 2 · over by 1"


def test_a_limit_of_nothing_exceeded_is_over_and_a_full_bar():
    bar = Bar("nvidia.com/gpu", 1, 0, "root")
    assert (bar.over, bar.level, bar.width) == (True, "over", 100)
    untouched = Bar("nvidia.com/gpu", 0, 0, "root")
    assert (untouched.over, untouched.level, untouched.width) == (False, "ok", 0)


def _levels(*levels: Level) -> dict[str, Level]:
    return {level.path: level for level in levels}


def test_the_effective_limit_is_the_least_room_on_the_path():
    levels = _levels(
        Level("root", {"memory": 30 * GiB}, 3, {"memory": 40 * GiB}, 0),
        Level("root.a", {"memory": 10 * GiB}, 1, {"memory": 50 * GiB}, 2),
        Level("root.b", {"memory": 20 * GiB}, 2, None, 0),
    )
    a = tree_row(levels, "root.a")
    # root.a may hold 50 GiB, but root has only 10 GiB left: 20 GiB is the most it can reach.
    assert a.bars == (Bar("memory", 10 * GiB, 20 * GiB, "root", 40 * GiB, above=True),)
    assert a.apps == Bar(APPLICATIONS, 1, 2, "root.a", 2)
    assert a.depth == 1


def test_a_level_above_its_cap_leaves_no_room_below():
    levels = _levels(
        Level("root", {"memory": 12 * GiB}, 0, {"memory": 10 * GiB}, 0),
        Level("root.a", {}, 0, None, 0),
    )
    bar = tree_row(levels, "root.a").bars[0]
    assert bar == Bar("memory", 0, -2 * GiB, "root", 10 * GiB, above=True)
    assert (bar.over, bar.text) == (
        True, "0 B of 0 B · over by 2 GiB · capped by root: 10 GiB less 12 GiB in use elsewhere"
    )


def test_the_most_constrained_limit_is_the_highest_share_where_it_is_set():
    levels = [
        Level("root", {"memory": 5 * GiB}, 1, {"memory": 20 * GiB}, 10),
        Level("root.a", {"memory": 5 * GiB}, 1, {"memory": 10 * GiB, "vcore": 4000}, 2),
    ]
    assert most_constrained(levels) == Bar("memory", 5 * GiB, 10 * GiB, "root.a", 10 * GiB)
    levels[1] = Level("root.a", {"memory": 5 * GiB}, 1, {"memory": 10 * GiB}, 1)
    assert most_constrained(levels) == Bar(APPLICATIONS, 1, 1, "root.a", 1)
    assert most_constrained([Level("root", {"memory": 1}, 0, None, 0)]) is None
