"""Fixtures shared by every quotaweb test.

The cast and the configurations live in plain modules, registered here for every folder:
``tests/personas.py`` (Ada the quota admin, Stan the staff admin, Vera the viewer, the outsider,
and clients logged in as them) and ``tests/configs.py`` (the shared YAML configurations and the
fixtures that load them) and ``tests/ldap_server.py`` (a private OpenLDAP directory and a site
signing in with it). Test modules import names from those modules, never from a conftest,
and no conftest imports another.

Each test starts without engines (``engines_reset`` runs before and after it), so nothing leaks
between tests or into forked live servers. Ask for ``gateway`` to get fresh engines loaded from the
sample configuration.
"""

from __future__ import annotations

import os

import pytest

# The suite counts in one process and resets its metrics between tests; servers it starts get
# a shared metrics directory only when a test gives them one (not a developer's own).
os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)

pytest_plugins = ["tests.personas", "tests.configs", "tests.ldap_server"]


def pytest_report_header(config):
    """Say which database and channel layer this run uses (``.ci/run`` runs several)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    where = database.get("HOST") or "file"
    return f"quotaweb: database {database['ENGINE'].rsplit('.', 1)[-1]} ({where}), layer {layer}"


@pytest.fixture(autouse=True)
def _channel_layers_of_each_test():
    """Each test its own channel layer objects. A layer is made once per process and keeps
    per-event-loop state (channels-redis's receive lock and count); every async test runs on a
    loop of its own, so a receive a test's loop left unfinished could hold a later test's loop
    at its closing (seen as a hang in the PostgreSQL + Redis pass)."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _no_engines_between_tests():
    from quotaweb.api.authentication import token_cache_clear
    from quotaweb.engine.gateway import engines_reset

    # Token keys are random, but a test that deletes a token must not find it remembered.
    token_cache_clear()
    engines_reset()
    yield
    engines_reset()
