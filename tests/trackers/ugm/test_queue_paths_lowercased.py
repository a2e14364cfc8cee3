"""D7: queue names are lower-cased everywhere, so a limit written on ``root.TeamA`` applies to apps
sent to ``root.teama`` (or any other case); user and group names stay case-sensitive."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, make_engine, queue_node, used, user_node

CONFIG = """
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: TeamA
            resources:
              max: {memory: 1000}
            limits:
              - limit: camel
                users: [alice]
                maxresources: {memory: 100}
                maxapplications: 2
            queues:
              - name: SubQueue
"""


@pytest.mark.parametrize(
    "path", ["root.teama", "root.TeamA", "root.TEAMA", "ROOT.TeamA", "Root.teamA"]
)
def test_limit_on_a_camel_case_queue_applies_to_any_case(path):
    engine = make_engine(CONFIG)
    assert engine.headroom(path, "x", "alice", []) == {"memory": 100}
    assert engine.increase(path, "x", "alice", [], M(101)).reason == "userQuota"
    assert engine.increase(path, "x", "alice", [], M(100)).allowed
    assert used(engine, "alice", "root.teama") == {"memory": 100}


@pytest.mark.parametrize(
    "paths",
    [
        ("root.TeamA.SubQueue", "root.teama.subqueue"),
        ("root.teama.SUBQUEUE", "ROOT.TEAMA.subqueue"),
        ("root.TeamA.Dyn", "root.teama.dyn"),
    ],
)
def test_differently_cased_paths_are_one_queue(paths):
    engine = make_engine(CONFIG)
    first, second = paths
    assert engine.increase(first, "a1", "bob", [], M(10)).allowed
    assert engine.increase(second, "a2", "bob", [], M(5)).allowed
    lower = first.lower()
    assert used(engine, "bob", lower) == {"memory": 15}
    assert user_node(engine, "bob", lower)["runningApplications"] == ["a1", "a2"]
    engine.decrease(second, "a1", "bob", M(10), True)
    assert used(engine, "bob", lower) == {"memory": 5}


def test_shown_paths_are_lower_case():
    engine = make_engine(CONFIG)
    assert user_node(engine, "alice", "root.teama")["maxResources"] == {"memory": 100}
    assert queue_node(engine, "root.teama")["maxResource"] == {"memory": 1000}
    assert queue_node(engine, "root.teama.subqueue") is not None
    engine.increase("root.TeamA.NewOne", "x", "carol", [], M(1))
    obj = engine.user_usage("carol")
    paths = {obj["queues"]["queuePath"], obj["queues"]["children"][0]["queuePath"]}
    assert paths == {"root", "root.teama"}
    assert obj["queues"]["children"][0]["children"][0]["queuePath"] == "root.teama.newone"


def test_queue_quota_of_a_camel_case_queue_applies():
    engine = make_engine(CONFIG)
    assert engine.increase("root.TEAMA", "x", "bob", [], M(1000)).allowed
    assert engine.increase("root.teama.subqueue", "y", "carol", [], M(1)).reason == "queueQuota"


def test_user_names_keep_their_case():
    engine = make_engine(CONFIG)
    assert engine.headroom("root.teama", "x", "Alice", []) == {"memory": 1000}  # queue only
    assert engine.increase("root.teama", "x", "Alice", [], M(500)).allowed
    assert engine.user_usage("Alice")["userName"] == "Alice"
    assert engine.user_usage("alice") is not None  # named in the config, no usage
    assert "resourceUsage" not in engine.user_usage("alice")["queues"]
