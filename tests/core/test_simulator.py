"""The simulator over simulated minutes of the sample configuration: it allocates and releases
through the allocation services (the ledger, the events feed and the engines all see it), some of
its users run into their limits, it follows configuration changes and shrugs off refusals."""

from __future__ import annotations

from collections import defaultdict

import pytest

from quotaweb.allocations.models import Allocation
from quotaweb.core.simulator import (
    SIM_PREFIX,
    InProcessTarget,
    Refused,
    Simulator,
    population_build,
)
from quotaweb.engine.gateway import engines_get
from tests.core.simulator_support import all_events, kinds, run_for, usage_left
from trackers import parse_config


def _allocated_resource(partition: str) -> dict[str, int]:
    return engines_get().queues_usage(partition).get("allocatedResource") or {}


def test_population_comes_from_the_limits_plus_generated_wildcard_users(sample_yaml):
    partition = parse_config(sample_yaml).partition("default")

    population = population_build(partition, generated=5, seed="s")

    names = [user.name for user in population.users]
    assert names[:6] == ["alice", "bob", "eve", "system:serviceaccount:ci:runner", "grace",
                         "heidi"]
    assert names[6:] == ["user-01", "user-02", "user-03", "user-04", "user-05"]
    named_groups = {"ml-researchers", "oncall", "vision-team", "analysts", "contractors",
                    "auditors"}
    assert named_groups <= {group for user in population.users for group in user.groups}
    assert len(population.leaves) == 12
    assert all(set(user.queues) <= set(population.leaves) and user.queues
               for user in population.users)
    # GPUs only where a queue offers them (genomics has none of its own).
    assert population.accelerators == {
        "root.research.nlp": "nvidia.com/gpu", "root.research.vision": "nvidia.com/gpu",
        "root.research.robotics": "nvidia.com/gpu",
    }
    assert population_build(partition, generated=5, seed="s") == population


@pytest.mark.usefixtures("active_sample")
def test_minutes_of_load_allocate_release_and_deny_and_drain_to_zero():
    simulator = Simulator(InProcessTarget("default"), rate=20, seed=1)

    now = run_for(simulator, start=0.0, seconds=180)

    stats = simulator.stats
    asked = stats.allocated + stats.denied_total
    # About 20 operations a second: allocations asked for, and releases (one per application).
    assert 3300 < asked + stats.applications < 3650
    assert stats.released > 1000
    assert 0.05 <= stats.denied_total / asked <= 0.2
    assert {"userQuota", "groupQuota"} <= set(stats.denied)
    assert stats.refused == 0

    events = all_events("default")
    counted = kinds(events)
    assert counted["allocated"] == stats.allocated
    assert counted["denied"] == stats.denied_total
    assert counted["released"] == stats.released
    allocated_keys = [e["allocationKey"] for e in events if e["type"] == "allocated"]
    assert len(set(allocated_keys)) == len(allocated_keys)
    assert all(key.startswith(SIM_PREFIX) for key in allocated_keys)
    assert all(e["reason"] for e in events if e["type"] == "denied")
    sizes = {e["resource"]["memory"] for e in events if e["type"] == "allocated"}
    assert all(size % 2**30 == 0 for size in sizes)
    assert any("nvidia.com/gpu" in e["resource"] for e in events if e["type"] == "allocated")

    # What is running is in the ledger and in the engine, and nothing else is.
    live = stats.allocated - stats.released
    assert live > 0
    assert Allocation.objects.filter(partition="default").count() == live
    assert engines_get().live_count("default") == live
    assert _allocated_resource("default").get("memory", 0) > 0
    assert simulator.live_applications > 0
    assert usage_left("default")

    assert simulator.drain() == 0
    assert simulator.live_applications == 0
    assert not Allocation.objects.exists()
    assert engines_get().live_count("default") == 0
    assert usage_left("default") == []
    assert kinds(all_events("default"))["released"] == stats.allocated
    allocated = stats.allocated
    run_for(simulator, start=now, seconds=5)  # and it goes on after a drain
    assert simulator.stats.allocated > allocated


