"""Spec section 4.1, scenarios V-01 to V-27 (their config part): the first error's code and text."""

import textwrap

import pytest

from tests.trackers.config_docs import doc, limit, partition, queue, root
from trackers.config import messages as m
from trackers.config import parse_config, validate_config


def _yaml(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def _rejects(text: str, code: str, message: str) -> None:
    found = validate_config(text)
    assert found, "expected a rejection"
    assert (found[0]["code"], found[0]["message"]) == (code, message)


def _accepts(text: str) -> None:
    assert validate_config(text) == []


def _limits_at_root(*entries):
    return root(queue("a"), limits=list(entries))


# V-01
def test_v01_root_is_inserted_above_several_top_level_queues():
    config = parse_config(
        _yaml("""
        partitions:
          - name: default
            queues:
              - name: a
              - name: b
    """)
    )
    root_queue = config.partitions[0].root
    assert [q.path for q in root_queue.walk()] == ["root", "root.a", "root.b"]
    assert root_queue.parent is True


# V-02
V02 = _yaml("""
    partitions:
      - name: default
        queues:
          - name: root
            resources:
              max: {memory: 10000, vcore: 100}
""")


def test_v02_root_with_resources_is_rejected():
    _rejects(V02, "S2", "root queue must not have resource limits set")


# V-03
@pytest.mark.parametrize("name", ["no.in-name", "special-$-name", "a" * 65])
def test_v03_invalid_queue_names_are_rejected(name):
    _rejects(root(queue(name)), "Q2", m.INVALID_QUEUE_NAME)


@pytest.mark.parametrize(
    "name", ["aZ09_-" * 10 + "abcd", "parent_Child_test-a_b_#_c_#_d_/_e@dom:ain"]
)
def test_v03_valid_queue_names_are_accepted(name):
    assert len(name) <= 64
    _accepts(root(queue(name)))


def test_v03_the_invalid_queue_name_text_is_the_spec_text():
    assert m.INVALID_QUEUE_NAME == (
        "invalid queue name, max 64 characters consisting of alphanumeric characters and "
        "'-', '_', '#', '@', '/', ':' allowed"
    )


# V-04
def test_v04_duplicate_siblings_differ_only_in_case():
    _rejects(
        root(queue("Test"), queue("test")),
        "Q3",
        "duplicate child name found with name 'test', level 1",
    )


def test_v04_one_level_deeper_reports_level_2():
    _rejects(
        root(queue("sub", queue("Test"), queue("test"))),
        "Q3",
        "duplicate child name found with name 'test', level 2",
    )


# V-05
def test_v05_guaranteed_larger_than_max():
    _rejects(
        root(queue("a", resources={"guaranteed": {"memory": 200}, "max": {"memory": 100}})),
        "R1",
        "guaranteed resource map[memory:200] is larger than maximum resource map[memory:100] "
        "for queue a",
    )


# V-06
def _v06(child_max):
    return root(
        queue(
            "parent",
            queue("parent1", queue("child1", resources={"max": child_max})),
            resources={"max": {"memory": 100}},
        )
    )


def test_v06_child_max_above_parent_max_across_a_skipped_level():
    _rejects(
        _v06({"memory": 150}),
        "R2",
        "max resource of parent map[memory:100] is smaller than maximum resource map[memory:150] "
        "for queue child1",
    )


def test_v06_variant_type_not_limited_by_parent_is_accepted():
    _accepts(_v06({"memory": 100, "vcore": 5}))


# V-07 / V-08
def _v07(parent_guaranteed):
    child = {"guaranteed": {"memory": 10, "vcores": 30}, "max": {"memory": 10, "vcores": 30}}
    return root(
        queue(
            "parent",
            queue("child1", resources=child),
            queue("child2", resources=child),
            resources={"guaranteed": parent_guaranteed, "max": {"memory": 50, "vcores": 33}},
        )
    )


def test_v07_children_guaranteed_above_parent_guaranteed():
    _rejects(
        _v07({"memory": 10, "vcores": 30}),
        "R3",
        "guaranteed resource of parent map[memory:10 vcores:30] is smaller than sum of guaranteed "
        "resources map[memory:20 vcores:60] of the children for queue parent",
    )


def test_v08_children_guaranteed_above_parent_max_when_guaranteed_is_partial():
    _rejects(
        _v07({"memory": 20}),
        "R4",
        "max resource map[memory:50 vcores:33] is smaller than sum of guaranteed resources "
        "map[memory:20 vcores:60] of the children for queue parent",
    )


# V-09
def test_v09_skipped_guaranteed_level():
    _rejects(
        root(
            queue(
                "parent",
                queue("parent1", queue("child1", resources={"guaranteed": {"memory": 150}})),
                resources={"guaranteed": {"memory": 100}},
            )
        ),
        "R3",
        "guaranteed resource of parent map[memory:100] is smaller than sum of guaranteed "
        "resources map[memory:150] of the children for queue parent",
    )


# V-10
def test_v10a_child_without_maxapplications_under_capped_root():
    _rejects(root(queue("a"), maxapplications=10), "A2", m.CHILD_APPS_UNSET)
    assert m.CHILD_APPS_UNSET == (
        "maxApplications is either undefined or zero, which is not allowed when parent queue's "
        "maxApplications is defined"
    )


def test_v10b_child_above_parent():
    _rejects(
        root(queue("a", maxapplications=20), maxapplications=10),
        "A1",
        "parent maxApplications must be larger than child maxApplications",
    )


def test_v10c_equal_is_fine():
    _accepts(root(queue("a", maxapplications=10), maxapplications=10))


def test_v10d_grandchild_above_child_without_root_cap():
    _rejects(
        root(queue("a", queue("b", maxapplications=7), maxapplications=5)),
        "A1",
        m.CHILD_APPS_ABOVE_PARENT,
    )


# V-11
def test_v11_limit_without_users_and_groups():
    found = validate_config(_limits_at_root(limit(limit="nobody", maxapplications=1)))
    assert found[0]["code"] == "L1"
    assert "empty user and group lists defined in limit" in found[0]["message"]


# V-12
@pytest.mark.parametrize(
    "entry",
    [
        limit(limit="x", users=["alice"]),
        limit(limit="x", users=["alice"], maxresources={}, maxapplications=0),
    ],
)
def test_v12_limit_with_nothing_to_limit(entry):
    _rejects(
        _limits_at_root(entry),
        "L10",
        "invalid resource combination for limit x all resource limits are null",
    )


# V-13
@pytest.mark.parametrize(
    "entry",
    [
        limit(limit="x", users=["alice"], maxresources={"memory": 0, "cpu": 0}, maxapplications=1),
        limit(limit="x", users=["alice"], maxresources={"memory": 0}),
    ],
)
def test_v13_zero_values_in_limit_resources(entry):
    _rejects(_limits_at_root(entry), "L9", "MaxResources should be greater than zero in 'x' limit")


def test_v13c_some_zero_values_are_fine():
    _accepts(
        _limits_at_root(
            limit(
                limit="x",
                users=["alice"],
                maxresources={"memory": 100, "cpu": 0, "nvidia.com/gpu": 0},
                maxapplications=1,
            )
        )
    )


# V-14
def test_v14a_user_after_wildcard_in_one_entry():
    _rejects(
        _limits_at_root(limit(users=["*", "test-user"], maxapplications=1)),
        "L4",
        "should not set no wildcard user test-user after wildcard user limit",
    )


def test_v14b_user_after_wildcard_in_a_later_entry():
    _rejects(
        _limits_at_root(
            limit(users=["*"], maxapplications=1), limit(users=["bob"], maxapplications=1)
        ),
        "L4",
        "should not set no wildcard user bob after wildcard user limit",
    )


# V-15
def test_v15a_group_after_group_wildcard():
    _rejects(
        _limits_at_root(
            limit(groups=["dev"], maxapplications=1),
            limit(groups=["*"], maxapplications=1),
            limit(groups=["ops"], maxapplications=1),
        ),
        "L7",
        "should not set no wildcard group ops after wildcard group limit",
    )


@pytest.mark.parametrize(
    "entries",
    [
        [limit(groups=["*"], maxapplications=1)],
        [limit(users=["*"], maxapplications=1), limit(groups=["*"], maxapplications=1)],
    ],
)
def test_v15bc_group_wildcard_alone(entries):
    found = validate_config(_limits_at_root(*entries))
    assert found[0]["code"] == "L8"
    assert (
        "should not specify only one group limit that is using the wildcard"
        in (found[0]["message"])
    )
    assert found[0]["message"].endswith("defined ")


def test_v15d_group_wildcard_after_named_group():
    _accepts(
        _limits_at_root(
            limit(groups=["dev"], maxapplications=1), limit(groups=["*"], maxapplications=1)
        )
    )


# V-16
def test_v16a_duplicate_user_in_one_entry():
    _rejects(
        _limits_at_root(limit(users=["user1", "user2", "user1"], maxapplications=1)),
        "L3",
        "duplicated user name 'user1', already exists",
    )


def test_v16b_two_user_wildcards():
    _rejects(
        _limits_at_root(
            limit(users=["*"], maxapplications=1), limit(users=["*"], maxapplications=1)
        ),
        "L3",
        "duplicated user name '*', already exists",
    )


def test_v16c_duplicate_group_across_entries():
    _rejects(
        _limits_at_root(
            limit(groups=["test"], maxapplications=1), limit(groups=["test"], maxapplications=1)
        ),
        "L6",
        "duplicated group name 'test'",
    )


def test_v16d_same_user_in_different_queues_is_fine():
    _accepts(
        root(
            queue("a", limits=[limit(users=["user1"], maxapplications=2)]),
            limits=[limit(users=["user1"], maxapplications=5)],
        )
    )


# V-17
@pytest.mark.parametrize(
    ("entry", "code", "message"),
    [
        (
            limit(users=["user space"], maxapplications=1),
            "L2",
            "invalid limit user name 'user space' in limit definition",
        ),
        (
            limit(groups=["group@domain"], maxapplications=1),
            "L5",
            "invalid limit group name 'group@domain' in limit definition",
        ),
        (
            limit(users=["1user"], maxapplications=1),
            "L2",
            "invalid limit user name '1user' in limit definition",
        ),
    ],
)
def test_v17_invalid_limit_names(entry, code, message):
    _rejects(_limits_at_root(entry), code, message)


def test_v17d_dotted_and_at_names_are_fine():
    _accepts(
        _limits_at_root(
            limit(users=["user.lastname", "user@domain"], maxapplications=1),
            limit(groups=["test"], maxapplications=1),
        )
    )


# V-18
def _v18(entry, queue_max=None):
    return root(
        queue(
            "level1",
            maxapplications=100,
            resources={"max": queue_max or {"memory": 10000, "vcore": 10}},
            limits=[entry],
        )
    )


def test_v18_limit_above_its_queue_max():
    _rejects(
        _v18(
            limit(
                limit="lim",
                users=["test"],
                maxapplications=5,
                maxresources={"memory": 100000, "vcore": 100},
            )
        ),
        "L12",
        "invalid MaxResources settings for limit lim exeecd current the queue MaxResources",
    )


def test_v18a_limit_above_its_queue_maxapplications():
    _rejects(
        _v18(
            limit(
                limit="lim",
                users=["test"],
                maxapplications=1000,
                maxresources={"memory": 10000, "vcore": 10},
            )
        ),
        "L11",
        "invalid MaxApplications settings for limit lim exceed current the queue MaxApplications",
    )


def test_v18b_limit_without_maxapplications_under_a_capped_queue():
    _accepts(_v18(limit(limit="lim", users=["test"], maxresources={"memory": 10000, "vcore": 10})))


def test_v18c_queue_max_that_does_not_parse():
    _rejects(
        _v18(
            limit(
                limit="lim",
                users=["test"],
                maxapplications=5,
                maxresources={"memory": 100000, "vcore": 100},
            ),
            queue_max={"memory": "parseFailed", "vcore": 10},
        ),
        "L12",
        "parse queue level1 max resource failed: invalid quantity",
    )


# V-19
def test_v19_limit_only_compared_with_its_own_queue_max():
    _accepts(
        root(
            queue(
                "parent",
                queue("child", limits=[limit(users=["alice"], maxresources={"memory": 500})]),
                resources={"max": {"memory": 100}},
            )
        )
    )


# V-20
V20 = _yaml("""
    partitions:
      - name: default
        queues:
          - name: root
            maxapplications: 3000
            limits:
              - limit:
                users: [user1]
                maxresources: {memory: 10000, vcore: 10000}
                maxapplications: 500
            queues:
              - name: level1
                maxapplications: 100
                resources:
                  guaranteed: {memory: 1000, vcore: 10}
                  max: {memory: 10000, vcore: 1000}
                limits:
                  - limit:
                    users: [user1]
                    maxapplications: 50
                    maxresources: {memory: 1000, vcore: 100}
                queues:
                  - name: leaf
                    maxapplications: 100
                    resources:
                      guaranteed: {memory: 1000, vcore: 10}
                      max: {memory: 10000, vcore: 1000}
                    limits:
                      - limit:
                        users: [user1]
                        maxapplications: 50
                        maxresources: {memory: 10000, vcore: 100}
""")


def _v20_variant(text):
    # The leaf limit is the last "maxapplications: 50" / "memory: 10000, vcore: 100" pair.
    head, _, tail = text.rpartition("maxapplications: 50")
    tail = tail.replace("{memory: 10000, vcore: 100}", "{memory: 1000, vcore: 100}")
    return head + "maxapplications: 90" + tail


def test_v20_hierarchical_user_resources():
    _rejects(
        V20,
        "H1",
        "user user1 max resource map[memory:10000 vcore:100000] of queue leaf is greater than "
        "immediate or ancestor parent maximum resource map[memory:1000 vcore:100000]",
    )


def test_v20_variant_hierarchical_user_applications():
    _rejects(
        _v20_variant(V20),
        "H3",
        "user user1 max applications 90 of queue leaf is greater than immediate or ancestor "
        "parent max applications 50",
    )


def test_v20_group_variant_resources_and_applications():
    groups = V20.replace("users: [user1]", "groups: [group1]")
    _rejects(
        groups,
        "H2",
        "group group1 max resource map[memory:10000 vcore:100000] of queue leaf is greater than "
        "immediate or ancestor parent maximum resource map[memory:1000 vcore:100000]",
    )
    _rejects(
        _v20_variant(groups),
        "H4",
        "group group1 max applications 90 of queue leaf is greater than immediate or ancestor "
        "parent max applications 50",
    )


# V-21
def _v21(child_limits, grandchild_limits=None):
    grandchild = (
        [queue("child2", limits=grandchild_limits)] if grandchild_limits is not None else []
    )
    return root(
        queue(
            "parent",
            queue("child1", *grandchild, limits=child_limits),
            limits=[
                limit(limit="u1", users=["test-user1"], maxresources={"memory": 100}),
                limit(limit="w", users=["*"], maxresources={"memory": 100}),
            ],
        )
    )


U1_50 = limit(limit="u1", users=["test-user1"], maxresources={"memory": 50})


def test_v21_named_user_under_an_ancestor_wildcard():
    _rejects(
        _v21([U1_50, limit(limit="u2", users=["test-user2"], maxresources={"memory": 150})]),
        "H1",
        "user test-user2 max resource map[memory:150] of queue child1 is greater than wildcard "
        "maximum resource map[memory:100] of immediate or ancestor parent queue",
    )


def test_v21_variant_wildcard_under_an_ancestor_wildcard():
    _rejects(
        _v21([U1_50, limit(limit="w", users=["*"], maxresources={"memory": 150})]),
        "H1",
        "user * max resource map[memory:150] of queue child1 is greater than immediate or "
        "ancestor parent maximum resource map[memory:100]",
    )


def test_v21_variant_wildcard_carries_down_two_levels():
    _rejects(
        _v21(
            [U1_50],
            grandchild_limits=[
                limit(limit="u2", users=["test-user2"], maxresources={"memory": 150})
            ],
        ),
        "H1",
        "user test-user2 max resource map[memory:150] of queue child2 is greater than wildcard "
        "maximum resource map[memory:100] of immediate or ancestor parent queue",
    )


# V-22
def test_v22a_app_cap_must_stay_set_for_the_same_user():
    _rejects(
        root(
            queue("a", limits=[limit(users=["alice"], maxresources={"memory": 10})]),
            limits=[limit(users=["alice"], maxapplications=5)],
        ),
        "H3",
        "user alice max applications 0 of queue a is greater than immediate or ancestor parent "
        "max applications 5",
    )


def test_v22b_app_cap_of_an_ancestor_wildcard():
    _rejects(
        root(
            queue("a", limits=[limit(users=["bob"], maxresources={"memory": 10})]),
            limits=[limit(users=["*"], maxapplications=3)],
        ),
        "H3",
        "user bob max applications 0 of queue a is greater than wildcard max applications 3 of "
        "immediate or ancestor parent queue",
    )


def test_v22c_no_app_cap_above_means_nothing_to_keep():
    _accepts(
        root(
            queue("a", limits=[limit(users=["alice"], maxapplications=7)]),
            limits=[limit(users=["alice"], maxresources={"memory": 100})],
        )
    )


# V-23
PARTITION_LIMIT = limit(users=["test-user"], maxapplications=100, maxresources={"memory": 100})


def test_v23a_partition_limits_become_root_limits():
    text = doc(partition(queue("root", queue("a")), limits=[PARTITION_LIMIT]))
    config = parse_config(text)
    part = config.partitions[0]
    assert part.root.limits == part.limits
    assert part.root.limits[0].users == ("test-user",)


def test_v23b_partition_and_root_limits_differ():
    text = doc(
        partition(
            queue("root", limits=[limit(groups=["test-group"], maxresources={"memory": 100})]),
            limits=[PARTITION_LIMIT],
        )
    )
    _rejects(text, "S3", "partition limits and root queue limits are not equivalent")


def test_v23c_identical_partition_and_root_limits():
    _accepts(doc(partition(queue("root", limits=[PARTITION_LIMIT]), limits=[PARTITION_LIMIT])))


# V-24
@pytest.mark.parametrize(
    ("where", "resources", "message"),
    [
        ("queue", {"memory": "1.5G"}, "invalid quantity"),
        ("limit", {"memory": "10m"}, "invalid suffix"),
        ("limit", {"memory": "1000E"}, "invalid quantity: overflow"),
        ("limit", {"vcore": "1000P"}, "invalid quantity: overflow"),
        ("limit", {"vcore": -1}, "invalid quantity"),
        ("queue", {"memory": None}, "invalid quantity"),
        ("limit", {"memory": "2K"}, "invalid suffix"),
    ],
    ids=["a", "b", "c", "d", "e", "f", "g"],
)
def test_v24_quantity_errors(where, resources, message):
    if where == "queue":
        text = root(queue("a", resources={"max": resources}))
    else:
        text = root(queue("a", limits=[limit(users=["alice"], maxresources=resources)]))
    _rejects(text, "QTY", message)


def test_v24_empty_value_written_bare():
    _rejects(
        _yaml("""
            partitions:
              - queues:
                  - name: a
                    resources:
                      max: {memory: }
        """),
        "QTY",
        "invalid quantity",
    )


def test_v24_accepted_quantities_parse_to_base_units():
    from trackers.resources import parse_resource_map

    for text, expected in [
        ({"memory": "250Gi", "vcore": "500m"}, {"memory": 268435456000, "vcore": 500}),
        ({"memory": "10G", "vcore": "2"}, {"memory": 10000000000, "vcore": 2000}),
        ({"memory": " 25  k "}, {"memory": 25000}),
    ]:
        config = parse_config(root(queue("a", resources={"max": text})))
        assert parse_resource_map(config.partitions[0].root.children[0].max) == expected


# V-25
def test_v25a_default_and_empty_partition_names_collide():
    _rejects(
        doc(partition(queue("a")), partition(queue("a"), name="")),
        "NAME",
        "duplicate partition name found with name default",
    )


def test_v25b_duplicate_partition_names():
    _rejects(
        doc(partition(queue("a"), name="part1"), partition(queue("a"), name="part1")),
        "NAME",
        "duplicate partition name found with name part1",
    )


def test_v25c_unknown_key():
    found = validate_config(root(queue("a", maxapps=5)))
    assert found[0]["code"] == "PARSE"
    assert "field maxapps not found" in found[0]["message"]


def test_v25d_acl_with_three_fields():
    _rejects(
        root(adminacl="users groups something_to_fail_it"),
        "Q1",
        "multiple spaces found in ACL: 'users groups something_to_fail_it'",
    )


def test_v25e_partition_without_queues():
    _rejects(doc({"name": "default"}), "S1", "queue config is not set")


# V-26
V26 = _yaml("""
    partitions:
      - name: default
        limits:
          - {limit: dot user, users: [user.lastname], maxapplications: 1}
          - {limit: "@ user", users: [user@domain], maxapplications: 1}
          - {limit: wildcard user, users: ["*"], maxapplications: 1}
          - {limit: no wildcard group, groups: [test], maxapplications: 1}
          - {limit: wildcard group, groups: ["*"], maxapplications: 1}
        queues:
          - name: root
            queues:
              - name: level1
                limits:
                  - {limit: sub, users: [user.lastname], maxapplications: 1}
""")


def test_v26_complex_valid_config():
    config = parse_config(V26)
    assert len(config.partitions[0].root.limits) == 5
    assert validate_config(V26) == []


def test_v26_sixth_entry_after_the_wildcard():
    line = next(x for x in V26.splitlines(keepends=True) if "limit: wildcard group" in x)
    indent = line[: len(line) - len(line.lstrip())]
    text = V26.replace(line, line + indent + "- {users: [user1], maxapplications: 1}\n")
    found = validate_config(text)
    assert found[0] == {
        "code": "L4",
        "path": "root",
        "field": "partitions[0].limits[5].users[0]",
        "message": "should not set no wildcard user user1 after wildcard user limit",
    }


# V-27 (the endpoint answers with the first error; here the validator's side of it)
def test_v27_first_error_of_v02_and_none_for_v01_and_empty_body():
    assert validate_config(V02)[0]["message"] == "root queue must not have resource limits set"
    assert validate_config(doc(partition(queue("a"), queue("b")))) == []
    assert validate_config("") == []
    assert validate_config(b"") == []
