"""``docs/grafana-dashboard.json`` is a valid dashboard whose PromQL names only metrics /metrics
exports (after real traffic, parsed with prometheus_client's parser; a histogram ``x`` exports
``x_bucket``, ``x_sum`` and ``x_count``, a counter ``x`` exports ``x_total``), with the panels
the issue asks for."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.exposition import scrape

pytestmark = pytest.mark.django_db

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"
METRIC = re.compile(r"\bquotaweb_[a-zA-Z0-9_:]*")


def _dashboard() -> dict:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def _expressions(dashboard: dict) -> list[str]:
    """Every PromQL expression: the panels' targets and the template variables' queries."""
    found = [target["expr"] for panel in dashboard["panels"]
             for target in panel.get("targets", ())]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]
            found.append(query["query"] if isinstance(query, dict) else query)
    return found


def test_the_dashboard_is_a_grafana_dashboard():
    dashboard = _dashboard()
    assert dashboard["title"]
    assert dashboard["uid"]
    assert dashboard["schemaVersion"] >= 36
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert {"type", "title", "gridPos"} <= panel.keys()
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            for target in panel["targets"]:
                assert METRIC.search(target["expr"]), target["expr"]
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["query"] == "prometheus"


def test_the_panels_the_issue_asks_for_are_there():
    expressions = "\n".join(_expressions(_dashboard()))
    squeezed = re.sub(r"\s+", "", expressions)
    for wanted in (
        "histogram_quantile(0.5,sumby(le,operation)(rate(quotaweb_allocation_seconds_bucket[5m])))",
        "histogram_quantile(0.99,sumby(le,operation)(rate(quotaweb_allocation_seconds_bucket[5m])))",
        "sumby(reason)(rate(quotaweb_denials_total[5m]))",
        "histogram_quantile(0.99,sumby(le)(rate(quotaweb_config_apply_seconds_bucket",
        "histogram_quantile(0.99,sumby(le)(rate(quotaweb_live_push_seconds_bucket[5m])))",
        "sumby(partition)(quotaweb_live_allocations",
        'quotaweb_elastic_quota{field="runtime"',
        'quotaweb_elastic_quota{field="used"',
        'quotaweb_tree_node{field="allocated"',
        'quotaweb_tree_node{field="quota"',
    ):
        assert wanted in squeezed, wanted


def test_every_metric_the_dashboard_uses_is_exported(admin_api, capped_engines, client):
    from quotaweb.config.services import config_apply
    from tests.configs import CAPPED_YAML

    admin_api.post(ALLOCATIONS, body("a", memory=GiB), format="json")
    admin_api.post(ALLOCATIONS, body("b", memory=50 * GiB), format="json")  # userQuota
    admin_api.delete(f"{ALLOCATIONS}/a")
    config_apply(yaml_text=CAPPED_YAML.replace("10Gi", "12Gi"), author=None, base_version=1)
    exposition = scrape(client)
    exported = exposition.names()
    used = {name for expression in _expressions(_dashboard())
            for name in METRIC.findall(expression)}
    assert used - exported == set()
    for name in used:
        if name.endswith("_bucket"):
            assert exposition.type_of(name.removesuffix("_bucket")) == "histogram", name
    # The traffic above shows up under the names the dashboard reads.
    assert exposition.samples("quotaweb_allocation_seconds_bucket")
    assert exposition.samples("quotaweb_config_apply_seconds_bucket")
    assert exposition.value("quotaweb_denials_total", reason="userQuota")
    assert exposition.samples("quotaweb_live_allocations")
