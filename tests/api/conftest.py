"""Fixtures for the API tests: a stored configuration with engines loaded from it, some usage in
the engines, and clients that authenticate with DRF tokens (as scripts do)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.config.conftest import SMALL_YAML

GI = 2**30

# SMALL_YAML plus a queue with guaranteed resources, properties and an app cap, and a gpu
# partition, so the queue tree has every field to show.
TREE_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            maxapplications: 10
            properties: {application.sort.policy: fifo}
            resources:
              guaranteed: {memory: 10Gi, vcore: 500m}
              max: {memory: 100Gi, vcore: "100", nvidia.com/gpu: "0"}
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
          - name: web
  - name: gpu
    queues:
      - name: root
        queues:
          - name: training
"""


def store_and_load(yaml_text: str):
    """``yaml_text`` as the active version and engines loaded from it (a server's start-up)."""
    from quotaweb.config.selectors import active_version_number
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(
        yaml_text=yaml_text, author=None, base_version=active_version_number()
    )
    return engines_load(yaml_text=version.yaml, version=version.number)


@pytest.fixture
def small_active(db):
    """``SMALL_YAML`` as version 1, engines loaded from it."""
    return store_and_load(SMALL_YAML)


@pytest.fixture
def tree_active(db):
    """``TREE_YAML`` as version 1, engines loaded from it."""
    return store_and_load(TREE_YAML)


def allocate(gateway, *, queue: str, app: str, user: str, groups=(), partition="default",
             **resource: int) -> None:
    with gateway.engine(partition) as engine:
        decision = engine.increase(queue, app, user, list(groups), dict(resource))
    assert decision.allowed, decision.message


def token_client(user) -> Client:
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Token {token.key}")


@pytest.fixture
def admin_token(admin) -> Client:
    """A quota admin (through the quota-admins group) calling with an API token."""
    return token_client(admin)


@pytest.fixture
def viewer_token(viewer) -> Client:
    return token_client(viewer)
