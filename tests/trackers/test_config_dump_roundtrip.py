"""dump_config writes YAML that parses back to the same model."""

import string

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.trackers.config_docs import doc, limit, partition, queue
from trackers.config import check_config, dump_config, parse_config
from trackers.config.model import (
    ChildTemplate,
    Config,
    Limit,
    NodeSortPolicy,
    Partition,
    PlacementFilter,
    PlacementRule,
    Preemption,
    Queue,
    Resources,
    frozen_map,
)

FULL = doc(
    partition(
        queue(
            "root",
            queue(
                "Teams",
                queue(
                    "A",
                    parent=False,
                    maxapplications=5,
                    resources={
                        "guaranteed": {"memory": "1Gi"},
                        "max": {"memory": " 2 Gi ", "vcore": "500m"},
                    },
                ),
                parent=True,
                adminacl="alice devs",
                submitacl="*",
                properties={"application.sort.policy": "fifo", "n": 5},
                childtemplate={
                    "maxapplications": 3,
                    "properties": {"k": "v"},
                    "resources": {"max": {"memory": "1G"}},
                },
            ),
            queue("empty", resources={}),
        ),
        limits=[
            limit(
                limit="", users=["alice", "*"], maxresources={"memory": "10G"}, maxapplications=3
            ),
            limit(groups=["devs", "*"], maxapplications=10),
        ],
        placementrules=[
            {
                "name": "tag",
                "value": "namespace",
                "create": True,
                "filter": {"type": "allow", "users": ["a"], "groups": ["g"]},
                "parent": {"name": "fixed", "value": "root.teams"},
            }
        ],
        preemption={"enabled": True, "quotapreemptionenabled": False},
        nodesortpolicy={"type": "binpacking", "resourceweights": {"memory": 1.5, "vcore": 2}},
        usergroupresolver={"type": "os"},
    ),
    partition(queue("x"), queue("y"), name="Second"),
)


def test_full_document_round_trips():
    config = parse_config(FULL)
    text = dump_config(config)
    assert parse_config(text) == config
    assert dump_config(parse_config(text)) == text


def test_dump_keeps_quantity_text_and_lower_case_keys():
    text = dump_config(parse_config(FULL))
    data = yaml.safe_load(text)
    a = data["partitions"][0]["queues"][0]["queues"][0]["queues"][0]
    assert a["resources"]["max"] == {"memory": " 2 Gi ", "vcore": "500m"}
    assert a["name"] == "a"
    assert a["maxapplications"] == 5
    keys = set()

    def collect(node):
        if isinstance(node, dict):
            keys.update(node)
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(data)
    assert all(key == key.lower() for key in keys if key not in {"application.sort.policy"})


def test_partition_limits_are_written_once():
    text = dump_config(parse_config(FULL))
    data = yaml.safe_load(text)
    first = data["partitions"][0]
    assert len(first["limits"]) == 2
    assert "limits" not in first["queues"][0]


def test_root_limits_of_a_root_without_partition_limits_stay_on_root():
    config = parse_config(
        doc(partition(queue("root", limits=[limit(users=["u"], maxapplications=1)])))
    )
    data = yaml.safe_load(dump_config(config))
    assert "limits" not in data["partitions"][0]
    assert data["partitions"][0]["queues"][0]["limits"] == [{"users": ["u"], "maxapplications": 1}]


def test_empty_config_dumps_and_parses():
    assert parse_config(dump_config(Config())) == Config()
    assert parse_config(dump_config(Config(checksum="abc"))).checksum == "abc"


def test_default_fields_are_left_out():
    config = parse_config(doc(partition(queue("a"))))
    assert (
        dump_config(config) == "partitions:\n- name: default\n  queues:\n  - name: root\n"
        "    queues:\n    - name: a\n"
    )


# -- property: random valid configs round-trip ----------------------------------------------

NAME_CHARS = string.ascii_lowercase + string.digits + "_-#@/:"
queue_names = st.text(NAME_CHARS, min_size=1, max_size=12)
user_names = st.from_regex(r"[_a-zA-Z][a-zA-Z0-9:#/_.@-]{0,10}\$?", fullmatch=True)
group_names = st.from_regex(r"[_a-zA-Z][a-zA-Z0-9:_.-]{0,10}", fullmatch=True)
free_text = st.text(string.ascii_letters + string.digits + " .,:;'\"!?-_#*&%@[]{}|>", max_size=20)
quantities = st.builds(
    lambda n, suffix, pad: f"{pad}{n}{suffix}{pad}",
    st.integers(1, 999),
    st.sampled_from(["", "k", "M", "G", "Ki", "Mi", "Gi"]),
    st.sampled_from(["", " "]),
)
properties = st.dictionaries(
    st.text(string.ascii_lowercase + ".", min_size=1, max_size=10), free_text, max_size=3
).map(frozen_map)
acls = st.none() | st.sampled_from(["", "*", "alice", "alice devs", " a,b  c,d "])


