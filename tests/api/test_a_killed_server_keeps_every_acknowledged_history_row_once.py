"""A real ``manage.py serve`` is killed (SIGKILL) in the middle of a load of allocations and
releases, and started again: the history holds every acknowledged admission and release
exactly once and nothing else, a release after the restart of an allocation made before it
included, and the accounting API counts the same admissions."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from django.conf import settings

from tests.api.test_server_crash_loses_nothing_acknowledged import Client
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port, postgres_database

HISTORY = (
    "import json; from quotaweb.allocations.models import HistoryEvent as H; "
    "print(json.dumps(list(H.objects.exclude(kind='denied').values_list('kind', 'key'))))"
)


class HistoryClient(Client):
    """The load, noting every admission and release it was answered."""

    def __init__(self, server: ServerProcess, token: str) -> None:
        super().__init__(server, token)
        self.admitted: list[str] = []
        self.released: list[str] = []

    def _settle(self, method: str, key: str, body: dict | None, status: int) -> None:
        # Each key is sent once, but for the operation the kill cut off, sent again after the
        # restart: 200 (stored before the kill) and 404 (released before it) are its answers.
        if method == "POST" and status in (200, 201):
            self.admitted.append(key)
        elif method == "DELETE" and status in (204, 404):
            self.released.append(key)
        super()._settle(method, key, body, status)


@pytest.fixture
def database_url():
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        yield None
        return
    with postgres_database(os.environ["DATABASE_URL"]) as url:
        yield url


def test_every_acknowledged_admission_and_release_is_in_the_history_once(
    tmp_path, database_url
):
    server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML, production=True,
                           database_url=database_url)
    server.migrate()
    token = server.create_admin("loader", "load-only-password-2718")
    server.start("serve")
    try:
        server.wait_ready()
        client = HistoryClient(server, token)
        stop = threading.Event()
        worker = threading.Thread(target=client.run, args=(stop,))
        worker.start()
        time.sleep(1.5)
        server.kill()
        worker.join(timeout=30)
        assert len(client.admitted) > 20, "too few allocations to show anything"
        server.start("serve")
        server.wait_ready()
        client.resolve_in_flight()
        # Releases after the restart, of allocations admitted before it.
        for key in sorted(client.live)[:3]:
            assert server.request(
                "DELETE", f"/api/v1/partitions/default/allocations/{key}", None, token
            )[0] == 204
            client.released.append(key)
        # The shell says what it imported before the script's one line.
        history = json.loads(server.manage("shell", "-c", HISTORY).strip().splitlines()[-1])
        assert sorted(key for kind, key in history if kind == "admitted") == sorted(
            client.admitted)
        assert sorted(key for kind, key in history if kind == "released") == sorted(
            client.released)
        status, report = server.request(
            "GET", "/api/v1/partitions/default/accounting?by=partition&step=hour", None, token
        )
        assert status == 200, report
        assert report["rows"][0]["allocations"] == len(client.admitted)
    finally:
        server.close()
