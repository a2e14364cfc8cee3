"""A document that ruamel.yaml's round-trip reader fails on (it raises IndexError inside its
integer reader for plain scalars such as ``-_`` or ``0x_``, which the validator reads as text)
is still accepted, and edits to it are made through its model instead of failing."""

from __future__ import annotations

import pytest

from quotaweb.config.edits import queue_update
from quotaweb.config.roundtrip import document_read
from quotaweb.config.selectors import active_version, active_version_number
from quotaweb.config.services import config_apply, config_edit

ODD = ["-_", "+_", "0x_", "0b_", "0o_"]


@pytest.mark.parametrize("value", ODD)
def test_the_round_trip_reader_declines_instead_of_failing(value):
    text = ("partitions:\n  - name: default\n    queues:\n      - name: root\n"
            f"        properties:\n          team: {value}\n")
    assert document_read(text) is None


@pytest.mark.django_db
def test_such_a_document_is_applied_and_edited(admin):
    properties = "".join(f"          p{n}: {value}\n" for n, value in enumerate(ODD))
    text = (
        "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n"
        "          - name: eng\n            properties:\n"
        + properties.replace("          ", "              ")
    )
    config_apply(yaml_text=text, author=admin, base_version=active_version_number())
    config_edit(
        edits=[queue_update(partition="default", queue_path="root.eng",
                            values={"max": {"memory": "4Gi"}})],
        author=admin, base_version=active_version_number(),
    )
    stored = active_version().yaml
    assert "4Gi" in stored or "4294967296" in stored
    for value in ODD:
        assert value in stored
