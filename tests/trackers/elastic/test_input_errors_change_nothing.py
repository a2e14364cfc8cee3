"""Bad calls raise InvalidRequest with the messages' texts and leave the tree as it was."""

from __future__ import annotations

import pytest

from tests.trackers.elastic.support import ROOT, build, eq
from trackers.elastic import ElasticQueue, ElasticTree
from trackers.elastic import messages as m
from trackers.errors import InvalidRequest


@pytest.fixture
def tree():
    return build(eq("p", 10, 100), eq("p.x", 5, 100), eq("q", 10, 100), total=100,
                 demand={"p.x": 50, "q": 70}, used={"q": 20})


def unchanged(tree, call):
    before = tree.states()
    call()
    assert tree.refresh() == frozenset()
    assert tree.states() == before


BAD_VALUES = [
    ({"cpu": -1}, m.ERR_VALUE.format(what="{what}", kind="cpu", value=-1)),
    ({"cpu": 1.5}, m.ERR_VALUE.format(what="{what}", kind="cpu", value=1.5)),
    ({"cpu": "3"}, m.ERR_VALUE.format(what="{what}", kind="cpu", value="3")),
    ({"cpu": True}, m.ERR_VALUE.format(what="{what}", kind="cpu", value=True)),
    ({"cpu": None}, m.ERR_VALUE.format(what="{what}", kind="cpu", value=None)),
    ({"": 1}, m.ERR_KIND.format(kind="")),
    ({3: 1}, m.ERR_KIND.format(kind=3)),
    ([("cpu", 1)], m.ERR_NOT_A_MAP.format(what="{what}", value=[("cpu", 1)])),
    (None, m.ERR_NOT_A_MAP.format(what="{what}", value=None)),
]


@pytest.mark.parametrize(("value", "message"), BAD_VALUES)
@pytest.mark.parametrize(
    ("setter", "what"),
    [("set_used", "used"), ("set_demand", "demand"), ("set_guaranteed", "guaranteed"),
     ("set_total", "total")],
)
def test_bad_values_are_refused(tree, setter, what, value, message):
    # Each call also carries a good change first in the same map where it can, to show that
    # no part of a refused map is applied.
    if isinstance(value, dict):
        value = {"cpu": 99, **value} if "cpu" not in value else {"memory": 5, **value}

    def call():
        method = getattr(tree, setter)
        args = (value,) if setter == "set_total" else ("root.q", value)
        with pytest.raises(InvalidRequest) as caught:
            method(*args)
        assert str(caught.value) == message.format(what=what)

    unchanged(tree, call)


@pytest.mark.parametrize("method", ["set_used", "set_demand", "set_guaranteed"])
def test_unknown_queue_is_refused(tree, method):
    def call():
        with pytest.raises(InvalidRequest) as caught:
            getattr(tree, method)("root.nope", {"cpu": 1})
        assert str(caught.value) == m.ERR_UNKNOWN_QUEUE.format(path="root.nope")

    unchanged(tree, call)


@pytest.mark.parametrize("read", ["state", "runtime", "unallocated", "is_leaf"])
def test_reading_an_unknown_queue_is_refused(tree, read):
    with pytest.raises(InvalidRequest, match="not in this elastic quota tree"):
        getattr(tree, read)("root.nope")
    assert "root.nope" not in tree
    assert "root.p" in tree


def test_demand_on_a_parent_is_refused(tree):
    def call():
        with pytest.raises(InvalidRequest) as caught:
            tree.set_demand("root.p", {"cpu": 5})
        assert str(caught.value) == m.ERR_PARENT_DEMAND.format(path="root.p")

    unchanged(tree, call)
    assert tree.is_leaf("root.p.x")
    assert not tree.is_leaf("root.p")


def test_used_on_a_parent_counts_for_it():
    tree = build(eq("p", 10, 100), eq("p.x", 5, 100), total=100)
    tree.set_used("root.p", {"cpu": 7})
    tree.refresh()
    assert tree.state("root.p").used == {"cpu": 7}
    assert tree.state("root.p").request == {"cpu": 7}


@pytest.mark.parametrize(
    ("queues", "message"),
    [
        ([eq("a")], m.ERR_ROOTS.format(count=0)),
        ([ROOT, ROOT], m.ERR_DUPLICATE_QUEUE.format(path="root")),
        ([ROOT, ElasticQueue("other", None, {}, {}, {})], m.ERR_ROOTS.format(count=2)),
        ([ROOT, eq("a.b")], m.ERR_NO_PARENT.format(path="root.a.b", parent="root.a")),
        ([ROOT, ElasticQueue("x", "y", {}, {}, {}), ElasticQueue("y", "x", {}, {}, {})],
         m.ERR_UNREACHABLE.format(path="x")),
    ],
)
def test_a_malformed_queue_list_is_refused(queues, message):
    with pytest.raises(InvalidRequest) as caught:
        ElasticTree(queues)
    assert str(caught.value) == message


def test_a_bad_total_is_refused_at_build():
    with pytest.raises(InvalidRequest):
        ElasticTree([ROOT], total={"cpu": -5})


def test_membership_of_anything(tree):
    assert ["root"] not in tree
    assert None not in tree
