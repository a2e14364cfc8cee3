"""Document shape: strict keys, types everywhere, normalisation, error locations."""

import pytest

from tests.trackers.config_docs import doc, errors, limit, partition, queue, root
from trackers.config import check_config, parse_config, validate_config
from trackers.config.model import Config, Partition, Queue
from trackers.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "field", "key"),
    [
        ("partitions: []\nextra: 1\n", "extra", "extra"),
        ("partitions:\n- {name: x, queues: [], bogus: 1}\n", "partitions[0].bogus", "bogus"),
        (root(maxapps=5), "partitions[0].queues[0].maxapps", "maxapps"),
        (
            root(queue("a", queue("b", Parent=True))),
            "partitions[0].queues[0].queues[0].queues[0].Parent",
            "Parent",
        ),
        (
            root(queue("a", limits=[limit(users=["x"], maxapplications=1, max_apps=2)])),
            "partitions[0].queues[0].queues[0].limits[0].max_apps",
            "max_apps",
        ),
        (root(resources={"min": {}}), "partitions[0].queues[0].resources.min", "min"),
        (
            root(childtemplate={"maxapps": 1}),
            "partitions[0].queues[0].childtemplate.maxapps",
            "maxapps",
        ),
        (
            doc(partition(queue("a"), placementrules=[{"name": "user", "crate": True}])),
            "partitions[0].placementrules[0].crate",
            "crate",
        ),
        (
            doc(partition(queue("a"), placementrules=[{"name": "user", "filter": {"kind": "x"}}])),
            "partitions[0].placementrules[0].filter.kind",
            "kind",
        ),
        (
            doc(partition(queue("a"), preemption={"enable": True})),
            "partitions[0].preemption.enable",
            "enable",
        ),
        (
            doc(partition(queue("a"), nodesortpolicy={"weights": {}})),
            "partitions[0].nodesortpolicy.weights",
            "weights",
        ),
        (
            doc(partition(queue("a"), usergroupresolver={"ldap": {}})),
            "partitions[0].usergroupresolver.ldap",
            "ldap",
        ),
    ],
)
def test_unknown_keys_are_parse_errors_with_their_place(text, field, key):
    (error,) = errors(text)
    assert error["code"] == "PARSE"
    assert error["field"] == field
    assert f"field {key} not found" in error["message"]


