"""A quotaweb server in a process of its own, started the way ``bash bin/run`` starts it
(``manage.py demo``): for the crash and concurrency tests and the benchmarks, which need a real
ASGI server they can load and kill. It runs on a SQLite file in a given folder, or on a
PostgreSQL database of its own (``postgres_database``).

``production=True`` starts it the way docs/deployment.md does instead: debug off with a secret
key of its own, the caller migrates (``migrate``) and makes the first admin (``create_admin``),
then ``start("serve")``."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 60
# Whatever database and channel layer the caller uses, the server gets its own SQLite file (or
# the PostgreSQL database it is given).
_DROPPED = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database on the server of ``server_url`` (any database URL of
    it), dropped afterwards: a server process gets its own, apart from the suite's test
    database. Yields its URL."""
    import psycopg

    from quotaweb.env import parse_database_url

    parts = parse_database_url(server_url)
    name = f"quotaweb_proc_{uuid.uuid4().hex[:12]}"
    admin = {
        "dbname": "postgres", "user": parts["USER"] or None, "password": parts["PASSWORD"] or None,
        "host": parts["HOST"] or None, "port": parts["PORT"] or None, "autocommit": True,
    }
    with psycopg.connect(**{k: v for k, v in admin.items() if v is not None}) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base, mark, query = server_url.partition("?")
    try:
        yield base.rsplit("/", 1)[0] + "/" + name + mark + query
    finally:
        with psycopg.connect(**{k: v for k, v in admin.items() if v is not None}) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def own_database_connection():
    """A psycopg connection of its own (autocommit) to the database the tests' Django uses."""
    import psycopg
    from django.db import connection

    settings = connection.settings_dict
    options = {
        "dbname": settings["NAME"], "user": settings["USER"] or None,
        "password": settings["PASSWORD"] or None, "host": settings["HOST"] or None,
        "port": settings["PORT"] or None,
    }
    return psycopg.connect(autocommit=True, **{k: v for k, v in options.items() if v is not None})


