"""A configuration version applied through another peer reaches this peer's engines at its
next round (``PeerLeases.share``): the partitions it owns switch to the new limits, their
usage kept, and a partition new in the version becomes a unit to take."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body, used
from tests.leases.support import postgres_only

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]

WIDER_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 100Gi, vcore: "100"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 20Gi}
  - name: extra
    queues:
      - name: root
"""


def test_the_owner_installs_a_version_another_peer_applied(owner, admin_api, monkeypatch):
    from quotaweb.config import services as config_services
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_get

    assert admin_api.post(ALLOCATIONS, body("k1", memory=8 * GiB), format="json").status_code \
        == 201
    # Applied by another peer: this process's engines are not switched by the apply itself.
    monkeypatch.setattr(config_services, "engines_loaded", lambda: False)
    config_apply(yaml_text=WIDER_YAML, author=None, base_version=1)
    assert admin_api.post(ALLOCATIONS, body("k2", memory=8 * GiB), format="json").status_code \
        == 409

    owner.share()

    gateway = engines_get()
    assert gateway.config_version == 2
    assert gateway.version("default") == 2
    assert "extra" in gateway.partitions()
    assert used("alice") == {"memory": 8 * GiB}
    assert admin_api.post(ALLOCATIONS, body("k2", memory=8 * GiB), format="json").status_code \
        == 201
