"""Spec 2.6: concurrent requests are serialised per partition, so two increases can never both pass
on the same remaining headroom, and the books always balance."""

from __future__ import annotations

import random
import sys
import threading
from collections import defaultdict

import pytest

from tests.trackers.ugm.support import group_used, lim, make_engine, qconf, used

THREADS = 8
USER_CAP = 300
GROUP_CAP = 1000
QUEUE_CAP = 1500
USER_APPS = 4
GROUP_APPS = 12


@pytest.fixture(autouse=True)
def busy_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def shared_engine():
    return make_engine(
        limits={
            "root": [
                lim(users=["*"], res={"memory": USER_CAP}, apps=USER_APPS),
                lim(groups=["dev"], res={"memory": GROUP_CAP}, apps=GROUP_APPS),
            ]
        },
        queues={"root.shared": qconf(max={"memory": QUEUE_CAP})},
    )


def test_increases_only_never_exceed_any_cap():
    engine = shared_engine()
    users = [f"user{i}" for i in range(6)]
    accepted: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(seed):
        rng = random.Random(seed)
        start.wait()
        for _ in range(400):
            user = rng.choice(users)
            app = f"{user}-app{rng.randrange(USER_APPS + 2)}"
            amount = rng.randint(1, 40)
            decision = engine.increase("root.shared.q", app, user, ["dev"], {"memory": amount})
            if decision.allowed:
                with lock:
                    accepted[user] += amount

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    total = sum(accepted.values())
    assert total <= GROUP_CAP
    assert total > 0
    for user in users:
        assert used(engine, user, "root") == ({"memory": accepted[user]} if accepted[user] else {})
        assert accepted[user] <= USER_CAP
        apps = engine.user_usage(user)
        if apps is not None:
            assert len(apps["queues"].get("runningApplications", [])) <= USER_APPS
    assert group_used(engine, "dev", "root") == ({"memory": total} if total else {})
    assert len(engine.group_usage("dev").get("applications", [])) <= GROUP_APPS
    assert engine.queues_usage()["allocatedResource"] == {"memory": total}


def test_mixed_increase_and_decrease_balance():
    engine = shared_engine()
    users = [f"user{i}" for i in range(THREADS)]
    net: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    start = threading.Barrier(THREADS)
    violations = []

    def worker(index):
        rng = random.Random(1000 + index)
        # every thread works for its own user (so its own decreases never race its increases),
        # while all of them share the group, the queue and the app slots of the group
        user = users[index]
        held: dict[str, int] = {}
        start.wait()
        for _ in range(500):
            if held and rng.random() < 0.45:
                app = rng.choice(sorted(held))
                amount = rng.randint(0, held[app])
                remove = amount == held[app] and rng.random() < 0.5
                engine.decrease("root.shared.q", app, user, {"memory": amount}, remove)
                held[app] -= amount
                if remove:
                    del held[app]
                with lock:
                    net[user] -= amount
            else:
                app = f"{user}-app{rng.randrange(6)}"
                amount = rng.randint(1, 60)
                decision = engine.increase("root.shared.q", app, user, ["dev"], {"memory": amount})
                if decision.allowed:
                    held[app] = held.get(app, 0) + amount
                    with lock:
                        net[user] += amount
            room = engine.headroom("root.shared.q", "probe", user, ["dev"])
            if room is not None and any(value < 0 for value in room.values()):
                violations.append(room)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert violations == []
    total = sum(net.values())
    for user in users:
        expected = {"memory": net[user]} if net[user] else {}
        assert used(engine, user, "root.shared.q") == expected
        assert net[user] <= USER_CAP
    assert group_used(engine, "dev", "root") == ({"memory": total} if total else {})
    assert total <= GROUP_CAP
    queue_alloc = engine.queues_usage().get("allocatedResource", {})
    assert queue_alloc == ({"memory": total} if total else {})


def test_concurrent_new_apps_respect_the_app_cap():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=5)]})
    start = threading.Barrier(THREADS)
    allowed = []
    lock = threading.Lock()

    def worker(index):
        start.wait()
        for j in range(20):
            decision = engine.increase("root.a", f"app-{index}-{j}", f"u{index}", ["dev"], {})
            if decision.allowed:
                with lock:
                    allowed.append(decision)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 5
    assert len(engine.group_usage("dev")["applications"]) == 5


def test_seq_is_consistent_under_concurrency():
    engine = make_engine()
    start_seq = engine.seq
    start = threading.Barrier(THREADS)

    def worker(index):
        start.wait()
        for j in range(100):
            engine.increase("root.a", f"app{j}", f"u{index}", [], {"memory": 1})

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert engine.seq - start_seq >= THREADS * 100
    changes = engine.changes_since(start_seq)
    assert changes.users == {f"u{i}" for i in range(THREADS)}


def test_config_switches_during_increases_keep_usage_within_the_larger_cap():
    from tests.trackers.ugm.support import partition_for

    small = partition_for(limits={"root": [lim(users=["*"], res={"memory": 100})]})
    large = partition_for(limits={"root": [lim(users=["*"], res={"memory": 200})]})
    engine = make_engine(limits={"root": [lim(users=["*"], res={"memory": 100})]})
    start = threading.Barrier(THREADS + 1)
    accepted = []
    lock = threading.Lock()

    def worker(index):
        start.wait()
        for j in range(300):
            decision = engine.increase("root.a", f"app{index}", "shared", [], {"memory": 1})
            if decision.allowed:
                with lock:
                    accepted.append(j)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    start.wait()
    for k in range(200):
        engine.apply_config(large if k % 2 else small)
    for thread in threads:
        thread.join()
    assert len(accepted) <= 200
    assert used(engine, "shared", "root") == {"memory": len(accepted)}
