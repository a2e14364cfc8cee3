"""The overview draws each partition as a live part of the page (the usage overview's scope and
rows, which live.js keeps current), with bars, queue names that open their usage pages, figures
that open the lists, and the limits tree whose names open each queue's configuration."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _section(html: str, partition: str) -> str:
    start = html.rindex("<section", 0, html.index(f'data-partition="{partition}"'))
    return html[start:html.index("</section>", start)]


def test_each_partition_is_a_live_part_with_bars_and_links(viewer_client, gateway):
    html = viewer_client.get(reverse("core:home")).content.decode()
    assert html.count("data-live ") == 2
    default = _section(html, "default")
    assert 'data-view="overview"' in default
    assert 'data-scopes="queue:root queue:root.' in default
    assert "data-live-badge" in default
    assert 'data-field="running"' in default
    tree = re.search(r'<tbody data-rows="tree">(.*?)</tbody>', default, re.S).group(1)
    nlp = reverse("usage:queue", args=["default", "root.research.nlp"])
    assert f'href="{nlp}"' in tree
    assert 'class="ubar' in tree
    assert f'href="{reverse("usage:users", args=["default"])}"' in default
    assert f'href="{reverse("config:queue", args=["default", "root.research.nlp"])}"' in default


def test_a_running_application_shows_in_the_figures(viewer_client, gateway):
    with gateway.engine("default") as engine:
        assert engine.increase(
            "root.research.nlp", "app-1", "eve", ["ml-researchers"], {"memory": 2**30}
        ).allowed
    default = _section(viewer_client.get(reverse("core:home")).content.decode(), "default")
    assert re.search(r'data-field="running">1<', default)
    assert "data-idle hidden" in default
