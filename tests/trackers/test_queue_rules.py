"""Q1 (ACLs), Q2 (child names), Q3 (sibling duplicates) and S1-S3 structure rules."""

import pytest

from tests.trackers.config_docs import doc, errors, limit, partition, queue, root
from trackers.config import messages as m


@pytest.mark.parametrize(
    "acl",
    [
        "",
        " ",
        "*",
        " * ",
        "alice",
        "alice,bob",
        "alice devs",
        " alice,bob  devs,ops ",
        "\talice\tdevs\t",
    ],
)
@pytest.mark.parametrize("key", ["adminacl", "submitacl"])
def test_acls_with_at_most_two_fields_are_fine(key, acl):
    assert errors(root(queue("a", **{key: acl}))) == []


@pytest.mark.parametrize(
    ("acl", "shown"),
    [
        ("users groups something_to_fail_it", "users groups something_to_fail_it"),
        ("  a b c  ", "a b c"),
        ("a  b  c", "a  b  c"),
        ("* * *", "* * *"),
    ],
)
@pytest.mark.parametrize("key", ["adminacl", "submitacl"])
def test_acls_with_more_than_two_fields_are_rejected(key, acl, shown):
    (error,) = errors(root(queue("a", **{key: acl})))
    assert error == {
        "code": "Q1",
        "path": "root.a",
        "field": f"partitions[0].queues[0].queues[0].{key}",
        "message": m.ACL_MULTIPLE_SPACES.format(acl=shown),
    }


def test_both_acls_are_checked_admin_first():
    found = errors(root(submitacl="a b c", adminacl="d e f"))
    assert [e["field"] for e in found] == [
        "partitions[0].queues[0].adminacl",
        "partitions[0].queues[0].submitacl",
    ]


@pytest.mark.parametrize(
    "name",
    ["a", "A", "0", "a_b", "a-b", "a#b", "a@b", "a/b", "a:b", "x" * 64, "UPPER", "_", "-"],
)
def test_valid_child_names(name):
    assert errors(root(queue(name))) == []


@pytest.mark.parametrize(
    "name", ["", "a.b", "a b", "a$", "a*", "x" * 65, "é", "a+b", "a!", "a,b", "(a)", "a\\b"]
)
def test_invalid_child_names_are_reported_at_the_parent(name):
    found = errors(root(queue("p", queue(name))))
    assert found[0] == {
        "code": "Q2",
        "path": "root.p",
        "field": "partitions[0].queues[0].queues[0].queues[0].name",
        "message": m.INVALID_QUEUE_NAME,
    }


def test_missing_queue_name_is_an_invalid_name():
    (error,) = errors("partitions:\n- queues:\n  - name: root\n    queues:\n    - parent: true\n")
    assert error["code"] == "Q2"


def test_top_level_names_are_checked_below_an_inserted_root():
    found = errors(doc(partition(queue("good"), queue("bad.name"))))
    assert found == [
        {
            "code": "Q2",
            "path": "root",
            "field": "partitions[0].queues[1].name",
            "message": m.INVALID_QUEUE_NAME,
        }
    ]


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (["a", "a"], "a"),
        (["Test", "test"], "test"),
        (["test", "TEST"], "TEST"),
        (["x", "y", "X"], "X"),
    ],
)
def test_duplicate_siblings_name_the_second_as_written(names, shown):
    found = errors(root(*[queue(n) for n in names]))
    assert [(e["code"], e["message"]) for e in found] == [
        ("Q3", m.DUPLICATE_CHILD.format(name=shown, level=1))
    ]
    assert found[0]["path"] == "root"
    assert found[0]["field"] == f"partitions[0].queues[0].queues[{len(names) - 1}].name"


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_duplicate_level_counts_from_roots_children(depth):
    inner = [queue("dup1", queue("leaf")), queue("Dup1")]
    for level in range(depth - 1, 0, -1):
        inner = [queue(f"l{level}", *inner)]
    found = errors(root(*inner))
    assert [e["message"] for e in found] == [m.DUPLICATE_CHILD.format(name="Dup1", level=depth)]


def test_same_names_in_different_parents_are_fine():
    assert errors(root(queue("a", queue("x")), queue("b", queue("x")))) == []


def test_every_duplicate_is_reported():
    found = errors(root(queue("a"), queue("A"), queue("a")))
    assert [e["message"] for e in found] == [
        m.DUPLICATE_CHILD.format(name="A", level=1),
        m.DUPLICATE_CHILD.format(name="a", level=1),
    ]


def test_queue_rules_run_parent_first_acl_then_limits_then_child_names():
    found = errors(
        root(
            queue(
                "a",
                queue("x.y"),
                adminacl="1 2 3",
                limits=[limit(users=["bad name"], maxapplications=1)],
            ),
            queue("b.c"),
        )
    )
    assert [(e["code"], e["path"]) for e in found] == [
        ("Q2", "root"),
        ("Q1", "root.a"),
        ("L2", "root.a"),
        ("Q2", "root.a"),
    ]


# -- S1 S2 S3 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["partitions:\n- name: x\n", "partitions:\n- {name: x, queues: }\n"]
)
def test_s1_queues_missing_or_null(text):
    assert errors(text) == [
        {"code": "S1", "path": "x", "field": "partitions[0].queues", "message": m.QUEUES_NOT_SET}
    ]


def test_s1_does_not_hide_other_partitions():
    found = errors(doc({"name": "x"}, partition(queue("a", adminacl="a b c"), name="y")))
    assert [e["code"] for e in found] == ["S1", "Q1"]


@pytest.mark.parametrize(
    "resources",
    [
        {"max": {"memory": 1}},
        {"guaranteed": {"vcore": 1}},
        {"max": {"memory": 0}},
        {"max": {}},
        {"guaranteed": {}},
    ],
)
def test_s2_root_must_not_have_resources(resources):
    found = errors(root(queue("a"), resources=resources))
    assert found[0] == {
        "code": "S2",
        "path": "root",
        "field": "partitions[0].queues[0].resources",
        "message": m.ROOT_HAS_RESOURCES,
    }


@pytest.mark.parametrize("resources", [{}, None, {"max": None}])
def test_s2_an_empty_resources_block_on_root_is_fine(resources):
    assert errors(root(queue("a"), resources=resources)) == []


def test_s2_inserted_root_never_has_resources():
    assert errors(doc(partition(queue("a", resources={"max": {"memory": 5}}), queue("b")))) == []


def test_s3_different_partition_and_root_limits():
    entry = limit(users=["a"], maxapplications=1)
    other = limit(users=["a"], maxapplications=2)
    found = errors(doc(partition(queue("root", limits=[other]), limits=[entry])))
    assert found == [
        {
            "code": "S3",
            "path": "default",
            "field": "partitions[0].limits",
            "message": m.PARTITION_LIMITS_DIFFER,
        }
    ]


def test_s3_order_of_entries_matters():
    one = limit(users=["a"], maxapplications=1)
    two = limit(groups=["g"], maxapplications=1)
    found = errors(doc(partition(queue("root", limits=[two, one]), limits=[one, two])))
    assert [e["code"] for e in found] == ["S3"]


def test_s3_partition_limits_on_an_inserted_root_are_checked_as_root_limits():
    found = errors(
        doc(
            partition(queue("a"), queue("b"), limits=[limit(users=["bad name"], maxapplications=1)])
        )
    )
    assert found == [
        {
            "code": "L2",
            "path": "root",
            "field": "partitions[0].limits[0].users[0]",
            "message": m.INVALID_LIMIT_USER.format(name="bad name"),
        }
    ]
