"""Queue resources R1-R4 and quantity errors in queue resources."""

import pytest

from tests.trackers.config_docs import errors, queue, root
from trackers.config import messages as m
from trackers.config.scope import quantity_detail


def res(guaranteed=None, maximum=None):
    out = {}
    if guaranteed is not None:
        out["guaranteed"] = guaranteed
    if maximum is not None:
        out["max"] = maximum
    return out


def found(text):
    return [(e["code"], e["path"], e["message"]) for e in errors(text)]


@pytest.mark.parametrize(
    ("guaranteed", "maximum", "ok"),
    [
        ({"memory": 100}, {"memory": 100}, True),
        ({"memory": 101}, {"memory": 100}, False),
        ({"memory": 100, "vcore": 5}, {"memory": 100}, True),
        ({"vcore": 5}, {"memory": 0}, True),
        ({"memory": 1}, {"memory": 0}, False),
        ({"memory": "1Gi"}, {"memory": "1G"}, False),
        ({"vcore": "500m"}, {"vcore": "1"}, True),
        ({}, {"memory": 1}, True),
    ],
)
def test_r1_guaranteed_within_own_max(guaranteed, maximum, ok):
    out = found(root(queue("a", resources=res(guaranteed, maximum))))
    if ok:
        assert out == []
    else:
        assert out[0][0:2] == ("R1", "root.a")
        assert out[0][2].startswith("guaranteed resource map[")


def test_r1_message_and_location():
    (error,) = errors(root(queue("a", resources=res({"memory": "1Gi"}, {"memory": "1G"}))))
    assert error == {
        "code": "R1",
        "path": "root.a",
        "field": "partitions[0].queues[0].queues[0].resources.guaranteed",
        "message": m.GUARANTEED_ABOVE_MAX.format(
            guaranteed="map[memory:1073741824]", max="map[memory:1000000000]", queue="a"
        ),
        "detail": "guaranteed (memory 1 GiB) is above this queue's max (memory 953.7 MiB)",
    }


@pytest.mark.parametrize(
    ("parent_max", "child_max", "ok"),
    [
        ({"memory": 100}, {"memory": 100}, True),
        ({"memory": 100}, {"memory": 101}, False),
        ({"memory": 100}, {"vcore": 5}, True),
        ({"memory": 100, "vcore": 1}, {"memory": 50, "vcore": 2}, False),
        ({}, {"memory": 10**9}, True),
    ],
)
def test_r2_child_max_within_parent_max(parent_max, child_max, ok):
    text = root(
        queue("p", queue("c", resources=res(maximum=child_max)), resources=res(maximum=parent_max))
    )
    out = found(text)
    assert [c for c, _, _ in out] == ([] if ok else ["R2"])


def test_r2_effective_max_is_the_minimum_along_the_path():
    text = root(
        queue(
            "a",
            queue(
                "b",
                queue("c", resources=res(maximum={"memory": 60, "vcore": 60})),
                resources=res(maximum={"vcore": 50}),
            ),
            resources=res(maximum={"memory": 100}),
        ),
    )
    assert found(text) == [
        (
            "R2",
            "root.a.b.c",
            m.MAX_ABOVE_PARENT.format(
                parent="map[memory:100 vcore:50000]", max="map[memory:60 vcore:60000]", queue="c"
            ),
        )
    ]


def test_r2_is_reported_for_every_offending_child():
    text = root(
        queue(
            "p",
            queue("c1", resources=res(maximum={"memory": 2})),
            queue("c2", resources=res(maximum={"memory": 3})),
            resources=res(maximum={"memory": 1}),
        )
    )
    assert [(c, p) for c, p, _ in found(text)] == [("R2", "root.p.c1"), ("R2", "root.p.c2")]


def test_r3_children_guaranteed_within_parent_guaranteed():
    text = root(
        queue(
            "p",
            queue("c1", resources=res({"memory": 6})),
            queue("c2", resources=res({"memory": 5})),
            resources=res({"memory": 10}),
        )
    )
    assert found(text) == [
        (
            "R3",
            "root.p",
            m.CHILDREN_ABOVE_GUARANTEED.format(
                guaranteed="map[memory:10]", children="map[memory:11]", queue="p"
            ),
        )
    ]


