"""The ledger holds exactly the acknowledged, unreleased allocations, and a start-up rebuilds
the engines from the active config plus the ledger; a failed ledger write acknowledges nothing."""

from __future__ import annotations

import pytest

from quotaweb.allocations import services
from quotaweb.config.services import config_apply
from quotaweb.core.services import engines_start
from quotaweb.engine.gateway import engines_get, engines_reset
from tests.api.allocation_support import ALLOCATIONS, GiB, body, ledger, used
from tests.configs import CAPPED_YAML

pytestmark = pytest.mark.django_db


def _restart():
    engines_reset()
    return engines_start()


def test_a_restart_brings_back_every_live_allocation_and_no_released_one(
    admin_api, capped_engines
):
    admin_api.post(ALLOCATIONS, body("a", memory=2 * GiB), format="json")
    admin_api.post(ALLOCATIONS, body("b", memory=3 * GiB, app="app-2"), format="json")
    admin_api.post(ALLOCATIONS, body("c", user="bob", app="app-b", groups=[]), format="json")
    admin_api.delete(f"{ALLOCATIONS}/a")
    before = (engines_get().users_usage("default"), engines_get().groups_usage("default"),
              engines_get().queues_usage("default"))

    gateway = _restart()
    assert (gateway.users_usage("default"), gateway.groups_usage("default"),
            gateway.queues_usage("default")) == before
    assert gateway.live_count("default") == 2
    # The restored allocations are released like any other, and keys stay idempotent.
    assert admin_api.post(ALLOCATIONS, body("b", memory=3 * GiB, app="app-2"),
                          format="json").status_code == 200
    assert admin_api.delete(f"{ALLOCATIONS}/b").status_code == 204
    assert used("alice") == {}


def test_usage_above_a_limit_tightened_meanwhile_is_restored_not_refused(
    admin_api, capped_engines
):
    admin_api.post(ALLOCATIONS, body("a", memory=8 * GiB), format="json")
    config_apply(yaml_text=CAPPED_YAML.replace("maxresources: {memory: 10Gi}",
                                               "maxresources: {memory: 4Gi}"),
                 author=None, base_version=1)
    _restart()
    assert used("alice") == {"memory": 8 * GiB}
    denied = admin_api.post(ALLOCATIONS, body("b", memory=1), format="json")
    assert denied.json()["reason"] == "userQuota"


def test_a_failed_ledger_write_is_not_acknowledged_and_leaves_no_usage(
    admin_api, capped_engines, monkeypatch
):
    def broken(partition):
        def write(stored, deleted):
            raise RuntimeError("database went away")
        return write

    monkeypatch.setattr(services, "_ledger_write", broken)
    response = admin_api.post(ALLOCATIONS, body("a"), format="json")
    assert response.status_code == 500
    assert used("alice") == {}
    assert capped_engines.live_count("default") == 0
    monkeypatch.undo()
    assert admin_api.post(ALLOCATIONS, body("a"), format="json").status_code == 201


def test_a_failed_release_write_keeps_the_allocation(admin_api, capped_engines, monkeypatch):
    admin_api.post(ALLOCATIONS, body("a"), format="json")

    def broken(partition):
        def write(stored, deleted):
            raise RuntimeError("database went away")
        return write

    monkeypatch.setattr(services, "_ledger_write", broken)
    assert admin_api.delete(f"{ALLOCATIONS}/a").status_code == 500
    assert used("alice") == {"memory": GiB}
    assert set(ledger()) == {"a"}