@pytest.mark.usefixtures("active_sample")
def test_the_same_seed_gives_the_same_load():
    from quotaweb.core.services import engines_start

    def one_run() -> list[tuple]:
        simulator = Simulator(InProcessTarget("gpu"), rate=30, seed=7, run_id="same")
        run_for(simulator, start=100.0, seconds=30)
        simulator.drain()
        events = all_events("gpu")
        engines_start()  # fresh engines: the ledger is empty again after the drain
        return [(e["type"], e["allocationKey"], e["user"], e["queuePath"], e["resource"],
                 e.get("reason")) for e in events]

    first = one_run()
    assert len(first) > 500
    assert one_run() == first


@pytest.mark.usefixtures("active_sample")
def test_it_follows_configuration_changes_while_running(sample_yaml):
    from quotaweb.config.services import config_apply

    default = Simulator(InProcessTarget("default"), rate=20, seed=3)
    gpu = Simulator(InProcessTarget("gpu"), rate=10, seed=3)

    def both(start: float, seconds: float) -> float:
        for index in range(1, round(seconds * 10) + 1):
            default.step(start + index / 10)
            gpu.step(start + index / 10)
        return start + seconds

    now = both(0.0, 60)
    assert any(e["queuePath"] == "root.research.robotics" for e in all_events("default"))
    gpu_allocated = gpu.stats.allocated
    seq = all_events("default")[-1]["seq"]

    # robotics is renamed quantum and the gpu partition goes away.
    changed = sample_yaml[: sample_yaml.index("  - name: gpu")].replace(
        "              - name: robotics", "              - name: quantum"
    )
    config_apply(yaml_text=changed, author=None, base_version=1)
    now = both(now, 120)

    after = all_events("default", after=seq)
    allocated_in = {e["queuePath"] for e in after if e["type"] == "allocated"}
    assert "root.research.quantum" in allocated_in
    assert "root.research.robotics" not in allocated_in
    # Applications already running in the queue that went away were still released.
    assert any(e["queuePath"] == "root.research.robotics" for e in after
               if e["type"] == "released")
    assert gpu.stats.allocated == gpu_allocated  # paused while its partition is gone
    assert default.stats.refused == 0

    config_apply(yaml_text=sample_yaml, author=None, base_version=2)
    both(now, 20)
    assert gpu.stats.allocated > gpu_allocated

    default.drain()
    gpu.drain()
    assert usage_left("default") == []
    assert usage_left("gpu") == []


@pytest.mark.usefixtures("active_sample")
def test_a_refused_allocation_is_logged_and_the_load_goes_on(caplog):
    from quotaweb.allocations.services import allocation_create, allocation_request

    # Another client took the simulator's first key with another body: a key conflict.
    allocation_create(partition="default", request=allocation_request({
        "allocationKey": "sim-taken-000001-0", "applicationId": "someone-else",
        "queuePath": "root.ops.sre", "user": "heidi", "resource": {"memory": 1},
    }))
    simulator = Simulator(InProcessTarget("default"), rate=20, seed=1, run_id="taken")

    run_for(simulator, start=0.0, seconds=20)

    assert simulator.stats.refused == 1
    assert simulator.stats.allocated > 100
    assert "sim-taken-000001-0 refused" in caplog.text
    simulator.drain()
    assert list(Allocation.objects.values_list("key", flat=True)) == ["sim-taken-000001-0"]


class FlakyTarget:
    """Refuses every fifth allocation, and the first release of every application."""

    partition = "default"

    def __init__(self, yaml_text: str) -> None:
        self.model = parse_config(yaml_text).partition("default")
        self.allocations = 0
        self.live: dict[str, int] = defaultdict(int)
        self.release_attempts: dict[str, int] = defaultdict(int)

    def config(self):
        return 1, self.model

    def allocate(self, body):
        self.allocations += 1
        if self.allocations % 5 == 0:
            raise Refused("database is locked")
        self.live[body["applicationId"]] += 1
        return True, None

    def release_application(self, application_id):
        self.release_attempts[application_id] += 1
        if self.release_attempts[application_id] == 1:
            raise Refused("database is locked")
        return self.live.pop(application_id)


def test_refused_releases_are_tried_again(sample_yaml):
    target = FlakyTarget(sample_yaml)
    simulator = Simulator(target, rate=20, seed=2)

    run_for(simulator, start=0.0, seconds=120)

    assert simulator.stats.refused > 100
    released = [app for app, tries in target.release_attempts.items() if tries == 2]
    assert len(released) > 50
    assert simulator.stats.released == simulator.stats.allocated - sum(target.live.values())
