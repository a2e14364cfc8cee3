"""Per-limit rules L1-L12 at one queue."""

import pytest

from tests.trackers.config_docs import errors, limit, queue, root
from trackers.config import messages as m
from trackers.config import parse_config
from trackers.config.model import Limit
from trackers.config.queue_rules import go_limit
from trackers.config.scope import quantity_detail


def at_a(*entries, **queue_fields):
    return root(queue("a", limits=list(entries), **queue_fields))


def at_root(*entries, **root_fields):
    return root(queue("a"), limits=list(entries), **root_fields)


def codes_and_messages(text):
    return [(e["code"], e["message"]) for e in errors(text)]


def test_l1_entry_dump_is_go_struct_like():
    assert go_limit(Limit(description="nobody", max_applications=1)) == "{nobody [] [] map[] 1}"
    assert (
        go_limit(
            Limit(users=("a", "b"), groups=("g",), max_resources={"vcore": "1", "memory": "2"})
        )
        == "{ [a b] [g] map[memory:2 vcore:1] 0}"
    )


def test_l1_empty_users_and_groups():
    found = errors(at_a(limit(limit="nobody", maxapplications=1)))
    assert found == [
        {
            "code": "L1",
            "path": "root.a",
            "field": "partitions[0].queues[0].queues[0].limits[0]",
            "message": "empty user and group lists defined in limit '{nobody [] [] map[] 1}'",
        }
    ]


@pytest.mark.parametrize(
    "name",
    [
        "alice",
        "user.lastname",
        "user@domain",
        "system:serviceaccount:ns:sa",
        "name$",
        "_x",
        "a-b",
        "a#b",
        "a/b",
        "A1",
        "*",
    ],
)
def test_l2_valid_user_names(name):
    assert errors(at_a(limit(users=[name], maxapplications=1))) == []


@pytest.mark.parametrize(
    "name", ["user space", "1user", "rejected!name", "", "a$b", "$", "-a", ".a", "é", "**"]
)
def test_l2_invalid_user_names(name):
    found = errors(at_a(limit(users=["ok", name], maxapplications=1)))
    assert found[0] == {
        "code": "L2",
        "path": "root.a",
        "field": "partitions[0].queues[0].queues[0].limits[0].users[1]",
        "message": m.INVALID_LIMIT_USER.format(name=name),
    }


@pytest.mark.parametrize("name", ["dev", "team.a", "a:b", "_g", "G-1", "*"])
def test_l5_valid_group_names(name):
    entries = [limit(groups=["named"], maxapplications=1)] if name == "*" else []
    assert errors(at_a(*entries, limit(groups=[name], maxapplications=1))) == []


@pytest.mark.parametrize("name", ["group@domain", "a#b", "a/b", "g$", "1g", "", "a b"])
def test_l5_invalid_group_names(name):
    found = errors(at_a(limit(groups=[name], maxapplications=1)))
    assert found[0]["code"] == "L5"
    assert found[0]["message"] == m.INVALID_LIMIT_GROUP.format(name=name)
    assert found[0]["field"].endswith("limits[0].groups[0]")


def test_l3_duplicate_user_across_entries():
    found = errors(
        at_a(limit(users=["u"], maxapplications=1), limit(users=["u"], maxapplications=1))
    )
    assert found == [
        {
            "code": "L3",
            "path": "root.a",
            "field": "partitions[0].queues[0].queues[0].limits[1].users[0]",
            "message": "duplicated user name 'u', already exists",
        }
    ]


def test_l3_user_names_are_case_sensitive():
    assert errors(at_a(limit(users=["Bob", "bob"], maxapplications=1))) == []


def test_l3_users_and_groups_are_separate_namespaces():
    assert errors(at_a(limit(users=["x"], groups=["x"], maxapplications=1))) == []


