"""The fast YAML writer: any document reads back as the same data, and config documents come
out as ``yaml.dump`` writes them."""

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trackers.config.writer import _Dumper, write_yaml

TEXT = st.one_of(
    st.sampled_from(
        ["root", "10Gi", "500m", "*", "yes", "no", "on", "null", "~", "010", "1e3", "0x1F",
         "user@domain", "a: b", "- x", "#tag", "  padded", "trailing ", "'quoted'", '"dq"',
         "ünïcode", "multi\nline", "", "true", "False", "12:30", "a  b", "x" * 120]
    ),
    st.text(max_size=20),
)
SCALAR = st.one_of(TEXT, st.integers(-(2**63), 2**63 - 1), st.booleans(), st.none())
DOCUMENT = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)
    ),
    max_leaves=25,
)


def _reference(document) -> str:
    return yaml.dump(
        document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
        width=1000,
    )


def test_config_documents_come_out_as_yaml_dump_writes_them():
    """Config documents are plain block data: for them the output is the same text."""
    for path in ("quotaweb/samples/queues.yaml", "tests/config/yunikorn_queues.yaml"):
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
        assert write_yaml(document) == _reference(document)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(TEXT, DOCUMENT, min_size=1, max_size=5))
def test_reads_back_as_the_same_data(document):
    assert yaml.safe_load(write_yaml(document)) == document
