"""Spec 1.3 as seen by the engine: limits written as quantities are enforced in base units
(memory bytes, vcore millicores); requests are raw integers."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import make_engine, user_node


@pytest.mark.parametrize(
    ("kind", "written", "base"),
    [
        ("memory", "10G", 10_000_000_000),
        ("memory", "250Gi", 268_435_456_000),
        ("memory", "4Ki", 4096),
        ("memory", "1Mi", 1_048_576),
        ("memory", "10000", 10_000),
        ("memory", " 25  k ", 25_000),
        ("memory", "3k", 3000),
        ("memory", "2T", 2 * 10**12),
        ("vcore", "10", 10_000),
        ("vcore", "100m", 100),
        ("vcore", "500m", 500),
        ("vcore", "2k", 2_000_000),
        ("vcore", "1Ki", 1_024_000),
        ("cpu", "10", 10),  # only "vcore" is in millicores
        ("vcores", "10", 10),
        ("VCORE", "10", 10),
        ("nvidia.com/gpu", "2", 2),
    ],
)
def test_limit_is_enforced_in_base_units(kind, written, base):
    engine = make_engine(limits={"root.a": [{"users": ["alice"], "maxresources": {kind: written}}]})
    assert engine.headroom("root.a", "x", "alice", []) == {kind: base}
    assert user_node(engine, "alice", "root.a")["maxResources"] == {kind: base}
    assert engine.increase("root.a", "x", "alice", [], {kind: base + 1}).reason == "userQuota"
    assert engine.increase("root.a", "x", "alice", [], {kind: base}).allowed


@pytest.mark.parametrize(("written", "base"), [("1G", 10**9), ("1Gi", 2**30), ("100", 100)])
def test_queue_max_is_enforced_in_base_units(written, base):
    engine = make_engine(queues={"root.a": {"resources": {"max": {"memory": written}}}})
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": base}
    assert engine.increase("root.a", "x", "alice", [], {"memory": base + 1}).reason == "queueQuota"


def test_integer_yaml_scalars_are_quantities():
    text = """
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - users: [alice]
            maxresources: {memory: 10000, vcore: 2}
"""
    engine = make_engine(text)
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 10000, "vcore": 2000}