def test_l4_every_named_user_after_the_wildcard_is_reported():
    found = codes_and_messages(
        at_a(limit(users=["*"], maxapplications=1), limit(users=["a", "b"], maxapplications=1))
    )
    assert found == [
        ("L4", m.USER_AFTER_WILDCARD.format(name="a")),
        ("L4", m.USER_AFTER_WILDCARD.format(name="b")),
    ]


def test_l4_user_wildcard_alone_is_legal():
    assert errors(at_a(limit(users=["*"], maxapplications=1))) == []


def test_l6_l7_group_duplicates_and_order():
    found = codes_and_messages(
        at_a(
            limit(groups=["g", "g"], maxapplications=1),
            limit(groups=["*"], maxapplications=1),
            limit(groups=["h"], maxapplications=1),
        )
    )
    assert found == [
        ("L6", m.DUPLICATE_GROUP.format(name="g")),
        ("L7", m.GROUP_AFTER_WILDCARD.format(name="h")),
    ]


def test_l8_group_wildcard_first_then_named_group():
    found = codes_and_messages(
        at_a(limit(groups=["*"], maxapplications=1), limit(groups=["g"], maxapplications=1))
    )
    assert found == [("L8", m.ONLY_WILDCARD_GROUP), ("L7", m.GROUP_AFTER_WILDCARD.format(name="g"))]


def test_l8_is_reported_once_per_queue():
    found = codes_and_messages(
        at_a(limit(groups=["*"], maxapplications=1), limit(users=["u"], maxapplications=1))
    )
    assert found == [("L8", m.ONLY_WILDCARD_GROUP)]


def test_l8_wildcard_with_named_group_in_same_entry():
    assert errors(at_a(limit(groups=["g", "*"], maxapplications=1))) == []


def test_l8_text_has_the_trailing_space():
    assert m.ONLY_WILDCARD_GROUP == (
        "should not specify only one group limit that is using the wildcard. "
        "There must be at least one limit with a group name defined "
    )


@pytest.mark.parametrize(
    ("resources", "written"),
    [
        ({"memory": 1}, None),
        ({"memory": 0}, "memory 0"),
        ({"memory": 0, "vcore": 0}, "memory 0, vcore 0"),
        ({"memory": 100, "cpu": 0, "nvidia.com/gpu": 0}, None),
        ({"vcore": "1m"}, None),
        ({"vcore": "0m"}, "vcore 0m"),
        ({}, None),
    ],
)
def test_l9_some_value_must_be_positive(resources, written):
    found = errors(at_a(limit(limit="x", users=["u"], maxresources=resources, maxapplications=1)))
    if written is None:
        assert found == []
    else:
        assert found == [
            {
                "code": "L9",
                "path": "root.a",
                "field": "partitions[0].queues[0].queues[0].limits[0].maxresources",
                "message": "MaxResources should be greater than zero in 'x' limit",
                "detail": f"max resources {written} of limit 'x': no value may be negative and at "
                "least one must be above zero",
            }
        ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1.5", "invalid quantity"),
        ("10m", "invalid suffix"),
        ("1000E", "invalid quantity: overflow"),
        ("", "invalid quantity"),
        ("2K", "invalid suffix"),
    ],
)
def test_l9_quantity_errors_are_qty_with_the_spec_text(value, message):
    found = errors(at_a(limit(users=["u"], maxresources={"memory": value}, maxapplications=1)))
    assert found == [
        {
            "code": "QTY",
            "path": "root.a",
            "field": "partitions[0].queues[0].queues[0].limits[0].maxresources.memory",
            "message": message,
            "detail": quantity_detail("memory", value, message),
        }
    ]


def test_l9_every_bad_quantity_is_reported_and_l10_l12_skip_the_entry():
    found = errors(
        at_a(
            limit(users=["u"], maxresources={"memory": "x", "vcore": "1.5"}),
            resources={"max": {"memory": 1}},
        )
    )
    assert [(e["code"], e["field"].rsplit(".", 1)[-1]) for e in found] == [
        ("QTY", "memory"),
        ("QTY", "vcore"),
    ]