class ServerProcess:
    def __init__(
        self, data_dir: Path, port: int, *, config_yaml: str, database_url: str | None = None,
        env: dict[str, str] | None = None, production: bool = False,
    ) -> None:
        self.port = port
        self.env = {key: value for key, value in os.environ.items() if key not in _DROPPED}
        if database_url is not None:
            self.env["DATABASE_URL"] = database_url
        config = data_dir / "queues.yaml"
        config.write_text(config_yaml, encoding="utf-8")
        # No simulated load: callers compare usage with exactly what they sent.
        self.env.update({
            "QUOTAWEB_DATA_DIR": str(data_dir), "QUOTAWEB_DEBUG": "1",
            "QUOTAWEB_CONFIG": str(config), "QUOTAWEB_LOG_LEVEL": "WARNING",
            "QUOTAWEB_SIMULATOR": "0",
        })
        if production:
            self.env.update({
                "QUOTAWEB_DEBUG": "0", "QUOTAWEB_SECRET_KEY": secrets.token_urlsafe(50),
            })
        self.env.update(env or {})
        self.log = (data_dir / f"server-{port}.log").open("ab")
        self.process: subprocess.Popen | None = None

    def run_manage(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess:
        """``manage.py <args>`` in this server's environment (plus ``env``), however it ends."""
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env={**self.env, **(env or {})},
            check=False, capture_output=True, text=True, timeout=timeout,
        )

    def manage(self, *args: str, env: dict[str, str] | None = None) -> str:
        result = self.run_manage(*args, env=env)
        if result.returncode != 0:
            raise subprocess.CalledProcessError(
                result.returncode, result.args, result.stdout, result.stderr
            )
        return result.stdout

    def token(self, username: str) -> str:
        """A DRF token for ``username`` (the demo creates ``admin``)."""
        return self.manage("drf_create_token", username).split()[2]

    def migrate(self) -> None:
        """What an operator runs before ``serve`` (which never migrates by itself)."""
        self.manage("migrate", "--noinput")

    def create_admin(self, username: str, password: str) -> str:
        """The first quota admin the documented way (``createsuperuser --noinput`` with the
        ``DJANGO_SUPERUSER_*`` variables); its API token."""
        self.manage("createsuperuser", "--noinput", env={
            "DJANGO_SUPERUSER_USERNAME": username, "DJANGO_SUPERUSER_PASSWORD": password,
            "DJANGO_SUPERUSER_EMAIL": f"{username}@example.org",
        })
        return self.token(username)

    def start(self, command: str = "demo", *args: str) -> None:
        """Start ``manage.py <command> [args]`` (``demo``, the engine owner of the try-out;
        ``serve``, the production engine owner; or ``web``, a process that serves live sockets
        for either)."""
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", command, "--port", str(self.port), *args],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )

    @contextmanager
    def running(self, command: str = "demo", *args: str) -> Iterator[ServerProcess]:
        """Started (``manage.py <command> [args]``) and ready for the block; killed after it."""
        self.start(command, *args)
        try:
            self.wait_ready()
            yield self
        finally:
            self.close()

    def wait_listening(self) -> None:
        """Until the port accepts connections (a ``web`` process has no engines to be ready)."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited while starting; see {self.log.name}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise AssertionError("the server did not start listening")

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited while starting; see {self.log.name}")
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("the server did not become ready")

    def owns(self) -> set[str]:
        """The units this peer owns, as its ``/healthz`` says (none while it does not answer)."""
        try:
            status, health = self.request("GET", "/healthz")
        except OSError:
            return set()
        return set(health.get("owns", ())) if status == 200 else set()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self, how: signal.Signals = signal.SIGTERM, *, timeout: float = 30) -> int:
        """Ask the server to stop (SIGTERM, or SIGINT as Ctrl-C sends) and wait for it to exit;
        its exit code."""
        self.process.send_signal(how)
        return self.process.wait(timeout=timeout)

    def log_text(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return Path(self.log.name).read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()
        self.log.close()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def connection(self, timeout: float = 30) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(
        self, method: str, path: str, body: Any = None, token: str = "",
        connection: http.client.HTTPConnection | None = None,
    ) -> tuple[int, Any]:
        """One request (on ``connection`` when given, kept open for the next one); ``body`` is
        sent as JSON, or as it is when already encoded."""
        own = connection is None
        connection = connection or self.connection()
        try:
            headers = {"Content-Type": "application/json"}
            if token:
                headers["Authorization"] = f"Token {token}"
            if body is not None and not isinstance(body, bytes):
                body = json.dumps(body).encode()
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            data = response.read()
            return response.status, (json.loads(data) if data else None)
        finally:
            if own:
                connection.close()


PEER_ADMIN_PASSWORD = "a-long-enough-password-1"


def peers_start(
    folder: Path, database_url: str, *, count: int, config_yaml: str,
    env: dict[str, str] | None = None, database_urls: dict[int, str] | None = None,
) -> tuple[list[ServerProcess], str]:
    """``count`` production ``serve`` peers named ``peer1``, ``peer2``... on one PostgreSQL
    database, each with a data folder of its own under ``folder``: migrated, the first admin
    made, every peer started and ready. ``database_urls`` gives a peer (by number) another way
    to the same database (through a proxy a test can cut). The peers and the admin's token; stop
    them with ``peers_stop``."""
    servers: list[ServerProcess] = []
    for number in range(1, count + 1):
        data = folder / f"peer{number}"
        data.mkdir(parents=True)
        servers.append(ServerProcess(
            data, free_port(), config_yaml=config_yaml,
            database_url=(database_urls or {}).get(number, database_url), production=True,
            env={"QUOTAWEB_NODE_NAME": f"peer{number}", **(env or {})},
        ))
    try:
        servers[0].migrate()
        token = servers[0].create_admin("admin", PEER_ADMIN_PASSWORD)
        for server in servers:
            server.start("serve")
        for server in servers:
            server.wait_ready()
    except BaseException:
        peers_stop(servers)
        raise
    return servers, token


def peers_stop(servers: list[ServerProcess]) -> None:
    """Kill every peer, a paused (SIGSTOP) one too."""
    for server in servers:
        if server.process is not None and server.process.poll() is None:
            server.process.send_signal(signal.SIGCONT)
        server.close()
