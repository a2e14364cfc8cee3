"""What the tests of the database's single owner share: a production ``serve`` on a SQLite file
of its own, holding simulated allocations (``sim-`` applications, the kind a demo's simulator
adopts and releases at its start and stop), and two views of them: the ledger's rows, read by
a process of its own, and the engine's usage, read through the running server's API."""

from __future__ import annotations

import json
from pathlib import Path

from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port

ADMIN, ADMIN_PASSWORD = "ops", "a-long-ops-password-1"
# An earlier demo's simulated applications, left in the ledger: three allocations each.
APPLICATIONS, PER_APPLICATION = 20, 3
LEDGER_ROWS = (
    "import json; from quotaweb.allocations.models import Allocation; "
    "print(json.dumps(list(Allocation.objects.order_by('partition', 'key')"
    ".values_list('partition', 'key', 'application_id', 'user', 'resource'))))"
)
DATABASE_FILE = "quotaweb.sqlite3"


def production_server(data_dir: Path) -> ServerProcess:
    """A production-mode server on the SQLite file in ``data_dir``, migrated, with a quota
    admin (``ADMIN``); not started."""
    server = ServerProcess(data_dir, free_port(), config_yaml=CAPPED_YAML, production=True)
    server.migrate()
    server.create_admin(ADMIN, ADMIN_PASSWORD)
    return server


def beside(server: ServerProcess, data_dir: Path) -> ServerProcess:
    """Another server on the same database (and configuration) as ``server``, on a port of its
    own."""
    other = ServerProcess(data_dir, free_port(), config_yaml=CAPPED_YAML)
    other.env = dict(server.env)
    return other


def simulated_allocations_make(server: ServerProcess, token: str) -> int:
    """``APPLICATIONS`` simulated applications through the API; how many allocations."""
    connection = server.connection()
    try:
        for application in range(APPLICATIONS):
            for task in range(PER_APPLICATION):
                status, body = server.request(
                    "POST", "/api/v1/partitions/default/allocations", {
                        "allocationKey": f"sim-earlier-{application:06d}-{task}",
                        "applicationId": f"sim-earlier-{application:06d}",
                        "queuePath": "root.eng", "user": "bob",
                        "resource": {"memory": 2**30, "vcore": 100},
                    }, token=token, connection=connection,
                )
                assert (status, body["allowed"]) == (201, True), body
    finally:
        connection.close()
    return APPLICATIONS * PER_APPLICATION


def ledger_rows(server: ServerProcess) -> list[list[str]]:
    return json.loads(server.manage("shell", "--no-imports", "-c", LEDGER_ROWS))


def engine_usage(server: ServerProcess, token: str) -> dict:
    """bob's usage and the queue's, as the running server's engine counts them."""
    status, user = server.request(
        "GET", "/ws/v1/partition/default/usage/user/bob", token=token
    )
    assert status == 200, user
    status, queues = server.request("GET", "/ws/v1/partition/default/queues", token=token)
    assert status == 200, queues
    return {"user": user, "queues": queues}
