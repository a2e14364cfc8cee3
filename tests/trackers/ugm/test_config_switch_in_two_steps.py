"""A config switch in two steps: ``compile_config`` does the work that may fail, without touching
any engine, and ``Engine.install_config`` switches to what it compiled (``apply_config`` is both
in one)."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for
from trackers import Engine, InvalidRequest, compile_config


def test_compiling_changes_nothing_until_it_is_installed():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10))]})
    fill(engine, "root.a", "alice", M(8))
    seq = engine.seq

    compiled = compile_config(partition_for(limits={"root.a": [lim(users=["alice"], res=M(20))]}))

    assert engine.seq == seq
    assert not engine.increase("root.a", "app", "alice", [], M(5)).allowed
    engine.install_config(compiled, version=7)
    assert engine.version == 7
    assert engine.increase("root.a", "app", "alice", [], M(5)).allowed


def test_install_keeps_usage_and_running_applications():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10), apps=2)]})
    fill(engine, "root.a", "alice", M(8))

    engine.install_config(
        compile_config(partition_for(limits={"root.a": [lim(users=["alice"], apps=1)]}))
    )

    node = engine.user_usage("alice")["queues"]["children"][0]
    assert node == {"queuePath": "root.a", "resourceUsage": M(8),
                    "runningApplications": ["filler"], "maxApplications": 1}


def test_a_new_engine_starts_from_compiled_limits_as_from_the_partition():
    partition = partition_for(limits={"root.a": [lim(users=["alice"], res=M(4))]})
    from_compiled = Engine(compile_config(partition), version=3)
    from_partition = Engine(partition, version=3)

    for engine in (from_compiled, from_partition):
        assert engine.version == 3
        assert engine.config is partition
        assert engine.increase("root.a", "app", "alice", [], M(4)).allowed
        assert not engine.increase("root.a", "app", "alice", [], M(1)).allowed


def test_limits_of_another_partition_are_refused_and_change_nothing():
    engine = make_engine(limits={"root.a": [lim(users=["alice"], res=M(10))]})
    other = compile_config(partition_for(name="other"))

    with pytest.raises(InvalidRequest, match="not 'other'"):
        engine.install_config(other, version=9)

    assert engine.version is None
    assert engine.config.name == "default"
