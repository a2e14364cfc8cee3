"""Queue maxapplications between parent and child (A1, A2) and hierarchical limits (H1-H4)."""

import pytest

from tests.trackers.config_docs import errors, limit, queue, root
from trackers.config import messages as m


def found(text):
    return [(e["code"], e["path"], e["message"]) for e in errors(text)]


@pytest.mark.parametrize(
    ("parent", "child", "code"),
    [(0, 0, None), (0, 5, None), (10, 10, None), (10, 1, None), (10, 11, "A1"), (10, 0, "A2")],
)
def test_a_rules(parent, child, code):
    fields = {"maxapplications": child} if child else {}
    text = root(queue("p", queue("c", **fields), maxapplications=parent))
    out = errors(text)
    if code is None:
        assert out == []
    else:
        assert out == [
            {
                "code": code,
                "path": "root.p.c",
                "field": "partitions[0].queues[0].queues[0].queues[0].maxapplications",
                "message": m.CHILD_APPS_ABOVE_PARENT if code == "A1" else m.CHILD_APPS_UNSET,
                "detail": (
                    "max applications 11 is above the max applications 10 of the parent queue "
                    "root.p"
                    if code == "A1"
                    else "max applications is not set, but the parent queue root.p allows 10: "
                    "set a value from 1 to 10"
                ),
            }
        ]


def test_a_rules_are_direct_pairs_only():
    text = root(
        queue(
            "p",
            queue("mid", queue("c", maxapplications=50), maxapplications=100),
            maxapplications=10,
        )
    )
    assert [(c, p) for c, p, _ in found(text)] == [("A1", "root.p.mid")]


def test_a_rules_report_every_child():
    text = root(queue("a"), queue("b", maxapplications=20), maxapplications=10)
    assert [(c, p) for c, p, _ in found(text)] == [("A2", "root.a"), ("A1", "root.b")]


def _two_levels(kind, top, below, name="x"):
    key = "users" if kind == "user" else "groups"
    named = [limit(groups=["named"], maxapplications=1)] if kind == "group" and name == "*" else []
    return root(
        queue("a", limits=[*named, limit(**{key: [name]}, **below)]),
        limits=[*named, limit(**{key: [name]}, **top)],
    )


@pytest.mark.parametrize("kind", ["user", "group"])
@pytest.mark.parametrize(
    ("top", "below", "ok"),
    [
        ({"memory": 10}, {"memory": 10}, True),
        ({"memory": 10}, {"memory": 11}, False),
        ({"memory": 10}, {"vcore": 99}, True),
        ({"vcore": 1}, {"memory": 10**6}, True),
    ],
)
def test_h1_h2_same_name_must_fit_the_ancestor(kind, top, below, ok):
    text = _two_levels(
        kind,
        {"maxresources": top, "maxapplications": 5},
        {"maxresources": below, "maxapplications": 5},
    )
    out = found(text)
    if ok:
        assert out == []
    else:
        code = "H1" if kind == "user" else "H2"
        assert out == [
            (
                code,
                "root.a",
                m.NAME_RESOURCES_ABOVE_ANCESTOR.format(
                    kind=kind, name="x", new="map[memory:11]", queue="a", inherited="map[memory:10]"
                ),
            )
        ]


@pytest.mark.parametrize("kind", ["user", "group"])
def test_h1_h2_wildcard_against_ancestor_wildcard(kind):
    text = _two_levels(
        kind, {"maxresources": {"memory": 10}}, {"maxresources": {"memory": 20}}, name="*"
    )
    (code, _path, message) = found(text)[0]
    assert code == ("H1" if kind == "user" else "H2")
    assert message == m.NAME_RESOURCES_ABOVE_ANCESTOR.format(
        kind=kind, name="*", new="map[memory:20]", queue="a", inherited="map[memory:10]"
    )


def test_h1_minimum_is_passed_down():
    text = root(
        queue(
            "a",
            queue("b", limits=[limit(users=["x"], maxresources={"memory": 8, "vcore": 8})]),
            limits=[limit(users=["x"], maxresources={"vcore": 5})],
        ),
        limits=[limit(users=["x"], maxresources={"memory": 7})],
    )
    assert found(text) == [
        (
            "H1",
            "root.a.b",
            m.NAME_RESOURCES_ABOVE_ANCESTOR.format(
                kind="user",
                name="x",
                new="map[memory:8 vcore:8000]",
                queue="b",
                inherited="map[memory:7 vcore:5000]",
            ),
        )
    ]


