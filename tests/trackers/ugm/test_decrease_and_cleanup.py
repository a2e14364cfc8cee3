"""Spec 2.7 and D8: decrease subtracts exactly along the path, prunes zero types, removes the app
only with ``remove_app``, prunes empty nodes and trackers, and refuses untracked paths."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import (
    M,
    fill,
    group_names,
    group_used,
    lim,
    make_engine,
    running,
    snapshot,
    tree_paths,
    used,
    user_names,
    user_node,
)
from trackers import NotTracked

PATH = ("root", "root.parent", "root.parent.leaf")


@pytest.mark.parametrize(
    ("start", "minus", "left"),
    [
        ({"memory": 100}, {"memory": 40}, {"memory": 60}),
        ({"memory": 100}, {"memory": 100}, {}),
        ({"memory": 100, "vcore": 2000}, {"memory": 100}, {"vcore": 2000}),
        ({"memory": 100, "vcore": 2000}, {"vcore": 2000, "memory": 1}, {"memory": 99}),
        ({"memory": 100}, {"memory": 150}, {"memory": -50}),  # no clamping
        ({"memory": 100}, {"gpu": 2}, {"memory": 100, "gpu": -2}),
        ({"memory": 100}, {}, {"memory": 100}),
        ({"memory": 100}, {"memory": 0}, {"memory": 100}),
        ({"gpu": 1, "memory": 5}, {"gpu": 1, "memory": 5}, {}),
    ],
)
def test_decrease_subtracts_exactly_on_every_node_of_the_path(start, minus, left):
    engine = make_engine()
    fill(engine, "root.parent.leaf", "alice", start, app="a1")
    engine.decrease("root.parent.leaf", "a1", "alice", minus, False)
    for path in PATH:
        assert used(engine, "alice", path) == left
        node = user_node(engine, "alice", path)
        assert ("resourceUsage" in node) is bool(left)
        assert 0 not in node.get("resourceUsage", {}).values()


def test_group_is_decreased_with_the_user():
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.parent.leaf", "alice", M(70), app="a1", groups=["dev"])
    engine.decrease("root.parent.leaf", "a1", "alice", M(30), False)
    for path in PATH:
        assert group_used(engine, "dev", path) == {"memory": 40}
    assert engine.headroom("root.a", "new", "bob", ["dev"]) == {"memory": 60}


def test_app_without_group_only_touches_the_user():
    engine = make_engine(limits={"root": [lim(groups=["dev"], res=M(100))]})
    fill(engine, "root.a", "alice", M(50), app="nogroup", groups=[])
    fill(engine, "root.a", "bob", M(50), app="withgroup", groups=["dev"])
    engine.decrease("root.a", "nogroup", "alice", M(50), True)
    assert group_used(engine, "dev", "root") == {"memory": 50}


def test_decrease_goes_to_the_linked_group_not_to_the_groups_of_the_call():
    engine = make_engine(
        limits={"root": [lim(groups=["dev"], res=M(100)), lim(groups=["ops"], res=M(100))]}
    )
    fill(engine, "root.a", "alice", M(50), app="a1", groups=["dev", "ops"])
    engine.decrease("root.a", "a1", "alice", M(20), False)
    assert group_used(engine, "dev", "root") == {"memory": 30}
    assert group_used(engine, "ops", "root") == {}


def test_remove_app_false_keeps_the_app_running_at_zero_usage():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(10), False)
    assert running(engine, "alice", "root") == ["a1"]
    assert running(engine, "alice", "root.a") == ["a1"]
    assert used(engine, "alice", "root.a") == {}
    assert "alice" in user_names(engine)


def test_remove_app_true_removes_the_app_everywhere():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=5)]})
    fill(engine, "root.parent.leaf", "alice", M(10), app="a1", groups=["dev"])
    fill(engine, "root.parent.leaf", "alice", M(10), app="a2", groups=["dev"])
    engine.decrease("root.parent.leaf", "a1", "alice", M(10), True)
    for path in PATH:
        assert running(engine, "alice", path) == ["a2"]
    assert engine.user_usage("alice")["groups"] == {"a2": "dev"}
    assert engine.group_usage("dev")["applications"] == ["a2"]
    assert engine.group_usage("dev")["queues"]["runningApplications"] == ["a2"]


def test_remove_app_with_usage_left_keeps_the_usage():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(4), True)
    assert used(engine, "alice", "root.a") == {"memory": 6}
    assert running(engine, "alice", "root.a") == []
    assert "alice" in user_names(engine)


def test_node_pruning_cascades_up_to_the_shared_ancestor():
    engine = make_engine()
    fill(engine, "root.x.y.z", "alice", M(10), app="deep")
    fill(engine, "root.a", "alice", M(10), app="shallow")
    assert {"root.x", "root.x.y", "root.x.y.z"} <= tree_paths(engine.user_usage("alice")["queues"])
    engine.decrease("root.x.y.z", "deep", "alice", M(10), True)
    assert tree_paths(engine.user_usage("alice")["queues"]) == {"root", "root.a"}
    assert used(engine, "alice", "root") == {"memory": 10}


def test_nodes_on_a_named_limit_path_stay_after_release():
    engine = make_engine(limits={"root.parent.leaf": [lim(users=["alice"], res=M(100))]})
    fill(engine, "root.parent.leaf", "alice", M(10), app="a1")
    fill(engine, "root.parent.child1", "alice", M(10), app="a2")
    engine.decrease("root.parent.leaf", "a1", "alice", M(10), True)
    engine.decrease("root.parent.child1", "a2", "alice", M(10), True)
    assert tree_paths(engine.user_usage("alice")["queues"]) == set(PATH)


def test_tracker_without_named_limit_disappears_when_empty():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(100))]})
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(10), True)
    assert engine.user_usage("alice") is None
    assert user_names(engine) == []


def test_tracker_with_negative_usage_stays():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(15), True)
    assert used(engine, "alice", "root.a") == {"memory": -5}
    assert used(engine, "alice", "root") == {"memory": -5}
    assert user_names(engine) == ["alice"]


def test_named_user_tracker_stays_with_its_limits_after_release():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(100), apps=2)]})
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(10), True)
    node = user_node(engine, "alice", "root.a")
    assert node["maxResources"] == {"memory": 100}
    assert node["maxApplications"] == 2
    assert "resourceUsage" not in node
    assert "runningApplications" not in node


def test_group_tracker_disappears_unless_named():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=5), lim(groups=["*"], apps=5)]})
    fill(engine, "root.a", "alice", M(10), app="a1", groups=["dev"])
    fill(engine, "root.a", "bob", M(10), app="b1", groups=["qa"])
    engine.decrease("root.a", "a1", "alice", M(10), True)
    engine.decrease("root.a", "b1", "bob", M(10), True)
    # dev is named, '*' is configured: both stay, empty
    assert group_names(engine) == ["*", "dev"]
    for name in ("dev", "*"):
        obj = engine.group_usage(name)
        assert "applications" not in obj
        assert "resourceUsage" not in obj["queues"]


def test_decrease_on_an_ancestor_path_touches_only_that_prefix():
    engine = make_engine()
    fill(engine, "root.parent.leaf", "alice", M(10), app="a1")
    engine.decrease("root.parent", "a1", "alice", M(4), False)
    assert used(engine, "alice", "root") == {"memory": 6}
    assert used(engine, "alice", "root.parent") == {"memory": 6}
    assert used(engine, "alice", "root.parent.leaf") == {"memory": 10}


def test_decrease_sequence_returns_to_nothing():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(100), apps=3)]})
    for i in range(3):
        fill(engine, "root.a", "alice", M(10), app=f"a{i}")
    for i in range(3):
        engine.decrease("root.a", f"a{i}", "alice", M(10), True)
    assert engine.users_usage() == []
    assert engine.headroom("root.a", "x", "alice", []) == {"memory": 100}
    for i in range(3):
        assert engine.increase("root.a", f"b{i}", "alice", [], M(10)).allowed


def test_decrease_returns_none():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    assert engine.decrease("root.a", "a1", "alice", M(1), False) is None


# ------------------------------------------------------------------ D8: untracked paths


@pytest.mark.parametrize(
    ("user", "path"),
    [
        ("stranger", "root.a"),  # unknown user
        ("stranger", "root"),
        ("alice", "root.b"),  # a path the user never used
        ("alice", "root.a.deeper"),  # below the deepest tracked node
        ("alice", "root.parent.leaf"),
        ("alice", "root.x.y"),
    ],
)
def test_decrease_on_an_untracked_path_is_refused_and_changes_nothing(user, path):
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    before = snapshot(engine)
    with pytest.raises(NotTracked):
        engine.decrease(path, "a1", user, M(5), True)
    assert snapshot(engine) == before


def test_decrease_after_full_removal_is_refused():
    engine = make_engine()
    fill(engine, "root.a", "alice", M(10), app="a1")
    engine.decrease("root.a", "a1", "alice", M(10), True)
    with pytest.raises(NotTracked):
        engine.decrease("root.a", "a1", "alice", M(10), True)


def test_not_tracked_is_a_library_error():
    from trackers import TrackersError

    assert issubclass(NotTracked, TrackersError)


def test_release_after_offsetting_releases_of_others_moves_every_tracker(engine_for):
    """Bob releases more than he had, so queue root.a nets to zero with no app running and its
    node goes; Alice, whose own usage is still there, can release hers and the queue moves with
    her. Her app no longer counts against a group (it was removed), so the group stays put."""
    engine = engine_for(SK_DEV_GROUP)
    assert engine.increase("root.a", "app-a", "alice", ["dev"], {"memory": 10}).allowed
    assert engine.increase("root.a", "app-b", "bob", ["dev"], {"memory": 1}).allowed
    engine.decrease("root.a", "app-a", "alice", {}, True)
    engine.decrease("root.a", "app-b", "bob", {"memory": 11}, True)
    assert "children" not in engine.queues_usage()["children"][0]
    assert engine.group_usage("dev")["queues"].get("children") is None
    engine.decrease("root.a", "app-a", "alice", {"memory": 10}, False)
    assert engine.user_usage("alice") is None
    assert _queue_node(engine.queues_usage(), "root.a")["allocatedResource"] == {"memory": -10}
    assert "resourceUsage" not in engine.group_usage("dev")["queues"]
    assert engine.user_usage("bob")["queues"]["resourceUsage"] == {"memory": -10}


SK_DEV_GROUP = """
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - {limit: dev, groups: [dev], maxapplications: 10}
        queues:
          - name: a
"""


def _queue_node(root, path):
    if root["queuename"] == path:
        return root
    for child in root.get("children", ()):
        if path == child["queuename"] or path.startswith(child["queuename"] + "."):
            return _queue_node(child, path)
    raise AssertionError(path)
