"""Fixtures for the configuration services: a stored sample version with engines loaded from it."""

from __future__ import annotations

from pathlib import Path

import pytest

YUNIKORN_QUEUES = Path(__file__).resolve().parent / "yunikorn_queues.yaml"

# A small config whose numbers are easy to follow in impact and rollback tests.
SMALL_YAML = """\
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
                maxresources: {memory: 40Gi, vcore: "20"}
                maxapplications: 4
              - limit: everyone else
                users: ["*"]
                maxresources: {memory: 20Gi, vcore: "10"}
                maxapplications: 2
              - limit: ml group
                groups: [ml]
                maxresources: {memory: 60Gi}
                maxapplications: 6
"""


@pytest.fixture
def yunikorn_yaml() -> str:
    return YUNIKORN_QUEUES.read_text(encoding="utf-8")


@pytest.fixture
def admin(django_user_model):
    return django_user_model.objects.create_user("admin", password="pw", is_staff=True)


@pytest.fixture
def active_sample(db, sample_yaml):
    """The sample imported as version 1 and the engines loaded from it (a server's start-up)."""
    from quotaweb.core.services import engines_start
    from tests.conftest import SAMPLE_CONFIG

    return engines_start(config_path=SAMPLE_CONFIG)


@pytest.fixture
def active_small(db):
    """``SMALL_YAML`` as version 1 with engines loaded from it."""
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)
    return engines_load(yaml_text=version.yaml, version=version.number)