def test_h1_named_under_wildcard_passes_down_its_own_value():
    text = root(
        queue(
            "a",
            queue("b", limits=[limit(users=["x"], maxresources={"memory": 40})]),
            limits=[limit(users=["x"], maxresources={"memory": 50})],
        ),
        limits=[limit(users=["*"], maxresources={"memory": 30})],
    )
    assert [(c, p) for c, p, _ in found(text)] == [("H1", "root.a")]


def test_h1_siblings_and_same_queue_names_are_never_compared():
    text = root(
        queue("a", limits=[limit(users=["x"], maxresources={"memory": 1})]),
        queue("b", limits=[limit(users=["x"], maxresources={"memory": 100})]),
        limits=[
            limit(users=["y"], maxresources={"memory": 1}),
            limit(users=["*"], maxresources={"memory": 1}),
        ],
    )
    # Only b's x is above root's wildcard; y and * at root are never compared with each other.
    assert [(c, p) for c, p, _ in found(text)] == [("H1", "root.b")]


def test_h1_limit_without_resources_fits_anything():
    text = root(
        queue("a", limits=[limit(users=["x"], maxapplications=1)]),
        limits=[limit(users=["x"], maxresources={"memory": 1}, maxapplications=1)],
    )
    assert found(text) == []


def test_users_and_groups_are_not_compared_with_each_other():
    text = root(
        queue("a", limits=[limit(groups=["x"], maxresources={"memory": 100})]),
        limits=[limit(users=["x"], maxresources={"memory": 1})],
    )
    assert found(text) == []


@pytest.mark.parametrize("kind", ["user", "group"])
@pytest.mark.parametrize(
    ("top", "below", "ok"),
    [(5, 5, True), (5, 4, True), (5, 6, False), (5, 0, False), (0, 9, True), (0, 0, None)],
)
def test_h3_h4_app_caps_below_a_capped_ancestor(kind, top, below, ok):
    top_fields = {"maxapplications": top} if top else {"maxresources": {"memory": 1}}
    below_fields = {"maxapplications": below} if below else {"maxresources": {"memory": 1}}
    out = found(_two_levels(kind, top_fields, below_fields))
    if ok is None or ok:
        assert out == []
    else:
        code = "H3" if kind == "user" else "H4"
        assert out == [
            (
                code,
                "root.a",
                m.NAME_APPS_ABOVE_ANCESTOR.format(
                    kind=kind, name="x", new=below, queue="a", inherited=top
                ),
            )
        ]


def test_h3_wildcard_app_cap_applies_to_named_users_below():
    text = root(
        queue("a", limits=[limit(users=["bob"], maxapplications=4)]),
        limits=[limit(users=["*"], maxapplications=3)],
    )
    assert found(text) == [
        (
            "H3",
            "root.a",
            m.NAME_APPS_ABOVE_WILDCARD.format(
                kind="user", name="bob", new=4, queue="a", inherited=3
            ),
        )
    ]


def test_h3_value_passed_down_is_the_new_one_not_the_minimum():
    text = root(
        queue(
            "a",
            queue("b", limits=[limit(users=["x"], maxapplications=4)]),
            limits=[limit(users=["x"], maxapplications=3)],
        ),
        limits=[limit(users=["x"], maxapplications=5)],
    )
    # a passes 3 down (not min(3, 5)), so b's 4 is above it.
    assert [(c, p) for c, p, _ in found(text)] == [("H3", "root.a.b")]


def test_resource_errors_come_before_app_errors():
    text = root(
        queue(
            "a",
            queue("b", limits=[limit(users=["x"], maxresources={"memory": 9}, maxapplications=9)]),
        ),
        limits=[limit(users=["x"], maxresources={"memory": 1}, maxapplications=1)],
    )
    assert [c for c, _, _ in found(text)] == ["H1", "H3"]


def test_h_rules_use_partition_limits_as_root_limits():
    from tests.trackers.config_docs import doc, partition

    text = doc(
        partition(
            queue("a", limits=[limit(users=["x"], maxapplications=9)]),
            limits=[limit(users=["x"], maxapplications=2)],
        )
    )
    (error,) = errors(text)
    assert (error["code"], error["field"]) == ("H3", "partitions[0].queues[0].limits[0].users[0]")


def test_h_rules_skip_limits_whose_quantities_failed():
    text = root(
        queue("a", limits=[limit(users=["x"], maxresources={"memory": "bad"})]),
        limits=[limit(users=["x"], maxresources={"memory": 1})],
    )
    assert [c for c, _, _ in found(text)] == ["QTY"]
