"""The live usage pages in a real browser against a real server (``manage.py demo`` in a process
of its own: the test live server has no websockets). A user's page follows an allocation made
through the API within a second, without a reload; after the server is killed and started again
the page reconnects, takes a fresh snapshot and goes on following; a viewer sees no control
that changes anything."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.server_process import ServerProcess
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

ALICE = "/usage/default/users/alice/"
ALLOCATIONS = "/api/v1/partitions/default/allocations"
# Retries come every second at most; a restart takes a few seconds: the page must be back well
# within this.
RECONNECT_MS = 45_000


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _allocate(server: ServerProcess, token: str, key: str, memory: int) -> None:
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": key, "applicationId": "app-1", "queuePath": "root.eng.ml",
        "user": "alice", "groups": ["ml"], "resource": {"memory": memory},
    }, token)
    assert status == 201, answer


def _badge(page):
    return page.locator("[data-live-badge]")


def test_a_users_page_follows_an_allocation_within_a_second(page, server, token):
    log_in(page, server, who=VIEWER, then=ALICE)
    expect(_badge(page)).to_have_text("live")
    expect(_badge(page)).to_have_attribute("data-state", "live")
    # The first snapshot matched what the server drew: no row had to change.
    assert page.locator("tr.changed").count() == 0
    page.evaluate("window.notReloaded = true")

    _allocate(server, token, "live-1", 2 * GiB)
    started = time.monotonic()
    eng = page.locator('tbody[data-rows="tree"] tr[data-key="root.eng"]')
    expect(eng).to_contain_text("2 GiB of 10 GiB · 20 %", timeout=1000)
    assert time.monotonic() - started < 1.0
    expect(page.locator('tbody[data-rows="apps"] tr[data-key="app-1"]')).to_contain_text("ml")
    expect(page.locator('[data-field="running"]')).to_have_text("1")
    expect(page.locator("[data-empty-apps]")).to_be_hidden()
    assert page.evaluate("window.notReloaded") is True

    _allocate(server, token, "live-2", 6 * GiB)  # 8 of 10 GiB: the bar turns to the 75 % colour
    expect(eng.locator(".ubar").first).to_have_class(re.compile(r"\blvl-75\b"), timeout=1000)


def test_the_page_reconnects_and_resyncs_after_the_server_restarts(page, server, token):
    log_in(page, server, who=VIEWER, then=ALICE)
    expect(_badge(page)).to_have_text("live")
    eng = page.locator('tbody[data-rows="tree"] tr[data-key="root.eng"]')
    before = eng.get_attribute("data-sig")

    server.kill()
    expect(_badge(page)).to_have_text(re.compile(r"^(reconnecting…|stale since \d\d:\d\d:\d\d)$"))
    server.start()
    server.wait_ready()
    expect(_badge(page)).to_have_text("live", timeout=RECONNECT_MS)
    # The ledger brought the usage back, and the fresh snapshot shows the same figures.
    expect(eng).to_have_attribute("data-sig", before)

    _allocate(server, token, "after-restart", GiB)
    expect(eng).not_to_have_attribute("data-sig", before, timeout=1000)


def test_the_badge_says_since_when_the_figures_are_stale(page, server, token):
    log_in(page, server, who=VIEWER, then=ALICE)
    expect(_badge(page)).to_have_text("live")
    server.kill()
    try:
        expect(_badge(page)).to_have_text(
            re.compile(r"^stale since \d\d:\d\d:\d\d$"), timeout=20_000
        )
        expect(_badge(page)).to_have_attribute("data-state", "stale")
    finally:
        server.start()
        server.wait_ready()
    expect(_badge(page)).to_have_text("live", timeout=RECONNECT_MS)


@pytest.mark.parametrize(
    "path",
    [
        "/usage/default/", ALICE, "/usage/default/users/", "/usage/default/groups/ml/",
        "/usage/default/queues/root.eng/", "/usage/default/activity/",
    ],
)
def test_a_viewer_sees_no_admin_controls(page, server, path):
    log_in(page, server, who=VIEWER, then=path)
    expect(_badge(page)).to_have_text("live")
    expect(page.locator("[data-role]")).to_have_text("viewer")
    posting = page.locator("form[method=post]:not([action='/accounts/logout/'])")
    assert posting.count() == 0
    for name in ("Edit", "Apply", "Delete", "Release", "Save"):
        assert page.get_by_role("button", name=name).count() == 0


def test_the_activity_feed_shows_a_denial_as_it_happens(page, server, token):
    log_in(page, server, who=VIEWER, then="/usage/default/activity/?type=denied")
    expect(_badge(page)).to_have_text("live")
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": "too-much", "applicationId": "app-1", "queuePath": "root.eng.ml",
        "user": "alice", "groups": ["ml"], "resource": {"memory": 64 * GiB},
    }, token)
    assert status == 409, answer
    denial = page.locator('tbody[data-rows="events"] tr.ev-denied').first
    expect(denial).to_contain_text("alice", timeout=1000)
    expect(denial).to_contain_text(answer["message"])
    expect(page.locator("[data-empty]")).to_be_hidden()


def test_the_pages_work_with_the_keyboard_and_on_a_phone(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        log_in(page, server, who=VIEWER, then="/usage/default/users/")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, "the page scrolls sideways on a phone"
        page.get_by_label("Name contains").focus()
        page.keyboard.type("ali")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"\?q=ali"))
        expect(page.locator('tbody[data-rows="users"] tr')).to_have_count(1)
        link = page.get_by_role("link", name="alice", exact=True)
        link.focus()
        page.keyboard.press("Enter")
        page.wait_for_url(server.url(ALICE))
    finally:
        context.close()
