"""The demo's simulated load: a daemon thread over every partition that the demo starts unless told
not to, stops with the server (releasing what it runs and closing its database connection), and
that releases what an earlier run left behind."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections

from quotaweb.allocations.models import Allocation
from quotaweb.core.ownership import ownership_claim
from quotaweb.core.simulator import simulator_start
from quotaweb.engine.gateway import engines_get
from tests.configs import SAMPLE_CONFIG
from tests.core.simulator_support import all_events, kinds, usage_left
from tests.server_process import free_port

THREAD_NAME = "quotaweb-simulator"


def _simulator_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


def _wait_for(condition, *, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def sample_engines(transactional_db):
    """Committed for real: the simulator thread writes on a connection of its own."""
    from quotaweb.core.services import engines_start

    return engines_start(config_path=SAMPLE_CONFIG)


@pytest.mark.usefixtures("sample_engines")
def test_the_runner_loads_every_partition_then_stops_releases_and_closes(monkeypatch):
    from quotaweb.allocations.services import allocation_create, allocation_request

    # An earlier run that crashed left one of its applications live.
    allocation_create(partition="gpu", request=allocation_request({
        "allocationKey": "sim-old-000001-0", "applicationId": "sim-old-000001",
        "queuePath": "root.training", "user": "alice", "resource": {"nvidia.com/gpu": 1},
    }))
    closed_in: list[str] = []
    close_all = connections.close_all

    def recording_close_all() -> None:
        closed_in.append(threading.current_thread().name)
        close_all()

    monkeypatch.setattr(connections, "close_all", recording_close_all)

    runner = simulator_start(
        ownership=ownership_claim(command="test", address=None), rate=200, seed=5
    )

    assert runner.alive
    assert runner.partitions == ["default", "gpu"]
    assert [simulator.rate for simulator in runner.simulators] == [100, 100]
    _wait_for(lambda: all(kinds(all_events(p))["allocated"] > 20 for p in ("default", "gpu")))
    # The leftover is released like any application of this run.
    _wait_for(lambda: not Allocation.objects.filter(application_id="sim-old-000001").exists())

    runner.stop()

    assert not runner.alive
    assert not _simulator_threads()
    assert closed_in == [THREAD_NAME]
    assert not Allocation.objects.exists()
    for partition in ("default", "gpu"):
        assert engines_get().live_count(partition) == 0
        assert usage_left(partition) == []
        events = all_events(partition)
        assert kinds(events)["released"] == kinds(events)["allocated"]


@pytest.mark.usefixtures("transactional_db")
def test_the_demo_starts_the_simulator_and_stops_it_with_the_server(monkeypatch, capsys):
    from quotaweb.core.management.commands import demo

    seen = {}

    def fake_serve(*, host, port, listening):
        seen["threads"] = len(_simulator_threads())

    monkeypatch.delenv("QUOTAWEB_SIMULATOR", raising=False)
    monkeypatch.setattr(demo, "serve", fake_serve)
    call_command("demo", "--port", str(free_port()), "--sim-rate", "7.5")

    assert seen == {"threads": 1}
    assert not _simulator_threads()
    out = capsys.readouterr().out
    assert "Simulated load: 7.5 operations/s over partitions default, gpu" in out


@pytest.mark.usefixtures("transactional_db")
def test_the_simulator_stops_even_when_the_server_fails(monkeypatch):
    from quotaweb.core.management.commands import demo

    def failing_serve(*, host, port, listening):
        raise OSError("address already in use")

    monkeypatch.setattr(demo, "serve", failing_serve)
    with pytest.raises(OSError, match="address already in use"):
        call_command("demo", "--port", str(free_port()))

    assert not _simulator_threads()


@pytest.mark.parametrize(("args", "env"), [(["--no-simulator"], None), ([], "0"), ([], "off")])
@pytest.mark.django_db
def test_the_demo_without_simulator(monkeypatch, capsys, args, env):
    from quotaweb.core.management.commands import demo

    seen = {}
    if env is None:
        monkeypatch.delenv("QUOTAWEB_SIMULATOR", raising=False)
    else:
        monkeypatch.setenv("QUOTAWEB_SIMULATOR", env)
    monkeypatch.setattr(demo, "serve",
                        lambda **kw: seen.update(threads=len(_simulator_threads())))

    call_command("demo", "--port", str(free_port()), *args)

    assert seen == {"threads": 0}
    assert "Simulated load" not in capsys.readouterr().out


@pytest.mark.django_db
def test_the_demo_refuses_a_bad_switch_or_rate(monkeypatch):
    from quotaweb.core.management.commands import demo

    monkeypatch.setattr(demo, "serve", lambda **kw: pytest.fail("must not serve"))
    monkeypatch.setenv("QUOTAWEB_SIMULATOR", "maybe")
    with pytest.raises(CommandError, match="QUOTAWEB_SIMULATOR='maybe' is not a boolean"):
        call_command("demo")
    monkeypatch.delenv("QUOTAWEB_SIMULATOR")
    with pytest.raises(CommandError, match="--sim-rate: must be a number of operations"):
        call_command("demo", "--sim-rate", "-1")
