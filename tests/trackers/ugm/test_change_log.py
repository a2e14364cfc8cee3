"""The engine's change log: ``seq`` grows with every change and only then; ``changes_since`` names
who and where changed, and asks for a full refetch after a config switch."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, partition_for
from trackers import Changes, InvalidRequest, NotTracked

LIMITS = {"root": [lim(users=["*"], res=M(100), apps=3), lim(groups=["dev"], res=M(150))]}


def fresh():
    return make_engine(limits=LIMITS)


def test_changes_and_only_changes_advance_seq():
    engine = fresh()
    seqs = [engine.seq]

    def changed():
        seqs.append(engine.seq)
        assert seqs[-1] > seqs[-2]

    def unchanged():
        assert engine.seq == seqs[-1]

    fill(engine, "root.a", "alice", M(10), app="a1", groups=["dev"])
    changed()
    fill(engine, "root.a", "alice", {}, app="a2")
    changed()
    engine.decrease("root.a", "a1", "alice", M(5), False)
    changed()
    engine.decrease("root.a", "a2", "alice", {}, True)
    changed()
    engine.apply_config(partition_for(limits=LIMITS))
    changed()
    # reads, denials and refused calls
    engine.headroom("root.a", "a1", "alice", ["dev"])
    engine.can_run_app("root.a", "zz", "alice", ["dev"])
    engine.users_usage()
    engine.user_usage("alice")
    engine.groups_usage()
    engine.group_usage("dev")
    engine.queues_usage()
    engine.changes_since(0)
    assert not engine.increase("root.a", "a1", "alice", [], M(1000)).allowed
    with pytest.raises(InvalidRequest):
        engine.increase("bad", "a1", "alice", [], M(1))
    with pytest.raises(NotTracked):
        engine.decrease("root.b", "a1", "alice", M(1), False)
    unchanged()


def test_seq_is_an_int():
    assert isinstance(fresh().seq, int)


def test_nothing_since_now():
    engine = fresh()
    fill(engine, "root.a", "alice", M(1), app="a1")
    changes = engine.changes_since(engine.seq)
    assert changes == Changes(seq=engine.seq)
    assert not changes.reset
    assert changes.users == frozenset()


def test_increase_names_user_group_and_every_queue_on_the_path():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.parent.leaf", "alice", M(1), app="a1", groups=["dev"])
    changes = engine.changes_since(start)
    assert changes.seq == engine.seq
    assert changes.users == {"alice"}
    assert changes.groups == {"dev"}
    assert changes.queues == {"root", "root.parent", "root.parent.leaf"}
    assert changes.reset is False


def test_app_without_group_names_no_group():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.a", "alice", M(1), app="a1", groups=["qa"])
    assert engine.changes_since(start).groups == frozenset()


def test_changes_accumulate_over_several_calls():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.a", "alice", M(1), app="a1", groups=["dev"])
    middle = engine.seq
    fill(engine, "root.b.dyn", "bob", M(1), app="b1")
    engine.decrease("root.a", "a1", "alice", M(1), True)
    everything = engine.changes_since(start)
    assert everything.users == {"alice", "bob"}
    assert everything.groups == {"dev"}
    assert everything.queues == {"root", "root.a", "root.b", "root.b.dyn"}
    later = engine.changes_since(middle)
    assert later.users == {"alice", "bob"}
    assert later.queues == {"root", "root.a", "root.b", "root.b.dyn"}
    last = engine.changes_since(engine.seq - 1)
    assert last.users == {"alice"}
    assert last.groups == {"dev"}
    assert last.queues == {"root", "root.a"}


def test_decrease_is_recorded_with_the_linked_group():
    engine = fresh()
    fill(engine, "root.a", "alice", M(5), app="a1", groups=["dev"])
    start = engine.seq
    engine.decrease("root.a", "a1", "alice", M(5), False)
    changes = engine.changes_since(start)
    assert changes.users == {"alice"}
    assert changes.groups == {"dev"}
    assert changes.queues == {"root", "root.a"}


def test_queue_paths_in_changes_are_lower_case():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.Parent.LEAF", "alice", M(1), app="a1")
    assert engine.changes_since(start).queues == {"root", "root.parent", "root.parent.leaf"}


def test_config_switch_asks_for_a_refetch():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.a", "alice", M(1), app="a1")
    engine.apply_config(partition_for(limits={}))
    after_switch = engine.seq
    fill(engine, "root.b", "bob", M(1), app="b1")
    assert engine.changes_since(start).reset is True
    assert engine.changes_since(after_switch - 1).reset is True
    since_switch = engine.changes_since(after_switch)
    assert since_switch.reset is False
    assert since_switch.users == {"bob"}
    assert since_switch.seq == engine.seq


def test_config_switch_without_other_changes_still_resets():
    engine = fresh()
    start = engine.seq
    engine.apply_config(partition_for(limits=LIMITS))
    changes = engine.changes_since(start)
    assert changes.reset is True
    assert changes.seq == engine.seq


def test_changes_since_is_a_frozen_value():
    engine = fresh()
    start = engine.seq
    fill(engine, "root.a", "alice", M(1), app="a1")
    changes = engine.changes_since(start)
    assert isinstance(changes, Changes)
    assert isinstance(changes.users, frozenset)
    assert isinstance(changes.groups, frozenset)
    assert isinstance(changes.queues, frozenset)
    fill(engine, "root.b", "bob", M(1), app="b1")
    assert changes.users == {"alice"}


@pytest.mark.parametrize("steps", [1, 5, 50])
def test_seq_counts_every_change(steps):
    engine = fresh()
    start = engine.seq
    for i in range(steps):
        fill(engine, "root.a", f"user{i}", M(1), app="a")
    assert engine.seq - start >= steps
    assert engine.changes_since(start).users == {f"user{i}" for i in range(steps)}