def test_every_unknown_key_is_reported():
    found = errors(root(queue("a", x=1), queue("b", y=2), z=3))
    assert [e["field"] for e in found] == [
        "partitions[0].queues[0].z",
        "partitions[0].queues[0].queues[0].x",
        "partitions[0].queues[0].queues[1].y",
    ]
    assert [e["path"] for e in found] == ["root", "root.a", "root.b"]


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("- a\n", "the document", "a mapping"),
        ("just text\n", "the document", "a mapping"),
        ("partitions: {name: x}\n", "partitions", "a list"),
        ("partitions: [5]\n", "partitions[0]", "a mapping"),
        ("partitions: [~]\n", "partitions[0]", "a mapping"),
        ("partitions:\n- {queues: {name: a}}\n", "partitions[0].queues", "a list"),
        ("partitions:\n- {name: [x], queues: []}\n", "partitions[0].name", "text"),
        ("partitions:\n- {name: true, queues: []}\n", "partitions[0].name", "text"),
        ("partitions:\n- queues: [a]\n", "partitions[0].queues[0]", "a mapping"),
        (root(queue(True)), "partitions[0].queues[0].queues[0].name", "text"),
        (
            root(queue("a", maxapplications=-1)),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", maxapplications="5")),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", maxapplications=1.5)),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", maxapplications=True)),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", maxapplications=2**63)),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", maxapplications=[1])),
            "partitions[0].queues[0].queues[0].maxapplications",
            "a whole number",
        ),
        (
            root(queue("a", parent="maybe")),
            "partitions[0].queues[0].queues[0].parent",
            "true or false",
        ),
        (
            root(queue("a", resources=[1])),
            "partitions[0].queues[0].queues[0].resources",
            "a mapping",
        ),
        (
            root(queue("a", resources={"max": [1]})),
            "partitions[0].queues[0].queues[0].resources.max",
            "a mapping",
        ),
        (
            root(queue("a", resources={"max": {"memory": True}})),
            "partitions[0].queues[0].queues[0].resources.max.memory",
            "text",
        ),
        (
            root(queue("a", resources={"max": {"memory": {"x": 1}}})),
            "partitions[0].queues[0].queues[0].resources.max.memory",
            "text",
        ),
        (
            root(queue("a", properties=["x"])),
            "partitions[0].queues[0].queues[0].properties",
            "a mapping",
        ),
        (
            root(queue("a", properties={"k": False})),
            "partitions[0].queues[0].queues[0].properties.k",
            "text",
        ),
        (root(queue("a", adminacl=True)), "partitions[0].queues[0].queues[0].adminacl", "text"),
        (root(queue("a", submitacl=["a"])), "partitions[0].queues[0].queues[0].submitacl", "text"),
        (
            root(queue("a", queues={"name": "b"})),
            "partitions[0].queues[0].queues[0].queues",
            "a list",
        ),
        (root(limits={"users": ["a"]}), "partitions[0].queues[0].limits", "a list"),
        (root(limits=["a"]), "partitions[0].queues[0].limits[0]", "a mapping"),
        (
            root(limits=[limit(users="alice", maxapplications=1)]),
            "partitions[0].queues[0].limits[0].users",
            "a list",
        ),
        (
            root(limits=[limit(users=[True], maxapplications=1)]),
            "partitions[0].queues[0].limits[0].users[0]",
            "text",
        ),
        (
            root(limits=[limit(groups=[["g"]], maxapplications=1)]),
            "partitions[0].queues[0].limits[0].groups[0]",
            "text",
        ),
        (
            root(limits=[limit(users=["a"], maxapplications=-2)]),
            "partitions[0].queues[0].limits[0].maxapplications",
            "a whole number",
        ),
        (
            root(limits=[limit(users=["a"], maxapplications=False)]),
            "partitions[0].queues[0].limits[0].maxapplications",
            "a whole number",
        ),
        (
            root(limits=[limit(users=["a"], maxresources=["memory"])]),
            "partitions[0].queues[0].limits[0].maxresources",
            "a mapping",
        ),
        (
            root(limits=[limit(users=["a"], limit=False, maxapplications=1)]),
            "partitions[0].queues[0].limits[0].limit",
            "text",
        ),
        (root(childtemplate=[]), "partitions[0].queues[0].childtemplate", "a mapping"),
        (
            doc(partition(queue("a"), preemption={"enabled": "sometimes"})),
            "partitions[0].preemption.enabled",
            "true or false",
        ),
        (
            doc(partition(queue("a"), nodesortpolicy={"resourceweights": {"memory": "heavy"}})),
            "partitions[0].nodesortpolicy.resourceweights.memory",
            "a number",
        ),
        (
            doc(partition(queue("a"), placementrules={"name": "x"})),
            "partitions[0].placementrules",
            "a list",
        ),
        ("checksum: [1]\npartitions: []\n", "checksum", "text"),
    ],
)
def test_wrong_types_are_parse_errors_naming_the_place(text, field, expected):
    found = errors(text)
    assert found, text
    error = found[0]
    assert error["code"] == "PARSE"
    assert error["field"] == field
    assert f"must be {expected}" in error["message"]
    assert field in error["message"]


def test_parse_errors_stop_the_rule_checks():
    # The root resources (S2) would also be an error, but a document of the wrong shape is
    # only judged on its shape.
    found = errors(root(queue("a", maxapplications="x"), resources={"max": {"memory": 1}}))
    assert [e["code"] for e in found] == ["PARSE"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("yes", True), ("no", False), ("On", True), ("OFF", False), ("true", True), ("False", False)],
)
def test_booleans_accept_yaml_1_1_spellings(text, value):
    config = parse_config(f"partitions:\n- queues:\n  - name: a\n    parent: {text}\n")
    assert config.partitions[0].root.children[0].parent is value


@pytest.mark.parametrize("text", ["010", "1e3", "0x1F", "1_000", "12:30"])
def test_plain_numbers_stay_queue_names_as_written(text):
    config = parse_config(f"partitions:\n- queues:\n  - name: {text}\n")
    assert config.partitions[0].root.children[0].name == text.lower()


@pytest.mark.parametrize("text", ["yes", "no", "on", "off", "Off", "y", "n", "null_x"])
def test_plain_words_that_yaml_1_1_would_convert_stay_names(text):
    config = parse_config(
        f"partitions:\n- queues:\n  - name: {text}\n    limits:\n"
        f"    - {{users: [{text}], maxapplications: 1}}\n"
    )
    child = config.partitions[0].root.children[0]
    assert child.name == text.lower()
    assert child.limits[0].users == (text,)


def test_numbers_are_read_as_their_text_in_quantities_and_names():
    config = parse_config(root(queue("2024", resources={"max": {"memory": 10000, "vcore": 2}})))
    child = config.partitions[0].root.children[0]
    assert child.name == "2024"
    assert dict(child.max) == {"memory": "10000", "vcore": "2"}


def test_maxapplications_null_means_unset():
    config = parse_config("partitions:\n- queues:\n  - name: a\n    maxapplications:\n")
    assert config.partitions[0].root.children[0].max_applications == 0