def test_r3_types_missing_from_parent_guaranteed_are_unconstrained():
    text = root(
        queue(
            "p",
            queue("c1", resources=res({"memory": 6, "vcore": 100})),
            resources=res({"memory": 10}),
        )
    )
    assert found(text) == []


def test_r3_empty_parent_guaranteed_constrains_nothing_and_passes_the_sum_up():
    text = root(
        queue(
            "top",
            queue(
                "mid",
                queue("c1", resources=res({"memory": 6})),
                queue("c2", resources=res({"memory": 6})),
            ),
            resources=res({"memory": 10}),
        )
    )
    assert [(c, p) for c, p, _ in found(text)] == [("R3", "root.top")]


def test_r3_all_zero_guaranteed_counts_as_empty():
    text = root(
        queue(
            "top",
            queue("mid", queue("c1", resources=res({"memory": 6})), resources=res({"memory": 0})),
            resources=res({"memory": 5}),
        )
    )
    out = found(text)
    # A zero in mid's guaranteed still constrains its children, and mid passes their sum up.
    assert [(c, p) for c, p, _ in out] == [("R3", "root.top.mid"), ("R3", "root.top")]


def test_r4_children_guaranteed_within_effective_max():
    text = root(
        queue(
            "p",
            queue("c1", resources=res({"memory": 30})),
            queue("c2", resources=res({"memory": 30})),
            resources=res(maximum={"memory": 50}),
        )
    )
    (error,) = errors(text)
    assert error == {
        "code": "R4",
        "path": "root.p",
        "field": "partitions[0].queues[0].queues[0].resources.max",
        "message": m.CHILDREN_ABOVE_MAX.format(
            max="map[memory:50]", children="map[memory:60]", queue="p"
        ),
        "detail": "the guaranteed of the child queues add up to memory 60 B, more than this "
        "queue's effective max (memory 50 B)",
    }


def test_r4_uses_the_inherited_max_when_the_queue_has_none():
    text = root(
        queue(
            "p",
            queue("mid", queue("c", resources=res({"memory": 60}))),
            resources=res(maximum={"memory": 50}),
        )
    )
    out = errors(text)
    assert [(e["code"], e["path"], e["field"]) for e in out] == [
        ("R4", "root.p.mid", "partitions[0].queues[0].queues[0].queues[0]"),
        ("R4", "root.p", "partitions[0].queues[0].queues[0].resources.max"),
    ]


@pytest.mark.parametrize(
    ("section", "value", "message"),
    [
        ("max", "1.5G", "invalid quantity"),
        ("max", None, "invalid quantity"),
        ("guaranteed", "10m", "invalid suffix"),
        ("guaranteed", "1000E", "invalid quantity: overflow"),
        ("max", "-1", "invalid quantity"),
    ],
)
def test_quantity_errors_in_queue_resources(section, value, message):
    (error,) = errors(root(queue("a", resources={section: {"memory": value}})))
    assert error == {
        "code": "QTY",
        "path": "root.a",
        "field": f"partitions[0].queues[0].queues[0].resources.{section}.memory",
        "message": message,
        "detail": quantity_detail("memory", value, message),
    }


def test_a_bad_quantity_does_not_cascade_into_false_r_errors():
    text = root(
        queue(
            "p",
            queue("c", resources=res({"memory": "x"}, {"memory": 5})),
            resources=res({"memory": 1}, {"memory": "y"}),
        )
    )
    assert [e["code"] for e in errors(text)] == ["QTY", "QTY"]


def test_r_rules_report_all_errors_in_post_order():
    text = root(
        queue(
            "p",
            queue("c", resources=res({"memory": 9}, {"memory": 8})),
            resources=res({"memory": 5}, {"memory": 7}),
        ),
    )
    assert [(c, p) for c, p, _ in found(text)] == [
        ("R1", "root.p.c"),
        ("R2", "root.p.c"),
        ("R3", "root.p"),
        ("R4", "root.p"),
    ]
