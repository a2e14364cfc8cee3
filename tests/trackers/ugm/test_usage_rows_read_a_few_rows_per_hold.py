"""``Engine.usage_rows`` (what the usage sampler reads) takes the engine's lock for at most
``READ_PER_HOLD`` users, groups or queue levels at a time, never for everyone in one hold, and
with nothing moving its rows are those of a whole snapshot."""

from __future__ import annotations

import threading
from collections import Counter

from tests.trackers.ugm.support import M, fill, lim, make_engine
from trackers.ugm import engine as engine_module

PER_HOLD = engine_module.READ_PER_HOLD
USERS = PER_HOLD * 2 + 7
GROUPS = PER_HOLD + 3
QUEUES = PER_HOLD + 11
TEAMS = [f"team{n:03d}" for n in range(GROUPS)]


class CountingLock:
    """The engine's lock, numbering its holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holds = 0
        self.held = False

    def __enter__(self) -> CountingLock:
        self._lock.acquire()
        self.holds += 1
        self.held = True
        return self

    def __exit__(self, *exc) -> None:
        self.held = False
        self._lock.release()


class CountedMap(dict):
    """One of the engine's maps, counting the items looked up in each hold of ``lock``."""

    def __init__(self, items: dict, lock: CountingLock, per_hold: Counter) -> None:
        super().__init__(items)
        self.lock = lock
        self.per_hold = per_hold

    def get(self, key, default=None):
        assert self.lock.held, "an item of the engine is read without its lock"
        self.per_hold[self.lock.holds] += 1
        return super().get(key, default)


def _busy_engine():
    engine = make_engine(limits={"root": [lim(users=["*"], res=M(10**12)),
                                          lim(groups=TEAMS, res=M(10**12))]})
    for n in range(USERS):
        queue = f"root.q{n % QUEUES:03d}"
        fill(engine, queue, f"user{n:04d}", M(1 + n % 7), app=f"app{n}",
             groups=[TEAMS[n % GROUPS]])
        if n % 3 == 0:
            fill(engine, f"{queue}.deep", f"user{n:04d}", M(2), app=f"other{n}")
    return engine


def _root(tree: dict) -> tuple[dict, int]:
    root = tree["queues"]
    return root.get("resourceUsage", {}), len(root.get("runningApplications", ()))


def _queues_in_use(node: dict) -> list[tuple[str, dict, int]]:
    found = []
    stack = [node]
    while stack:
        node = stack.pop()
        stack.extend(node.get("children", ()))
        if node.get("allocatedResource") or node.get("runningApps"):
            found.append((node["queuename"], node.get("allocatedResource", {}),
                          node["runningApps"]))
    return sorted(found)


def test_no_hold_reads_more_than_a_few_rows():
    engine = _busy_engine()
    lock, per_hold = CountingLock(), Counter()
    engine._lock = lock
    engine._users = CountedMap(engine._users, lock, per_hold)
    engine._groups = CountedMap(engine._groups, lock, per_hold)
    engine._queues.nodes = CountedMap(engine._queues.nodes, lock, per_hold)
    levels = len(engine._queues.nodes)

    rows = engine.usage_rows()

    assert len(rows.users) == USERS
    assert len(rows.groups) == GROUPS
    assert len(rows.queues) == levels > QUEUES
    assert sum(per_hold.values()) == USERS + GROUPS + levels
    assert max(per_hold.values()) == PER_HOLD
    assert lock.holds >= (USERS + GROUPS + levels) / PER_HOLD


def test_with_nothing_moving_the_rows_are_a_whole_snapshots():
    engine = _busy_engine()

    rows = engine.usage_rows()

    users = [(u["userName"], _root(u)) for u in engine.users_usage() if any(_root(u))]
    groups = [(g["groupName"], _root(g)) for g in engine.groups_usage() if any(_root(g))]
    assert [(u["userName"], _root(u)) for u in rows.users] == users
    assert [(g["groupName"], _root(g)) for g in rows.groups] == groups
    assert [tuple(row) for row in rows.queues] == _queues_in_use(engine.queues_usage())
    assert sum(usage["memory"] for _, (usage, _) in users) == sum(
        row.usage["memory"] for row in rows.queues if row.path == "root"
    )