@pytest.mark.parametrize("name", ["", None, "default", "Default", "DEFAULT", "dEfAuLt"])
def test_partition_name_default_is_normalised(name):
    text = (
        doc({"name": name, "queues": [{"name": "a"}]})
        if name is not None
        else doc({"queues": [{"name": "a"}]})
    )
    assert parse_config(text).partitions[0].name == "default"


@pytest.mark.parametrize("name", ["gpu", "Team-A", "part_1", "x" * 64])
def test_other_partition_names_are_kept(name):
    assert parse_config(doc(partition(queue("a"), name=name))).partitions[0].name == name


@pytest.mark.parametrize("name", ["a.b", "with space", "x" * 65, "p/q", "é"])
def test_partition_names_outside_the_url_safe_pattern_are_rejected(name):
    error = errors(doc(partition(queue("a"), name=name)))[0]
    assert error["code"] == "NAME"
    assert error["path"] == name
    assert error["field"] == "partitions[0].name"
    assert f"invalid partition name '{name}'" in error["message"]


def test_partition_duplicates_are_case_insensitive():
    found = errors(doc(partition(queue("a"), name="Gpu"), partition(queue("a"), name="gpu")))
    assert found == [
        {
            "code": "NAME",
            "path": "gpu",
            "field": "partitions[1].name",
            "message": "duplicate partition name found with name gpu",
        }
    ]


def test_root_is_not_inserted_above_a_single_root_in_any_case():
    config = parse_config(doc(partition(queue("ROOT", queue("A")))))
    root_queue = config.partitions[0].root
    assert (root_queue.name, root_queue.path, root_queue.parent) == ("root", "root", True)
    assert [(q.name, q.path) for q in root_queue.children] == [("a", "root.a")]


def test_root_is_inserted_above_a_single_queue_not_called_root():
    config = parse_config(doc(partition(queue("Top", queue("Leaf")))))
    assert [q.path for q in config.partitions[0].root.walk()] == [
        "root",
        "root.top",
        "root.top.leaf",
    ]


def test_root_is_inserted_when_root_has_siblings():
    found = errors(doc(partition(queue("root"), queue("a"))))
    assert found == []
    config = parse_config(doc(partition(queue("root"), queue("a"))))
    assert [q.path for q in config.partitions[0].root.walk()] == ["root", "root.root", "root.a"]


def test_empty_queue_list_is_an_empty_root():
    config = parse_config(doc(partition()))
    assert config.partitions[0].root.children == ()


def test_queue_names_and_paths_are_lower_cased_and_ordered():
    config = parse_config(root(queue("Alpha", queue("Beta"), queue("GAMMA")), queue("Delta")))
    assert [q.path for q in config.partitions[0].queues()] == [
        "root",
        "root.alpha",
        "root.alpha.beta",
        "root.alpha.gamma",
        "root.delta",
    ]


def test_root_is_always_a_parent_even_when_written_false():
    config = parse_config(root(parent=False))
    assert config.partitions[0].root.parent is True


@pytest.mark.parametrize("text", ["", "partitions: []\n", "partitions:\n", "checksum: abc\n"])
def test_empty_documents_are_valid_with_zero_partitions(text):
    assert validate_config(text) == []
    assert parse_config(text).partitions == ()


def test_parse_config_raises_with_every_error():
    text = root(queue("a.b"), queue("c d"))
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert [e["code"] for e in err.value.errors] == ["Q2", "Q2"]
    assert str(err.value).endswith("(and 1 more)")


def test_several_partitions_are_told_apart_by_the_field_prefix():
    found = errors(
        doc(
            partition(queue("a", adminacl="a b c")),
            partition(queue("a", adminacl="x y z"), name="two"),
        )
    )
    assert [(e["path"], e["field"]) for e in found] == [
        ("root.a", "partitions[0].queues[0].adminacl"),
        ("root.a", "partitions[1].queues[0].adminacl"),
    ]


def test_check_config_judges_a_model_built_by_hand():
    good = Config(partitions=(Partition(name="default", root=Queue(name="root", path="root")),))
    assert check_config(good) == []
    bad_child = Queue(name="a.b", path="root.a.b")
    bad = Config(
        partitions=(
            Partition(name="default", root=Queue(name="root", path="root", children=(bad_child,))),
        )
    )
    (error,) = check_config(bad)
    assert error["code"] == "Q2"
    assert error["field"] == "partitions[0].queues[0].queues[0].name"


def test_check_config_matches_validate_config_on_a_parsed_model():
    text = doc(
        partition(
            queue("a", maxapplications=5),
            queue("b"),
            limits=[limit(users=["alice"], maxapplications=1)],
        )
    )
    config = parse_config(text)
    assert check_config(config) == validate_config(text) == []
