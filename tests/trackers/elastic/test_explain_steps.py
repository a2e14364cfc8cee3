"""explain(): the steps behind one queue's runtime of one resource, numbers and sentences."""

from __future__ import annotations

import pytest

from tests.trackers.elastic.support import build, eq
from trackers.errors import InvalidRequest

K1 = [eq("a", 10, 40), eq("b", 15, 60), eq("c", 20, 50), eq("d", 15, 80)]
K1_DEMAND = {"a": 5, "b": 20, "c": 40, "d": 70}


@pytest.fixture
def k1():
    return build(*K1, total=100, demand=K1_DEMAND)


def numbers(step, *keys):
    return tuple(step[key] for key in keys)


def test_k1_d_two_passes_with_leftover_units(k1):
    out = k1.explain("root.d", "cpu")
    assert out["queuePath"] == "root.d"
    assert out["parent"] == "root"
    assert out["pool"]["value"] == 100
    assert out["pool"]["source"] == "cluster"
    assert (out["min"], out["scaledMin"], out["effectiveMin"]) == (15, None, 15)
    assert (out["request"], out["limitedRequest"], out["max"], out["weight"]) == (70, 70, 80, 80)
    assert out["runtime"] == 40
    first, pass1, pass2, result = out["steps"]
    assert numbers(first, "why", "runtime", "left") == ("hungry", 15, 45)
    keys = ("left", "totalWeight", "weight", "base", "remainder", "extraUnit", "runtime",
            "capped", "returned")
    assert numbers(pass1, *keys) == (45, 190, 80, 18, 180, True, 34, False, 0)
    assert numbers(pass2, *keys) == (9, 130, 80, 5, 70, True, 40, False, 0)
    assert result["runtime"] == 40
    assert "more than its effective min 15" in first["text"]
    assert "45 is left for 3 hungry sibling(s) with a total weight of 190" in pass1["text"]
    assert "plus 1 of the leftover units" in pass1["text"]
    assert all(step["text"] for step in out["steps"])


def test_k1_b_capped_in_the_first_pass(k1):
    first, pass1, result = k1.explain("root.b", "cpu")["steps"]
    assert first["why"] == "hungry"
    assert numbers(pass1, "base", "remainder", "extraUnit", "runtime", "capped", "returned") == (
        14, 40, False, 20, True, 9,
    )
    assert "capped there and returns 9" in pass1["text"]
    assert result["runtime"] == 20


def test_k1_a_lends_its_unused_min(k1):
    first, result = k1.explain("root.a", "cpu")["steps"]
    assert numbers(first, "why", "runtime", "lent") == ("lends", 5, 5)
    assert "lends the unused 5" in first["text"]
    assert result["runtime"] == 5


def test_non_lending_queue_keeps_its_min():
    tree = build(eq("a", 10, 40, lent=False), eq("b", 10, 100), total=100)
    first, _ = tree.explain("root.a", "cpu")["steps"]
    assert first["why"] == "keeps"
    assert "does not lend" in first["text"]


def test_scaled_min_with_human_units():
    tree = build(
        eq("a", 60_000, 100_000, 1, kind="vcore"), eq("b", 90_000, 100_000, 1, kind="vcore"),
        total=100_000, demand={"a": 100_000, "b": 100_000}, kind="vcore",
    )
    out = tree.explain("root.b", "vcore")
    assert out["scaledMin"]["value"] == 60_000
    assert numbers(out["scaledMin"], "pool", "min", "sumMin") == (100_000, 90_000, 150_000)
    assert out["effectiveMin"] == 60_000
    assert "150 vcore, more than the pool 100 vcore" in out["scaledMin"]["text"]
    assert "90 vcore becomes 60 vcore" in out["scaledMin"]["text"]
    first, result = out["steps"]
    assert "nothing is left to share" in first["text"]
    assert result["text"] == "Runtime: 60 vcore (it asked for 100 vcore; nothing more was left)."


def test_weight_zero_pass_that_stops():
    tree = build(eq("a", 10, 100, 0), eq("b", 10, 20, 1), total=100,
                 demand={"a": 100, "b": 100})
    steps = tree.explain("root.a", "cpu")["steps"]
    assert [step.get("stopped") for step in steps[1:-1]] == [None, True]
    assert "add up to 0" in steps[2]["text"]


def test_pool_of_a_deeper_parent_is_its_runtime_less_system_usage():
    tree = build(eq("p", 10, 100), eq("p.sys", 0, 100, system=True), eq("p.x", 0, 100),
                 total=50, used={"p.sys": 5}, demand={"p.x": 200})
    pool = tree.explain("root.p.x", "cpu")["pool"]
    assert numbers(pool, "source", "base", "systemUsed", "value") == ("parent", 50, 5, 45)


def test_special_cases_have_one_clear_step():
    tree = build(eq("sys", 0, 10, system=True), eq("p", None, {"memory": 10}),
                 eq("p.x", None, {"memory": 5, "cpu": 5}), total={"cpu": 7, "memory": 8},
                 used={"sys": 3})
    cases = {
        ("root", "cpu"): ("root", 4),
        ("root", "gpu"): ("not-distributed", None),
        ("root.sys", "cpu"): ("system", 10),
        ("root.p", "cpu"): ("not-in-max", None),
        ("root.p.x", "cpu"): ("not-distributed", 0),
    }
    for (path, kind), (step, runtime) in cases.items():
        (only,) = tree.explain(path, kind)["steps"]
        assert (only["step"], only["runtime"]) == (step, runtime), path
    (root_step,) = tree.explain("root", "cpu")["steps"]
    assert "cluster total 7 less 3 used by system queues" in root_step["text"]


def test_unknown_queue_is_an_invalid_request(k1):
    with pytest.raises(InvalidRequest):
        k1.explain("root.nope", "cpu")
