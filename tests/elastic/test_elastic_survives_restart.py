"""The switch, the cluster total and the demand are stored: a restart, even after ``kill -9``,
computes the same runtimes from them and the allocation ledger."""

from __future__ import annotations

import pytest

from quotaweb.core.services import engines_start
from quotaweb.engine.gateway import engines_reset
from tests.configs import ELASTIC_YAML
from tests.elastic.support import (
    ALLOCATIONS,
    ELASTIC,
    K1_DEMAND,
    SETTINGS,
    TOTAL,
    allocation,
    gpus,
    k1,
)
from tests.server_process import ServerProcess, free_port


def _figures(view: dict) -> dict:
    return {key: value for key, value in view.items() if key not in ("computedAt", "generation")}


@pytest.mark.django_db
def test_a_restart_computes_the_same_runtimes(admin_api, active_elastic):
    k1(admin_api)
    admin_api.put(SETTINGS, {"enabled": True}, format="json")
    assert admin_api.post(ALLOCATIONS, allocation("k1", queue="root.d", count=30),
                          format="json").status_code == 201
    before = _figures(admin_api.get(ELASTIC).json())

    engines_reset()
    engines_start()
    assert _figures(admin_api.get(ELASTIC).json()) == before
    # enforced again at once: d's runtime is what it was
    denied = admin_api.post(ALLOCATIONS, allocation("k2", queue="root.d", count=45, app="app-2"),
                            format="json")
    assert denied.json()["reason"] == "elasticQuota"


def test_a_killed_server_comes_back_with_the_same_runtimes(tmp_path):
    server = ServerProcess(tmp_path, free_port(), config_yaml=ELASTIC_YAML)
    with server.running():
        token = server.token("admin")
        assert server.request("PUT", TOTAL, gpus(100), token)[0] == 200
        for path, count in K1_DEMAND.items():
            status, _ = server.request("PUT", f"{ELASTIC}/demand",
                                       {"queuePath": path, "resource": gpus(count)}, token)
            assert status == 200
        assert server.request("PUT", SETTINGS, {"enabled": True}, token)[0] == 200
        assert server.request("POST", ALLOCATIONS, allocation("k1", queue="root.c", count=20),
                              token)[0] == 201
        before = _figures(server.request("GET", ELASTIC, None, token)[1])
        server.kill()

        server.start()
        server.wait_ready()
        after = _figures(server.request("GET", ELASTIC, None, token)[1])
        assert after == before
        status, denied = server.request(
            "POST", ALLOCATIONS, allocation("k2", queue="root.a", count=6, app="app-2"), token
        )
        assert status == 409
        assert denied["reason"] == "elasticQuota"
