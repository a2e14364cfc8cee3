"""Fixtures shared by every quotaweb test.

Each test starts without engines (``engines_reset`` runs before and after it), so nothing leaks
between tests or into forked live servers. Ask for ``gateway`` to get fresh engines loaded from the
sample configuration.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLE_CONFIG = Path(__file__).resolve().parent.parent / "quotaweb" / "samples" / "queues.yaml"


def pytest_report_header(config):
    """Say which database and channel layer this run uses (``.ci/run`` runs several)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    where = database.get("HOST") or "file"
    return f"quotaweb: database {database['ENGINE'].rsplit('.', 1)[-1]} ({where}), layer {layer}"


@pytest.fixture(autouse=True)
def _no_engines_between_tests():
    gateway_module = _gateway_module()
    if gateway_module is None:
        yield
        return
    gateway_module.engines_reset()
    yield
    gateway_module.engines_reset()


def _gateway_module():
    """The gateway module, or None while ``trackers`` cannot be imported (tests skip then)."""
    try:
        from quotaweb.engine import gateway
    except ImportError:
        return None
    return gateway


@pytest.fixture
def sample_yaml() -> str:
    return SAMPLE_CONFIG.read_text(encoding="utf-8")


@pytest.fixture
def gateway(sample_yaml):
    """Fresh engines for every partition of the sample configuration, owned by this test."""
    pytest.importorskip("trackers")
    from quotaweb.engine.gateway import engines_load

    return engines_load(yaml_text=sample_yaml)
