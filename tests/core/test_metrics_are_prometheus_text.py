"""/metrics answers the Prometheus text format, parsed here by prometheus_client's own parser:
allocations, denials by reason and releases counted; allocation latency, configuration applies
and live pushes as histograms (``_bucket``, ``_sum``, ``_count``); live allocations and tracked
users per partition read at scrape time."""

from __future__ import annotations

import pytest

from quotaweb import metrics
from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.exposition import Exposition, scrape

pytestmark = pytest.mark.django_db

BATCH = f"{ALLOCATIONS}/batch"


@pytest.fixture(autouse=True)
def _from_zero():
    metrics.reset()


def _histogram(exposition: Exposition, name: str, **labels: str) -> tuple[list[float], float]:
    """(cumulative bucket counts in ``le`` order, ending with +Inf; the sum), checked to agree
    with ``_count``."""
    buckets = sorted(
        (float(have["le"]), value) for have, value in exposition.samples(f"{name}_bucket")
        if {k: v for k, v in have.items() if k != "le"} == labels
    )
    assert buckets
    assert buckets[-1][0] == float("inf")
    counts = [value for _, value in buckets]
    assert counts == sorted(counts)  # cumulative
    assert exposition.value(f"{name}_count", **labels) == counts[-1]
    total = exposition.value(f"{name}_sum", **labels)
    assert total is not None
    return counts, total


def test_counts_allocations_denials_and_releases(admin_api, capped_engines, client):
    assert admin_api.post(ALLOCATIONS, body("a", memory=GiB), format="json").status_code == 201
    denied = admin_api.post(ALLOCATIONS, body("b", memory=50 * GiB), format="json")
    assert denied.json()["reason"] == "userQuota"
    assert admin_api.delete(f"{ALLOCATIONS}/a").status_code == 204
    exposition = scrape(client)
    assert exposition.value("quotaweb_allocations_total") == 1
    assert exposition.value("quotaweb_denials_total", reason="userQuota") == 1
    assert exposition.value("quotaweb_releases_total") == 1
    assert exposition.value("quotaweb_live_allocations", partition="default") == 0
    assert exposition.value("quotaweb_tracked_users", partition="default") == 1
    for family, kind in (("quotaweb_allocations", "counter"), ("quotaweb_denials", "counter"),
                         ("quotaweb_releases", "counter"),
                         ("quotaweb_allocation_seconds", "histogram"),
                         ("quotaweb_live_allocations", "gauge")):
        assert exposition.type_of(family) == kind
    assert "# TYPE quotaweb_denials_total counter" in exposition.text.splitlines()
    # No _created series beside the counters and histograms.
    assert "_created" not in exposition.text


def test_allocation_latency_is_a_histogram_per_operation(admin_api, capped_engines, client):
    for key in ("a", "b"):
        admin_api.post(ALLOCATIONS, body(key, memory=GiB), format="json")
    admin_api.post(ALLOCATIONS, body("c", memory=50 * GiB), format="json")  # a denial is timed
    admin_api.delete(f"{ALLOCATIONS}/a")
    admin_api.post(BATCH, {"operations": [
        {"op": "allocate", **body("d", memory=GiB)}, {"op": "release", "allocationKey": "b"},
    ]}, format="json")
    admin_api.delete("/api/v1/partitions/default/applications/app-1")
    exposition = scrape(client)
    expected = {"allocate": 3, "release": 1, "batch": 1, "application_release": 1}
    for operation, count in expected.items():
        counts, total = _histogram(exposition, "quotaweb_allocation_seconds",
                                   operation=operation)
        assert counts[-1] == count
        assert total > 0
    # Buckets from a tenth of a millisecond up to seconds.
    bounds = {float(labels["le"]) for labels, _ in
              exposition.samples("quotaweb_allocation_seconds_bucket")}
    assert min(bounds) <= 0.0001
    assert max(bounds - {float("inf")}) >= 5
    # The batch counts its operations once each: one allocation, one release.
    assert exposition.value("quotaweb_allocations_total") == 3
    assert exposition.value("quotaweb_releases_total") == 3


def test_config_applies_are_timed_in_a_histogram(client, capped_engines):
    from quotaweb.config.services import config_apply
    from tests.configs import CAPPED_YAML

    # capped_engines applied version 1 (after the reset: autouse fixtures come first); this
    # is the second apply.
    config_apply(yaml_text=CAPPED_YAML.replace("10Gi", "12Gi"), author=None, base_version=1)
    exposition = scrape(client)
    assert exposition.type_of("quotaweb_config_apply_seconds") == "histogram"
    counts, total = _histogram(exposition, "quotaweb_config_apply_seconds")
    assert counts[-1] == 2
    assert total > 0


def test_every_sample_line_parses_and_metrics_without_engines_answer(client, db):
    """Before the engines are loaded /metrics still answers, without the engine figures."""
    from quotaweb.engine.gateway import engines_loaded

    assert not engines_loaded()
    exposition = scrape(client)
    assert exposition.samples("quotaweb_live_allocations") == []
    assert exposition.value("quotaweb_allocations_total") == 0
