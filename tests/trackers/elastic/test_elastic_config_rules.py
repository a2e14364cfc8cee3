"""check_elastic: the elastic rules of spec 1.11 (codes E-...), with where each is written."""

from __future__ import annotations

import pytest

from tests.trackers.config_docs import doc, partition, queue, root
from trackers.config.build import build_config
from trackers.config.loader import load_document
from trackers.config.validate import check_config
from trackers.elastic import check_elastic
from trackers.elastic import messages as m

Q0 = "partitions[0].queues[0].queues[0]"  # the first queue below root
Q00 = f"{Q0}.queues[0]"


def res(guaranteed=None, maximum=None):
    out = {}
    if guaranteed is not None:
        out["guaranteed"] = guaranteed
    if maximum is not None:
        out["max"] = maximum
    return out


def check(text, partitions=("default",)):
    config, locations, errors = build_config(load_document(text))
    assert errors == []
    return check_elastic(config, partitions, locations)


CPU = {"vcore": "4"}


def test_a_good_tree_passes():
    text = root(
        queue("a", queue("x", resources=res({"vcore": "1"}, CPU)),
              queue("y", resources=res({"vcore": "1"}, CPU)),
              resources=res({"vcore": "2"}, CPU),
              properties={"elastic.shared-weight": "vcore=2", "elastic.allow-lent": "FALSE"}),
        queue("sys", properties={"elastic.system": "true"}),
    )
    assert check(text) == []


@pytest.mark.parametrize(
    ("value", "negative"),
    [("vcore=-1", True), ('{"vcore": -2}', True), ("vcore", False), ("{bad", False),
     ('["vcore"]', False), ("vcore=lots", False), ('{"vcore": true}', False)],
)
def test_e_s3_shared_weight_must_parse(value, negative):
    text = root(queue("a", resources=res(None, CPU),
                      properties={"elastic.shared-weight": value}))
    (error,) = check(text)
    assert (error["code"], error["path"]) == ("E-S3", "root.a")
    assert error["field"] == f"{Q0}.properties.elastic.shared-weight"
    if negative:
        assert error["message"] == m.WEIGHT_NEGATIVE.format(
            queue="root.a", prop="elastic.shared-weight", dimensions="vcore"
        )
    else:
        assert error["message"].startswith("root.a quota.Properties[elastic.shared-weight]'s "
                                           "value is invalid: ")
    assert "elastic.shared-weight" in error["detail"]


def test_e_s4_min_key_not_in_max():
    text = root(queue("a", resources=res({"vcore": "1", "memory": "1Gi"}, CPU)))
    (error,) = check(text)
    assert error == {
        "code": "E-S4",
        "path": "root.a",
        "field": f"{Q0}.resources.guaranteed.memory",
        "message": m.MIN_KEY_NOT_IN_MAX.format(kind="memory", queue="root.a"),
        "detail": m.DETAIL_MIN_KEY_NOT_IN_MAX.format(kind="memory", value="memory 1 GiB"),
    }


def test_e_t4_max_keys_must_equal_the_parents():
    text = root(queue("a", queue("x", resources=res(None, {"vcore": "1", "memory": "1"})),
                      resources=res(None, CPU)))
    (error,) = check(text)
    assert (error["code"], error["path"], error["field"]) == (
        "E-T4", "root.a.x", f"{Q00}.resources.max",
    )
    assert error["message"] == m.MAX_KEYS_DIFFER.format(parent="root.a", queue="root.a.x")
    assert "max names memory, vcore" in error["detail"]


def test_e_t4_min_keys_within_the_parents():
    text = root(queue("a", queue("x", resources=res({"vcore": "1"}, CPU)),
                      resources=res({}, CPU)))
    codes = [(e["code"], e["field"], e["message"]) for e in check(text)]
    assert codes == [
        ("E-T5", f"{Q00}.resources.guaranteed",
         m.MIN_SUM_ABOVE_PARENT.format(parent="root.a")),
        ("E-T4", f"{Q00}.resources.guaranteed",
         m.MIN_KEYS_NOT_INCLUDED.format(parent="root.a", queue="root.a.x")),
    ]


def test_e_t4_and_e_t5_skip_first_level_queues():
    text = root(queue("a", resources=res({"vcore": "1"}, {"vcore": "2", "memory": "1"})),
                queue("b", resources=res({"vcore": "5"}, CPU)))
    assert check(text) == []


def test_e_t5_reports_only_kinds_missing_from_the_parents_min():
    gpu = {"vcore": "4", "nvidia.com/gpu": "4"}
    text = root(
        queue("a",
              queue("x", resources=res({"vcore": "3", "nvidia.com/gpu": "1"}, gpu)),
              queue("y", resources=res({"vcore": "3", "nvidia.com/gpu": "2"}, gpu)),
              queue("z", resources=res({"vcore": "1"}, gpu)),
              resources=res({"vcore": "2"}, gpu)),
    )
    t5 = [e for e in check(text) if e["code"] == "E-T5"]
    assert [e["path"] for e in t5] == ["root.a.x", "root.a.y"]
    assert t5[0]["detail"] == m.DETAIL_MIN_SUM_ABOVE_PARENT.format(
        own="nvidia.com/gpu 1", parent="root.a", kinds="nvidia.com/gpu",
        total="nvidia.com/gpu 3",
    )
    # The vcore sum (7 > 2) is R3's to report, not E-T5's.
    assert any(e["code"] == "R3" for e in check_config(build_config(load_document(text))[0]))


@pytest.mark.parametrize("prop", ["elastic.allow-lent", "elastic.system"])
def test_e_p1_flags_must_be_true_or_false(prop):
    text = root(queue("a", properties={prop: "yes"}))
    (error,) = check(text)
    assert (error["code"], error["field"]) == ("E-P1", f"{Q0}.properties.{prop}")
    assert error["message"] == m.FLAG_INVALID.format(queue="root.a", prop=prop, value="yes")


def test_only_the_named_partitions_are_checked():
    bad = queue("a", properties={"elastic.system": "maybe"})
    text = doc(partition(bad, name="one"), partition(bad, name="two"))
    assert [(e["path"], e["field"]) for e in check(text, ["two"])] == [
        ("root.a", "partitions[1].queues[0].properties.elastic.system"),
    ]
    assert check(text, []) == []


def test_without_locations_fields_are_where_a_dump_writes_them():
    text = root(queue("a", properties={"elastic.system": "maybe"}))
    config = build_config(load_document(text))[0]
    (error,) = check_elastic(config, ["default"])
    assert error["field"] == f"{Q0}.properties.elastic.system"


def test_unparsable_quantities_are_left_to_qty():
    text = root(queue("a", queue("x", resources=res({"vcore": "lots"}, CPU)),
                      resources=res({"vcore": "1"}, CPU)))
    assert check(text) == []
