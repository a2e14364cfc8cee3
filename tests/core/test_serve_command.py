"""``manage.py serve``, the production engine owner, started as docs/deployment.md starts it: in a
process of its own on a fresh database, migrated first, with the first admin made by
``createsuperuser --noinput``. It creates no login, runs no simulator, refuses debug mode and an
unmigrated database, and on SIGTERM lets the request in flight finish before it exits."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import threading
import time
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from quotaweb.accounts.services import (
    DEMO_ADMIN_PASSWORD_DEFAULT,
    DEMO_VIEWER_PASSWORD_DEFAULT,
)
from quotaweb.engine.gateway import engines_get
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port

ADMIN, ADMIN_PASSWORD = "ops", "a-long-ops-password-1"
ENG = "root.eng"


def allocation(key: str, memory: int = 2**30) -> dict:
    return {
        "allocationKey": key, "applicationId": f"app-{key}", "queuePath": ENG,
        "user": "alice", "groups": ["ml"], "resource": {"memory": memory, "vcore": 500},
    }


def log_in(server: ServerProcess, username: str, password: str) -> bool:
    """The browser's login: the form with its CSRF token, then the POST; True when it
    redirects (logged in), False when the form comes back with an error."""
    connection = server.connection()
    try:
        connection.request("GET", "/accounts/login/")
        page = connection.getresponse()
        html = page.read().decode()
        cookie = page.getheader("Set-Cookie").split(";", 1)[0]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        body = urlencode({
            "username": username, "password": password, "csrfmiddlewaretoken": token,
        })
        connection.request("POST", "/accounts/login/", body, {
            "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie,
        })
        answer = connection.getresponse()
        answer.read()
    finally:
        connection.close()
    assert answer.status in (200, 302), answer.status
    return answer.status == 302


@pytest.fixture
def fresh(tmp_path):
    """A production-mode server on an empty SQLite database of its own (never started yet)."""
    server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML, production=True)
    yield server
    server.close()


def test_serve_on_a_fresh_database_creates_no_login_and_keeps_allocations(fresh):
    fresh.migrate()
    token = fresh.create_admin(ADMIN, ADMIN_PASSWORD)

    with fresh.running("serve"):
        status, health = fresh.request("GET", "/healthz")
        assert status == 200
        assert health["status"] == "ok"
        assert set(health["engine"]) == {"default"}
        # No demo login exists: their published passwords open nothing, the admin's does.
        assert not log_in(fresh, "admin", DEMO_ADMIN_PASSWORD_DEFAULT)
        assert not log_in(fresh, "viewer", DEMO_VIEWER_PASSWORD_DEFAULT)
        assert log_in(fresh, ADMIN, ADMIN_PASSWORD)

        status, body = fresh.request(
            "POST", "/api/v1/partitions/default/allocations", allocation("kept"), token=token
        )
        assert (status, body["allowed"]) == (201, True)
        assert fresh.stop(signal.SIGTERM) == 0

        fresh.start("serve")
        fresh.wait_ready()
        status, page = fresh.request(
            "GET", "/api/v1/partitions/default/allocations", token=token
        )
        assert status == 200
        assert [row["allocationKey"] for row in page["results"]] == ["kept"]
        status, alice = fresh.request(
            "GET", "/ws/v1/partition/default/usage/user/alice", token=token
        )
        assert status == 200
        assert alice["queues"]["resourceUsage"]["memory"] == 2**30

    log = fresh.log_text()
    assert "quotaweb is serving at" in log
    assert "Logins at" not in log
    assert "Simulated load" not in log
    users = fresh.manage(
        "shell", "--no-imports", "-c",
        "from django.contrib.auth.models import User; "
        "print(sorted(User.objects.values_list('username', flat=True)))",
    )
    assert users.strip() == "['ops']"


def test_sigterm_lets_the_request_in_flight_finish(fresh):
    fresh.migrate()
    token = fresh.create_admin(ADMIN, ADMIN_PASSWORD)
    with fresh.running("serve"):
        # A request in flight: its headers and half its body are in when SIGTERM arrives.
        body = json.dumps(allocation("in-flight")).encode()
        client = socket.create_connection(("127.0.0.1", fresh.port), timeout=30)
        client.sendall(
            b"POST /api/v1/partitions/default/allocations HTTP/1.1\r\n"
            b"Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Authorization: Token {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body[:20]
        )
        time.sleep(0.5)
        fresh.process.send_signal(signal.SIGTERM)
        wait_for(lambda: "SIGTERM received" in fresh.log_text(), what="the drain to start")

        # Draining: no new connection is accepted, and the server waits for the request.
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", fresh.port)) != 0
        assert fresh.process.poll() is None

        client.sendall(body[20:])
        response = http.client.HTTPResponse(client)
        response.begin()
        answer = json.loads(response.read())
        client.close()
        assert response.status == 201
        assert answer == {"allowed": True, "allocationKey": "in-flight", "group": "ml"}
        assert response.getheader("Connection") == "close"
        assert fresh.process.wait(timeout=30) == 0
        assert "Drained in" in fresh.log_text()

        # What the drained request stored is there after a restart.
        fresh.start("serve")
        fresh.wait_ready()
        status, page = fresh.request(
            "GET", "/api/v1/partitions/default/allocations", token=token
        )
        assert status == 200
        assert [row["allocationKey"] for row in page["results"]] == ["in-flight"]


def wait_for(condition, *, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_serve_refuses_debug_mode_without_the_flag(fresh):
    result = fresh.run_manage("serve", "--port", str(fresh.port), env={"QUOTAWEB_DEBUG": "1"})

    assert result.returncode != 0
    assert "Debug mode is on (QUOTAWEB_DEBUG)" in result.stderr
    assert "--allow-debug" in result.stderr
    # With the flag it gets past that check (to the next one: this database is not migrated).
    allowed = fresh.run_manage(
        "serve", "--allow-debug", "--port", str(fresh.port), env={"QUOTAWEB_DEBUG": "1"}
    )
    assert allowed.returncode != 0
    assert "Debug mode is on" not in allowed.stderr
    assert "unapplied migration" in allowed.stderr


def test_serve_refuses_unapplied_migrations_and_names_the_command(fresh):
    result = fresh.run_manage("serve", "--port", str(fresh.port))

    assert result.returncode == 1
    assert "unapplied migration(s) (contenttypes.0001_initial" in result.stderr
    assert "python manage.py migrate" in result.stderr
    # It stopped before serving, and migrated nothing on its own.
    assert "serving" not in result.stdout
    assert "No migrations to apply" not in fresh.manage("migrate", "--noinput")


# -- in this process: what serve starts, before it serves ----------------------------------------


def _owner_threads() -> set[str]:
    return {
        thread.name for thread in threading.enumerate()
        if thread.name in {"usage-sampler", "elastic-worker", "engine-owner"}
        or thread.name.startswith("simulator")
    }


@pytest.mark.usefixtures("transactional_db")
def test_serve_loads_the_engines_and_starts_the_owner_threads_before_serving(
    monkeypatch, capsys, tmp_path
):
    from quotaweb.core.management.commands import serve as serve_command

    config = tmp_path / "queues.yaml"
    config.write_text(CAPPED_YAML, encoding="utf-8")
    port = free_port()
    seen = {}

    def fake_serve(*, host, port, drain_seconds, proxy_headers, listening):
        seen.update(
            host=host, port=port, drain=drain_seconds, proxy=proxy_headers,
            partitions=engines_get().partitions(), threads=_owner_threads(),
            # The socket taken before anything was loaded, to serve on.
            listening=listening.getsockname(),
        )

    monkeypatch.setattr(serve_command, "serve", fake_serve)
    call_command(
        "serve", "--host", "0.0.0.0", "--port", str(port), "--config", str(config),
        "--drain-seconds", "5", "--proxy-headers",
    )

    # A peer on PostgreSQL with Redis also answers the other peers' sockets for what it owns.
    peer = connection.vendor == "postgresql" and bool(settings.REDIS_URL)
    assert seen == {
        "host": "0.0.0.0", "port": port, "drain": 5.0, "proxy": True,
        "partitions": ["default"],
        "threads": {"usage-sampler", "elastic-worker", *(["engine-owner"] if peer else [])},
        "listening": ("0.0.0.0", port),
    }
    assert not get_user_model().objects.exists()
    assert not _owner_threads()  # stopped with the server
    out = capsys.readouterr().out
    assert f"imported {config} as version 1" in out
    assert f"quotaweb is serving at http://0.0.0.0:{port}/" in out


@pytest.mark.django_db
def test_serve_refuses_debug_in_process(settings, monkeypatch):
    from quotaweb.core.management.commands import serve as serve_command

    monkeypatch.setattr(serve_command, "serve", lambda **kw: pytest.fail("must not serve"))
    settings.DEBUG = True
    with pytest.raises(CommandError, match="Debug mode is on"):
        call_command("serve")


@pytest.mark.parametrize("value", ["-1", "x", "3601"])
def test_serve_refuses_a_bad_drain_time(value):
    with pytest.raises(CommandError, match="--drain-seconds"):
        call_command("serve", "--drain-seconds", value)
