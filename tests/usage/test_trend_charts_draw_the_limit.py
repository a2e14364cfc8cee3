"""A trend chart draws the limit the configuration sets on what it shows as a dashed line, in
reach of the scale, and names it in the caption and the chart's description; without a limit
there is no line."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quotaweb.usage.charts import CHART_PLOT
from quotaweb.usage.services import usage_sample
from tests.usage.pages import engines_busy

pytestmark = pytest.mark.django_db

CHART = re.compile(r'<figure class="chart" data-chart="([^"]*)">(.*?)</figure>', re.S)
LIMIT_LINE = re.compile(r'<line class="chart-limit"[^>]*y1="([^"]+)"')


@pytest.fixture
def sampled(db):
    engines_busy()
    now = timezone.now()
    for minutes in (3, 2, 1):
        usage_sample(now=now - timedelta(minutes=minutes))


def _charts(client, kind: str, name: str) -> dict[str, str]:
    response = client.get(reverse("usage:trends", args=["default", kind, name]))
    assert response.status_code == 200
    return dict(CHART.findall(response.content.decode()))


def _limit_line(chart: str) -> float:
    (at,) = LIMIT_LINE.findall(chart)
    return float(at)


def test_a_users_charts_show_the_limits_at_the_root_of_their_tree(viewer_client, sampled):
    # PAGES_YAML: everyone ("*", alice too) may use 20 GiB and run 5 applications at root.
    charts = _charts(viewer_client, "user", "alice")
    assert "limit 20 GiB" in charts["memory"]
    assert "peak 9 GiB at" in charts["memory"]
    # 9 GiB used under a 20 GiB limit: the limit line is higher up than half the drawing.
    assert 0 <= _limit_line(charts["memory"]) < CHART_PLOT / 2
    assert "limit 5" in charts["applications"]
    assert re.search(r'aria-label="[^"]*, limit 20 GiB\.', charts["memory"])


def test_a_queues_charts_show_its_maximum(viewer_client, sampled):
    charts = _charts(viewer_client, "queue", "root.eng")
    assert "limit 100 GiB" in charts["memory"]
    assert "limit 10" in charts["applications"]


def test_no_limit_no_line(viewer_client, sampled):
    # root.ops caps nothing.
    charts = _charts(viewer_client, "queue", "root.ops")
    assert "limit" not in charts["memory"]
    assert not LIMIT_LINE.findall(charts["memory"])
