"""Hostile or malformed YAML is refused fast, with bounded memory, as a PARSE error."""

import tracemalloc

import pytest

from trackers.config import MAX_BYTES, parse_config, validate_config
from trackers.config.loader import DocumentError, load_document
from trackers.errors import ConfigError


def _refused_quickly(text, **kwargs):
    """Refused with one PARSE error and bounded memory (the time it takes is measured by
    benchmarks/hostile_yaml.py, not asserted here)."""
    tracemalloc.start()
    found = validate_config(text, **kwargs)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(found) == 1
    assert found[0]["code"] == "PARSE"
    assert found[0]["path"] == ""
    return found[0]["message"], peak


def _billion_laughs() -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, 10):
        name, previous = chr(ord("a") + n), chr(ord("a") + n - 1)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_refused():
    message, peak = _refused_quickly(_billion_laughs())
    assert "expands to more than" in message
    assert peak < 20 * 1024 * 1024


def test_fifty_megabyte_document_is_refused_before_parsing():
    text = "partitions:\n" + "#" * (50 * 1024 * 1024)
    message, peak = _refused_quickly(text)
    assert peak < 1024 * 1024  # refused on its length, without a copy
    assert message.startswith("the document is ")
    assert f"more than the limit of {MAX_BYTES} bytes" in message


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        "{a: " * 10_000 + "x" + "}" * 10_000,
        "- " * 10_000 + "x\n",
        "".join(" " * depth + "a:\n" for depth in range(10_000)) + " " * 10_000 + "b\n",
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences", "block-mappings"],
)
def test_ten_thousand_levels_of_nesting_are_refused(text):
    message, peak = _refused_quickly(text, max_bytes=200 * 1024 * 1024)
    assert "nests deeper than 64 levels" in message
    assert peak < 50 * 1024 * 1024


def test_sixty_four_levels_are_fine_and_sixty_five_are_not():
    assert load_document("[" * 64 + "]" * 64) is not None
    with pytest.raises(DocumentError, match="deeper than 64"):
        load_document("[" * 65 + "]" * 65)


def test_size_limit_is_a_parameter():
    text = "partitions: []\n"
    assert validate_config(text, max_bytes=len(text)) == []
    (error,) = validate_config(text, max_bytes=len(text) - 1)
    assert error["code"] == "PARSE"
    assert "more than the limit" in error["message"]


def test_size_is_counted_in_utf8_bytes():
    text = "checksum: " + "\u00e9" * 10 + "\n"
    assert validate_config(text, max_bytes=len(text) + 10) == []
    assert validate_config(text, max_bytes=len(text) + 9)[0]["code"] == "PARSE"


def test_bytes_input_is_decoded_and_bad_utf8_refused():
    assert validate_config(b"partitions: []\n") == []
    (error,) = validate_config(b"checksum: \xff\xfe\n")
    assert error["message"] == "the document is not valid UTF-8"


def test_aliases_beyond_the_budget_are_refused():
    lines = ["x: &u [alice]"] + [f"k{n}: *u" for n in range(1001)]
    with pytest.raises(DocumentError, match="more than 1000 aliases"):
        load_document("\n".join(lines))


def test_a_few_aliases_are_fine_and_share_content():
    data = load_document("a: &u [alice, bob]\nb: *u\n")
    assert data == {"a": ["alice", "bob"], "b": ["alice", "bob"]}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: &x [*x]", "refers to itself"),
        ("a: *nowhere", "has no anchor"),
        ("a: !!python/object:os.system ls", "tag tag:yaml.org,2002:python/object:os.system"),
        ("a: !!binary aGVsbG8=", "is not allowed"),
        ("a: !custom 5", "is not allowed"),
        ("a: !!set {x, y}", "is not allowed"),
        ("a: 1\na: 2\n", "key a appears twice"),
        ("? [a]\n: 1\n", "mapping keys must be text, found a list"),
        ("? {a: 1}\n: 1\n", "mapping keys must be text, found a mapping"),
        ("~: 1\n", "mapping keys must be text, found null"),
        ("true: 1\n", "mapping keys must be text, found a boolean"),
        ("a: 1\n---\nb: 2\n", "more than one YAML document"),
        ("a: [1, 2\n", "YAML syntax error"),
        ("a: b: c\n", "YAML syntax error"),
        ("\tpartitions: []\n", "YAML syntax error"),
    ],
)
def test_unsafe_or_broken_yaml_is_a_parse_error(text, fragment):
    (error,) = validate_config(text)
    assert error["code"] == "PARSE"
    assert fragment in error["message"]
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert err.value.errors == [error]


def test_scalars_keep_their_text_and_only_plain_nulls_and_booleans_change():
    data = load_document(
        "a: 010\nb: 1_000\nc: 0x10\nd: '5'\ne: ~\nf: true\ng: yes\nh: !!str true\ni: |\n  x\n"
    )
    assert data == {
        "a": "010",
        "b": "1_000",
        "c": "0x10",
        "d": "5",
        "e": None,
        "f": True,
        "g": "yes",
        "h": "true",
        "i": "x\n",
    }


def test_empty_stream_is_none():
    assert load_document("") is None
    assert load_document("# only a comment\n") is None
    assert load_document("---\n...\n") is None


def test_a_nul_escaped_in_a_quoted_string_is_refused_with_its_line():
    from trackers import validate_config
    from trackers.config import messages

    text = 'partitions:\n  - name: default\n    queues:\n      - name: "ro\\0ot"\n'
    assert validate_config(text) == [{
        "code": "PARSE", "path": "", "field": "",
        "message": messages.DOCUMENT_NUL.format(line=4),
    }]
