"""/metrics answers the Prometheus text format: allocations, denials by reason, configuration
applies and their time, live allocations per partition."""

from __future__ import annotations

import re

import pytest

from quotaweb import metrics
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

SAMPLE = re.compile(r'^[a-z_]+(\{[a-z]+="[^"]*"(,[a-z]+="[^"]*")*\})? -?[0-9.e+]+$')


@pytest.fixture(autouse=True)
def _from_zero():
    metrics.reset()


def test_counts_allocations_denials_and_applies(admin_api, capped_engines, client):
    admin_api.post(ALLOCATIONS, body("a", memory=GiB), format="json")
    admin_api.post(ALLOCATIONS, body("b", memory=50 * GiB), format="json")  # userQuota
    admin_api.delete(f"{ALLOCATIONS}/a")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.content.decode()
    lines = text.splitlines()
    assert "quotaweb_allocations_total 1" in lines
    assert 'quotaweb_denials_total{reason="userQuota"} 1' in lines
    assert "quotaweb_releases_total 1" in lines
    assert 'quotaweb_live_allocations{partition="default"} 0' in lines
    assert "# TYPE quotaweb_denials_total counter" in lines
    assert all(SAMPLE.match(line) for line in lines if not line.startswith("#"))


def test_config_applies_are_counted_with_their_time(client, capped_engines):
    from quotaweb.config.services import config_apply
    from tests.configs import CAPPED_YAML

    # capped_engines applied version 1; this is the second apply.
    config_apply(yaml_text=CAPPED_YAML.replace("10Gi", "12Gi"), author=None, base_version=1)
    lines = client.get("/metrics").content.decode().splitlines()
    assert "quotaweb_config_apply_seconds_count 2" in lines
    assert "# TYPE quotaweb_config_apply_seconds summary" in lines
    (total,) = [line for line in lines if line.startswith("quotaweb_config_apply_seconds_sum")]
    assert float(total.split()[1]) > 0
