"""``Engine.restore``: usage admitted before (a ledger replayed after a restart) is applied
without any check, and lands exactly where ``increase`` would have put it."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import (
    M,
    group_used,
    lim,
    make_engine,
    running,
    snapshot,
    used,
)
from trackers.errors import InvalidRequest


def _capped():
    return make_engine(limits={
        "root.parent": [lim(users=["alice"], res={"memory": 100}, apps=1),
                        lim(groups=["dev"], res={"memory": 150})],
    })


def test_restore_lands_where_increase_would():
    replayed, admitted = _capped(), _capped()
    for engine, call in ((replayed, "restore"), (admitted, "increase")):
        getattr(engine, call)("root.parent.leaf", "app-1", "alice", ["dev"], M(60))
        getattr(engine, call)("root.parent.leaf", "app-1", "alice", ["dev"], M(30))
    assert snapshot(replayed) == snapshot(admitted)


def test_restore_is_never_refused_even_above_the_limits():
    engine = _capped()
    assert engine.restore("root.parent.leaf", "app-1", "alice", ["dev"], M(90)) == "dev"
    assert engine.restore("root.parent.child1", "app-2", "alice", ["dev"], M(90)) == "dev"
    assert used(engine, "alice", "root.parent") == M(180)
    assert group_used(engine, "dev", "root.parent") == M(180)
    assert running(engine, "alice", "root.parent") == ["app-1", "app-2"]
    # Above the caps, the user cannot grow: the next increase is denied.
    decision = engine.increase("root.parent.leaf", "app-1", "alice", ["dev"], M(1))
    assert (decision.allowed, decision.reason) == (False, "userQuota")


def test_restored_usage_is_released_like_any_other():
    engine = _capped()
    engine.restore("root.parent.leaf", "app-1", "alice", ["dev"], M(50))
    engine.decrease("root.parent.leaf", "app-1", "alice", M(50), remove_app=True)
    assert used(engine, "alice", "root.parent") == {}
    assert running(engine, "alice", "root.parent") == []
    assert group_used(engine, "dev", "root.parent") == {}


@pytest.mark.parametrize(
    ("args", "resource"),
    [(("root.parent.leaf", "", "alice", []), M(1)),
     (("root.parent.leaf", "app", "alice", "dev"), M(1)),
     (("root.parent.leaf", "app", "alice", []), {"memory": -1})],
)
def test_restore_checks_its_input_like_increase(args, resource):
    engine = _capped()
    with pytest.raises(InvalidRequest):
        engine.restore(*args, resource)
    assert snapshot(engine) == snapshot(_capped())
