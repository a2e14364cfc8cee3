"""``manage.py simulate``: its arguments, the in-process try-out, and the same load sent to a real
server over HTTP (a process of its own, started the way ``bash bin/run`` starts it)."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quotaweb.core.simulator import HttpTarget, Simulator, drive
from tests.configs import SAMPLE_CONFIG
from tests.server_process import ServerProcess, free_port


@pytest.mark.parametrize(("args", "message"), [
    (["--rate", "0"], "--rate: must be a number of operations per second above 0"),
    (["--rate", "fast"], "--rate: must be a number of operations per second"),
    (["--rate", "5000"], "at most 1000"),
    (["--rate", "nan"], "--rate: must be a number"),
    (["--duration", "-1"], "--duration: must be a number of seconds"),
    (["--duration", "inf"], "--duration: must be a number of seconds"),
    (["--users", "-3"], "--users: must be a whole number from 0 to 1000"),
    (["--users", "1001"], "--users: must be a whole number from 0 to 1000"),
    (["--seed", "x"], "--seed: invalid int value"),
    (["--in-process", "--token", "k"], "--in-process runs engines of its own"),
    (["--in-process", "--url", "http://127.0.0.1:1"], "--in-process runs engines of its own"),
    ([], "a running server needs an API token"),
    (["--url", "ftp://example.org", "--token", "k"], "is not a server address"),
    (["--url", "http://127.0.0.1:99999", "--token", "k"], "is not a server address"),
    (["--url", "127.0.0.1:8000", "--token", "k"], "is not a server address"),
])
def test_the_command_refuses_bad_arguments(monkeypatch, args, message):
    monkeypatch.delenv("QUOTAWEB_API_TOKEN", raising=False)

    with pytest.raises(CommandError, match=message.replace("$", r"\$")):
        call_command("simulate", *args)


def test_an_unreachable_server_is_an_error_not_a_traceback():
    port = free_port()  # nothing listens there

    with pytest.raises(CommandError, match=rf"cannot reach the server at http://127.0.0.1:{port}"):
        call_command("simulate", "--url", f"http://127.0.0.1:{port}", "--token", "k")


@pytest.mark.django_db
def test_in_process_it_runs_its_own_engines_and_releases_everything(capsys):
    from quotaweb.allocations.models import Allocation

    call_command("simulate", "--in-process", "--partition", "gpu", "--rate", "100",
                 "--duration", "1.5", "--seed", "4")

    out = capsys.readouterr().out
    assert "Simulating 100 operations/s on partition gpu in this process for 1.5 s." in out
    done = out.strip().splitlines()[-1]
    assert done.startswith("Done: ")
    allocated = int(done.split()[1])
    assert allocated > 50
    assert f"{allocated} released" in done
    assert not Allocation.objects.exists()


@pytest.mark.django_db
def test_in_process_an_unknown_partition_is_named():
    with pytest.raises(CommandError, match="partition 'nope' is not configured here; it has: "
                                           "default, gpu"):
        call_command("simulate", "--in-process", "--partition", "nope")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerProcess(
        tmp_path_factory.mktemp("simulated-server"), free_port(),
        config_yaml=SAMPLE_CONFIG.read_text(encoding="utf-8"),
    ).running() as process:
        yield process


def _server_events(server: ServerProcess, token: str, partition: str) -> list[dict]:
    events, after = [], 0
    while True:
        status, page = server.request(
            "GET", f"/api/v1/partitions/{partition}/events?after={after}", token=token
        )
        assert status == 200
        events += page["events"]
        if not page["events"] or page["events"][-1]["seq"] >= page["last"]:
            return events
        after = page["events"][-1]["seq"]


def test_over_http_the_server_sees_every_operation(server):
    token = server.token("admin")
    url = f"http://127.0.0.1:{server.port}"
    simulator = Simulator(HttpTarget(url=url, token=token, partition="default"), rate=60,
                          seed=11)

    drive([simulator], stop=threading.Event(), duration=4)

    stats = simulator.stats
    assert stats.allocated > 80
    assert stats.refused == 0
    events = _server_events(server, token, "default")
    counted = {kind: sum(e["type"] == kind for e in events)
               for kind in ("allocated", "denied", "released")}
    assert counted == {"allocated": stats.allocated, "denied": stats.denied_total,
                       "released": stats.released}
    status, live = server.request("GET", "/api/v1/partitions/default/allocations", token=token)
    assert live["count"] == stats.allocated - stats.released > 0

    simulator.drain()
    simulator.target.close()
    status, live = server.request("GET", "/api/v1/partitions/default/allocations", token=token)
    assert (status, live["count"]) == (200, 0)


def test_the_command_over_http_reports_and_releases(server, capsys):
    token = server.token("admin")
    url = f"http://127.0.0.1:{server.port}"

    call_command("simulate", "--url", url, "--token", token, "--partition", "gpu",
                 "--rate", "50", "--duration", "2", "--seed", "3", "--users", "4")

    out = capsys.readouterr().out
    assert f"Simulating 50 operations/s on partition gpu on {url} for 2 s." in out
    assert out.strip().splitlines()[-1].startswith("Done: ")
    status, live = server.request("GET", "/api/v1/partitions/gpu/allocations", token=token)
    assert (status, live["count"]) == (200, 0)
    assert len(_server_events(server, token, "gpu")) > 40


def test_over_http_a_bad_token_partition_or_role_is_told_plainly(server, monkeypatch):
    url = f"http://127.0.0.1:{server.port}"
    admin, viewer = server.token("admin"), server.token("viewer")

    with pytest.raises(CommandError, match=r"refused the API token \(401\)"):
        call_command("simulate", "--url", url, "--token", "not-a-token")
    with pytest.raises(CommandError, match=r"partition 'nope' is not configured on .*; it has: "
                                           r"default, gpu"):
        call_command("simulate", "--url", url, "--token", admin, "--partition", "nope")
    with pytest.raises(CommandError, match=r"refused the operation \(403\).*quota admin"):
        call_command("simulate", "--url", url, "--token", viewer, "--duration", "1")
    with pytest.raises(CommandError, match="does not answer like a quotaweb server"):
        call_command("simulate", "--url", f"{url}/healthz", "--token", admin)
    # The token may come from the environment instead of the command line.
    monkeypatch.setenv("QUOTAWEB_API_TOKEN", viewer)
    with pytest.raises(CommandError, match=r"\(403\)"):
        call_command("simulate", "--url", url, "--duration", "1")