@pytest.mark.parametrize(
    ("entry", "ok"),
    [
        (limit(limit="x", users=["u"]), False),
        (limit(limit="x", users=["u"], maxapplications=0, maxresources={}), False),
        (limit(limit="x", users=["u"], maxapplications=1), True),
        (limit(limit="x", users=["u"], maxresources={"memory": 1}), True),
    ],
)
def test_l10_something_must_be_limited(entry, ok):
    found = codes_and_messages(at_a(entry))
    assert found == ([] if ok else [("L10", m.LIMIT_ALL_NULL.format(limit="x"))])


def test_l10_follows_l9_for_all_zero_resources():
    found = [e["code"] for e in errors(at_a(limit(users=["u"], maxresources={"memory": 0})))]
    assert found == ["L9", "L10"]


def test_l10_empty_description_gives_a_double_space():
    found = errors(at_a(limit(users=["u"])))
    assert (
        found[0]["message"]
        == "invalid resource combination for limit  all resource limits are null"
    )


@pytest.mark.parametrize(
    ("queue_apps", "limit_apps", "ok"),
    [(0, 1000, True), (10, 10, True), (10, 11, False), (10, 1, True), (1, 2, False)],
)
def test_l11_limit_apps_within_queue_apps(queue_apps, limit_apps, ok):
    text = at_root(
        limit(limit="l", users=["u"], maxapplications=limit_apps), maxapplications=queue_apps
    )
    if queue_apps:
        text = root(
            queue("a", maxapplications=queue_apps),
            maxapplications=queue_apps,
            limits=[limit(limit="l", users=["u"], maxapplications=limit_apps)],
        )
    found = codes_and_messages(text)
    assert found == ([] if ok else [("L11", m.LIMIT_APPS_ABOVE_QUEUE.format(limit="l"))])


@pytest.mark.parametrize(
    ("queue_max", "limit_max", "ok"),
    [
        ({"memory": 100}, {"memory": 100}, True),
        ({"memory": 100}, {"memory": 101}, False),
        ({"memory": 100}, {"vcore": 10**6}, True),
        ({"memory": "1Gi"}, {"memory": "1G"}, True),
        ({"memory": "1G"}, {"memory": "1Gi"}, False),
        ({"vcore": "1"}, {"vcore": "1000m"}, True),
        ({"vcore": "1"}, {"vcore": "1001m"}, False),
        ({}, {"memory": "1E"}, True),
    ],
)
def test_l12_limit_fits_its_own_queue_max(queue_max, limit_max, ok):
    text = at_a(
        limit(limit="l", users=["u"], maxresources=limit_max),
        resources={"max": queue_max} if queue_max else None,
    )
    found = codes_and_messages(text)
    assert found == ([] if ok else [("L12", m.LIMIT_RESOURCES_ABOVE_QUEUE.format(limit="l"))])


def test_l12_root_limits_are_never_compared():
    assert errors(at_root(limit(users=["u"], maxresources={"memory": "1E"}))) == []


def test_l12_unparsable_queue_max_is_reported_once_and_by_r_rules_too():
    found = errors(
        at_a(
            limit(users=["u"], maxapplications=1),
            limit(users=["v"], maxapplications=1),
            resources={"max": {"memory": "lots"}},
        )
    )
    assert [(e["code"], e["message"]) for e in found] == [
        ("L12", "parse queue a max resource failed: invalid quantity"),
        ("QTY", "invalid quantity"),
    ]
    assert found[0]["field"] == "partitions[0].queues[0].queues[0].resources.max.memory"


def test_limits_are_parsed_into_the_model():
    config = parse_config(
        at_a(
            limit(
                limit="desc",
                users=["u", "*"],
                groups=["g"],
                maxresources={"memory": "1Gi"},
                maxapplications=3,
            )
        )
    )
    (entry,) = config.partitions[0].root.children[0].limits
    assert entry == Limit(
        description="desc",
        users=("u", "*"),
        groups=("g",),
        max_resources={"memory": "1Gi"},
        max_applications=3,
    )
