"""The overview, the landing page, in a real browser against a real server: every partition's
card is live (its own socket), draws its queues with bars that move without a reload, and its
queue names lead to the queue's usage page, which links to its configuration and back."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

ALLOCATIONS = "/api/v1/partitions/default/allocations"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def test_every_partition_is_live_with_bars_and_links(page, server):
    log_in(page, server, who=VIEWER)
    cards = page.locator("section.partition[data-live]")
    expect(cards).to_have_count(2)
    for card in cards.all():
        expect(card.locator("[data-live-badge]")).to_have_attribute("data-state", "live")
    default = page.locator("section.partition[data-partition=default]")
    ml = default.locator('tbody[data-rows="tree"] tr[data-key="root.eng.ml"]')
    expect(ml.locator(".ubar").first).to_be_visible()
    running = default.locator("[data-field=running]")
    before = int(running.inner_text())

    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": "ov-1", "applicationId": "app-ov", "queuePath": "root.eng.ml",
        "user": "alice", "groups": ["ml"], "resource": {"memory": 3 * GiB},
    }, server.token("admin"))
    assert status == 201, answer
    expect(running).to_have_text(str(before + 1), timeout=2000)
    expect(ml.locator(".ubar-fill").first).not_to_have_class(re.compile(r"\bw-0\b"))

    # The queue's name opens its usage page, which links to its configuration and back.
    ml.get_by_role("link", name="ml").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("root.eng.ml")
    page.locator("[data-config-link]").click()
    expect(page).to_have_url(server.url("/config/queues/default/root.eng.ml/"))
    page.locator("[data-usage-link]").click()
    expect(page).to_have_url(server.url("/usage/default/queues/root.eng.ml/"))