@st.composite
def limits_for(draw, names):
    """Limits with user names no other queue uses, so hierarchical rules never compare them."""
    entries = []
    for name in names:
        resources = draw(
            st.none()
            | st.dictionaries(st.sampled_from(["gpu", "pods"]), quantities, min_size=1, max_size=2)
        )
        entries.append(
            Limit(
                description=draw(st.none() | free_text),
                users=(name,),
                max_resources=frozen_map(resources),
                max_applications=draw(st.integers(1, 10**6)),
            )
        )
    return tuple(entries)


@st.composite
def trees(draw, path, depth, counter):
    child_names = draw(st.lists(queue_names, max_size=3 if depth < 3 else 0, unique=True))
    children = [draw(trees(f"{path}.{name}", depth + 1, counter)) for name in child_names]
    counter[0] += 1
    users = [f"u{counter[0]}x{n}" for n in range(draw(st.integers(0, 2)))]
    is_leaf = not children
    resources = None
    if is_leaf and path != "root" and draw(st.booleans()):
        maximum = draw(
            st.dictionaries(st.sampled_from(["memory", "vcore"]), quantities, max_size=2)
        )
        resources = Resources(max=frozen_map(maximum))
    name = path.rsplit(".", 1)[-1]
    return Queue(
        name=name,
        path=path,
        parent=draw(st.none() | st.booleans()) if path != "root" else True,
        resources=resources,
        properties=draw(properties),
        admin_acl=draw(acls),
        submit_acl=draw(acls),
        child_template=draw(
            st.none()
            | st.builds(ChildTemplate, max_applications=st.integers(0, 100), properties=properties)
        ),
        children=tuple(children),
        limits=draw(limits_for(users)),
    )


rules = st.builds(
    PlacementRule,
    name=st.sampled_from(["provided", "user", "tag", "fixed"]),
    create=st.booleans(),
    filter=st.none()
    | st.builds(
        PlacementFilter,
        type=st.sampled_from(["", "allow", "deny"]),
        users=st.lists(user_names, max_size=2).map(tuple),
    ),
    value=free_text,
)


@st.composite
def configs(draw):
    partitions = []
    names = draw(
        st.lists(
            st.from_regex(r"[a-z0-9_-]{1,10}", fullmatch=True), min_size=0, max_size=2, unique=True
        ).filter(lambda xs: "default" not in xs)
    )
    for name in names:
        root = draw(trees("root", 1, [0]))
        use_partition_limits = draw(st.booleans()) and bool(root.limits)
        partitions.append(
            Partition(
                name=name,
                root=root,
                limits=root.limits if use_partition_limits else (),
                placement_rules=tuple(draw(st.lists(rules, max_size=2))),
                preemption=draw(
                    st.none()
                    | st.builds(Preemption, st.none() | st.booleans(), st.none() | st.booleans())
                ),
                node_sort_policy=draw(
                    st.none()
                    | st.builds(
                        NodeSortPolicy,
                        type=st.sampled_from(["", "fair", "binpacking"]),
                        resource_weights=st.dictionaries(
                            st.sampled_from(["memory", "vcore"]), st.floats(0, 100, allow_nan=False)
                        ).map(frozen_map),
                    )
                ),
                user_group_resolver=draw(st.none() | st.sampled_from(["", "os", "ldap", "test"])),
            )
        )
    return Config(partitions=tuple(partitions), checksum=draw(st.none() | free_text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_valid_configs_round_trip(config):
    assert check_config(config) == []
    assert parse_config(dump_config(config)) == config


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["memory", "vcore", "gpu"]), unique=True, min_size=1), quantities)
def test_quantity_text_survives_the_round_trip(kinds, text):
    config = parse_config(doc(partition(queue("a", resources={"max": dict.fromkeys(kinds, text)}))))
    again = parse_config(dump_config(config))
    assert dict(again.partitions[0].root.children[0].max) == dict.fromkeys(kinds, text)
