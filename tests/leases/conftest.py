"""Fixtures of the lease tests: a peer owning everything, and another peer's store."""

from __future__ import annotations

import pytest

from tests.leases.support import lease_store


@pytest.fixture
def owner(db):
    """``CAPPED_YAML`` active, and peer p1 owning every unit after its first round."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.peers import PeerLeases
    from quotaweb.core.services import engines_start
    from tests.configs import CAPPED_YAML

    config_apply(yaml_text=CAPPED_YAML, author=None, base_version=None)
    engines_start(leased=True)
    peer = PeerLeases(store=lease_store("p1"), write=lambda line: None)
    peer.round()
    yield peer
    peer.store.close()


@pytest.fixture
def taker():
    store = lease_store("p2")
    yield store
    store.close()
