"""``Engine.over_limits`` on usage now reads the users and groups a few at a time under the
engine's lock (an apply's impact must not hold increases for a read of everyone), and judges
the partition in force by the limits already compiled for it: the same answer as judging one
whole snapshot."""

from __future__ import annotations

from tests.trackers.ugm.support import M, fill, lim, make_engine
from trackers import over_limits
from trackers.ugm import engine as engine_module

USERS = engine_module.READ_PER_HOLD * 2 + 7


def test_a_read_in_holds_judges_as_one_whole_snapshot():
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(100), apps=9),
                                            lim(groups=["team1"], res=M(10**6)),
                                            lim(groups=["*"], res=M(10**6))]})
    for n in range(USERS):
        fill(engine, "root.a", f"user{n:04d}", M(1 + n % 7), app=f"app{n}",
             groups=[f"team{n % 5}"])
        if n % 3 == 0:
            fill(engine, "root.b", f"user{n:04d}", M(2), app=f"other{n}")
    tight = make_engine(limits={"root.a": [lim(users=["*"], res=M(4), apps=1),
                                           lim(groups=["team1"], res=M(40)),
                                           lim(groups=["*"], res=M(50))]}).config
    engine.apply_config(tight)

    found = engine.over_limits()

    whole = over_limits(tight, users=engine.users_usage(), groups=engine.groups_usage())
    assert found == whole
    assert {item["kind"] for item in found} == {"user", "group"}
    assert len([item for item in found if item["kind"] == "user"]) > 2 * (
        engine_module.READ_PER_HOLD
    ) // 3


def test_the_partition_in_force_is_judged_without_compiling_its_limits_again(monkeypatch):
    engine = make_engine(limits={"root.a": [lim(users=["*"], res=M(3))]})
    fill(engine, "root.a", "alice", M(2))
    engine.apply_config(make_engine(limits={"root.a": [lim(users=["*"], res=M(1))]}).config)
    in_force = engine.config

    def compiled_again(*args, **kwargs):
        raise AssertionError("the limits in force were compiled again")

    monkeypatch.setattr(engine_module, "compile_config", compiled_again)

    found = engine.over_limits(in_force)
    assert [(item["name"], item["usage"], item["limit"]) for item in found] == [
        ("alice", M(2), M(1))
    ]
