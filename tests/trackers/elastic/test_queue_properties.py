"""elastic_queues: a partition's queues with min, max and the elastic.* properties read."""

from __future__ import annotations

import pytest

from tests.trackers.config_docs import queue, root
from trackers import parse_config
from trackers.config.model import Partition, Queue, Resources, frozen_map
from trackers.elastic import PROP_ALLOW_LENT, PROP_SYSTEM, PROP_WEIGHT, ElasticQueue, parse_weight
from trackers.elastic import elastic_queues as read
from trackers.elastic.queues import WeightError

GI = 2**30
MAX = {"vcore": "8", "memory": "16Gi"}
MAX_UNITS = {"vcore": 8000, "memory": 16 * GI}


def one(properties=None, resources=None) -> ElasticQueue:
    resources = {"max": MAX} if resources is None else resources
    text = root(queue("a", resources=resources, properties=properties or {}))
    return read(parse_config(text).partitions[0])[1]


def test_tree_in_pre_order_with_parents():
    text = root(queue("a", queue("x"), queue("y")), queue("b"))
    queues = read(parse_config(text).partitions[0])
    assert [(q.path, q.parent) for q in queues] == [
        ("root", None), ("root.a", "root"), ("root.a.x", "root.a"), ("root.a.y", "root.a"),
        ("root.b", "root"),
    ]


def test_min_and_max_in_base_units():
    q = one(resources={"guaranteed": {"vcore": "500m", "memory": "1Gi"}, "max": MAX})
    assert q.min == {"vcore": 500, "memory": GI}
    assert q.max == MAX_UNITS


@pytest.mark.parametrize(
    "text",
    ["vcore=2,memory=4Gi", " vcore = 2 , memory= 4Gi ", '{"vcore": "2", "memory": "4Gi"}',
     '{"vcore": 2, "memory": "4Gi"}'],
)
def test_weight_in_either_syntax(text):
    assert one({PROP_WEIGHT: text}).weight == {"vcore": 2000, "memory": 4 * GI}


@pytest.mark.parametrize(
    "text", [None, "", "vcore=0,memory=0", "vcore=x", "vcore=-1", "{oops", "[1]", "=3"],
)
def test_missing_unreadable_or_zero_weight_is_max(text):
    properties = {} if text is None else {PROP_WEIGHT: text}
    assert one(properties).weight == MAX_UNITS


def test_weight_rekeyed_to_max():
    q = one({PROP_WEIGHT: "vcore=3,nvidia.com/gpu=2"})
    assert q.weight == {"vcore": 3000, "memory": 16 * GI}


def test_zero_weight_for_one_kind_is_kept():
    assert one({PROP_WEIGHT: "vcore=0,memory=1"}).weight == {"vcore": 0, "memory": 1}


@pytest.mark.parametrize(
    ("value", "lends"),
    [(None, True), ("true", True), ("false", False), ("FALSE", False), (" False ", False),
     ("no", True), ("", True)],
)
def test_allow_lent_is_true_unless_false(value, lends):
    properties = {} if value is None else {PROP_ALLOW_LENT: value}
    assert one(properties).allow_lent is lends


@pytest.mark.parametrize(
    ("value", "system"),
    [(None, False), ("true", True), ("TRUE", True), ("false", False), ("yes", False)],
)
def test_system_only_when_true(value, system):
    properties = {} if value is None else {PROP_SYSTEM: value}
    assert one(properties).system is system


def test_root_is_never_a_system_queue():
    text = root(queue("a"), properties={PROP_SYSTEM: "true"})
    assert read(parse_config(text).partitions[0])[0].system is False


def test_parse_weight_names_negative_kinds():
    with pytest.raises(WeightError) as caught:
        parse_weight('{"vcore": "-1", "memory": -3, "gpu": "1"}')
    assert caught.value.negative == ("memory", "vcore")


def test_bad_quantities_are_left_out_not_raised():
    # parse_config refuses such a document; a model built another way must still be readable.
    bad = Queue(
        name="a", path="root.a",
        resources=Resources(guaranteed=frozen_map({"vcore": "lots", "memory": "1"}),
                            max=frozen_map({"vcore": "2", "memory": "-1"})),
        properties=frozen_map({PROP_WEIGHT: "vcore=1"}),
    )
    partition = Partition(name="default", root=Queue(name="root", path="root", children=(bad,)))
    q = read(partition)[1]
    assert (q.min, q.max, q.weight) == ({"memory": 1}, {"vcore": 2000}, {"vcore": 1000})
