"""Two ``serve`` peers started together on an empty database both try to import their file as
version 1: the one that loses the compare-and-set loads the version the other imported instead
of failing to start."""

from __future__ import annotations

import pytest

from tests.configs import CAPPED_YAML, SAMPLE_CONFIG

pytestmark = pytest.mark.django_db


def test_the_peer_that_lost_the_import_loads_the_winners_version(monkeypatch):
    from quotaweb.config import services as config_services
    from quotaweb.config.selectors import active_version_number
    from quotaweb.core import services

    real = config_services.config_apply

    def other_peer_first(**kwargs):
        real(yaml_text=CAPPED_YAML, author=None, base_version=None)
        return real(**kwargs)

    monkeypatch.setattr(services, "config_apply", other_peer_first)
    gateway = services.engines_start(config_path=SAMPLE_CONFIG, leased=True)

    assert active_version_number() == 1
    assert gateway.config_version == 1
    assert gateway.configured() == ["default"]
