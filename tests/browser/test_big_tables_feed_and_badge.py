"""The big tables, the activity feed and the live badge in a real browser against a real server
(``manage.py demo`` in a process of its own): the users list pages on the server and keeps the
rows on screen live; the feed shows an application's allocations as one growing row with dates
and filters; the badge turns stale within 5 s of a frozen server (SIGSTOP), says when the last
update came, and is live again within 2 s of SIGCONT; the tables fit 1,400 px and a 390 px
phone."""

from __future__ import annotations

import re
import signal
import time

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

BATCH = "/api/v1/partitions/{partition}/allocations/batch"
ALLOCATIONS = "/api/v1/partitions/{partition}/allocations"
CROWD = 60  # more than a page of 50


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


@pytest.fixture(scope="module")
def crowd(server, token):
    """CROWD users crowd-00..crowd-59 with one allocation each in root.ops, and one GPU user in
    partition gpu whose usage names every resource."""
    operations = [
        {"op": "allocate", "allocationKey": f"crowd-{n:02d}", "applicationId": f"crowd-app-{n}",
         "queuePath": "root.ops", "user": f"crowd-{n:02d}", "groups": [],
         "resource": {"memory": GiB}}
        for n in range(CROWD)
    ]
    status, answer = server.request("POST", BATCH.format(partition="default"),
                                    {"operations": operations}, token)
    assert status == 200, answer
    status, answer = server.request("POST", ALLOCATIONS.format(partition="gpu"), {
        "allocationKey": "gpu-1", "applicationId": "gpu-app", "queuePath": "root.training",
        "user": "gpu-user", "groups": [],
        "resource": {"memory": 64 * GiB, "vcore": 32_000, "nvidia.com/gpu": 2},
    }, token)
    assert status == 201, answer


def _badge(page):
    return page.locator("[data-live-badge]")


def test_the_users_list_pages_on_the_server_and_keeps_its_rows_live(page, server, token, crowd):
    log_in(page, server, who=VIEWER, then="/usage/default/users/")
    rows = page.locator('tbody[data-rows="users"] tr')
    expect(rows).to_have_count(50)
    expect(page.locator("[data-count]")).to_contain_text("1\N{EN DASH}50 of")
    page.get_by_role("link", name="Next page").click()
    page.wait_for_url(re.compile(r"\?page=2$"))
    expect(_badge(page)).to_have_text("live")
    last = page.locator('tbody[data-rows="users"] tr[data-key="crowd-59"]')
    expect(last).to_contain_text("memory 1 GiB")
    page.evaluate("window.notReloaded = true")

    status, answer = server.request("POST", ALLOCATIONS.format(partition="default"), {
        "allocationKey": "crowd-59-more", "applicationId": "crowd-app-59",
        "queuePath": "root.ops", "user": "crowd-59", "groups": [], "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer
    expect(last).to_contain_text("memory 2 GiB", timeout=1000)
    assert page.evaluate("window.notReloaded") is True
    # Only the rows on screen are followed: a page of at most 50 scopes, not every user.
    scopes = page.locator("[data-live]").get_attribute("data-scopes").split()
    assert "user:crowd-59" in scopes
    assert "user:crowd-00" not in scopes


def test_a_busy_queue_follows_its_first_users_and_links_to_the_rest(page, server, token, crowd):
    log_in(page, server, who=VIEWER, then="/usage/default/queues/root.ops/")
    expect(_badge(page)).to_have_text("live")
    expect(page.locator('tbody[data-rows="users"] tr')).to_have_count(25)
    first = page.locator('tbody[data-rows="users"] tr[data-key="crowd-00"]')
    before = first.get_attribute("data-sig")
    status, answer = server.request("POST", ALLOCATIONS.format(partition="default"), {
        "allocationKey": "crowd-00-more", "applicationId": "crowd-app-0",
        "queuePath": "root.ops", "user": "crowd-00", "groups": [], "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer
    expect(first).not_to_have_attribute("data-sig", before, timeout=1000)
    page.locator("[data-more-users] a").click()
    page.wait_for_url(re.compile(r"/usage/default/users/\?queue=root.ops$"))
    expect(page.locator('tbody[data-rows="users"] tr')).to_have_count(50)


def test_the_feed_groups_an_applications_allocations_as_they_come(page, server, token):
    log_in(page, server, who=VIEWER, then="/usage/default/activity/?user=feed-user")
    expect(_badge(page)).to_have_text("live")
    operations = [
        {"op": "allocate", "allocationKey": f"feed-{n}", "applicationId": "feed-app",
         "queuePath": "root.eng.web", "user": "feed-user", "groups": [],
         "resource": {"memory": GiB}}
        for n in range(3)
    ]
    status, answer = server.request("POST", BATCH.format(partition="default"),
                                    {"operations": operations}, token)
    assert status == 200, answer
    rows = page.locator('tbody[data-rows="events"] tr')
    expect(rows).to_have_count(1, timeout=1000)
    expect(rows.first).to_contain_text("\N{MULTIPLICATION SIGN}3")
    expect(rows.first).to_contain_text("in all memory 3 GiB")
    expect(rows.first.locator("time")).to_have_text(
        re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
    )
    # The queue filter, through the form.
    page.get_by_label("Queue (and below)").fill("root.ops")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"queue=root.ops"))
    expect(page.locator('tbody[data-rows="events"] tr')).to_have_count(0)
    expect(page.locator("[data-empty]")).to_be_visible()


def test_the_feed_keeps_rows_older_than_what_the_socket_sends(page, server, token):
    """The socket's snapshot holds the newest 200 events; a filtered page's older rows stay."""
    operations = [
        {"op": "allocate", "allocationKey": "early-1", "applicationId": "early-app",
         "queuePath": "root.ops", "user": "early-user", "groups": [], "resource": {"memory": 1}},
        *({"op": "allocate", "allocationKey": f"noise-{n}", "applicationId": f"noise-{n}",
           "queuePath": "root.ops", "user": "noise-user", "groups": [], "resource": {"memory": 1}}
          for n in range(250)),
    ]
    status, answer = server.request("POST", BATCH.format(partition="default"),
                                    {"operations": operations}, token)
    assert status == 200, answer
    log_in(page, server, who=VIEWER, then="/usage/default/activity/?user=early-user")
    expect(_badge(page)).to_have_text("live")
    page.wait_for_timeout(500)  # the first snapshot drawn
    rows = page.locator('tbody[data-rows="events"] tr')
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("early-app")
    expect(page.locator("[data-empty]")).to_be_hidden()


def test_the_users_table_fits_a_wide_screen(browser, server, crowd):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        log_in(page, server, who=VIEWER, then="/usage/gpu/users/")
        scroll = page.locator(".table-scroll").first
        sizes = scroll.evaluate("box => [box.scrollWidth, box.clientWidth]")
        assert sizes[0] <= sizes[1], "the users table scrolls sideways at 1,400 px"
        expect(page.get_by_role("columnheader", name="Last hour")).to_be_in_viewport()
        cell = page.locator('tr[data-key="gpu-user"] td.in-use')
        expect(cell).to_have_text("memory 64 GiB, nvidia.com/gpu 2, 32 vcore")
        line = cell.evaluate("td => parseFloat(getComputedStyle(td).lineHeight)")
        assert cell.evaluate("td => td.getBoundingClientRect().height") < 2.6 * line + 12
        # A resource name is never broken mid-word.
        page.goto(server.url("/usage/gpu/users/gpu-user/"))
        label = page.locator(".ubar-label", has_text="nvidia.com/gpu").first
        height = label.evaluate("e => e.getBoundingClientRect().height")
        assert height < 1.5 * label.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
    finally:
        context.close()


def test_on_a_phone_each_row_shows_more_than_a_name(browser, server, crowd):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        log_in(page, server, who=VIEWER, then="/usage/gpu/users/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        row = page.locator('tr[data-key="gpu-user"]')
        for text in ("memory 64 GiB", "nvidia.com/gpu 2", "32 vcore"):
            expect(row).to_contain_text(text)
        cell = row.locator("td.in-use")
        cell.scroll_into_view_if_needed()
        expect(cell).to_be_in_viewport()
        box = cell.bounding_box()
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= 390
        # Each stacked cell is named.
        before = cell.evaluate("td => getComputedStyle(td, '::before').content")
        assert before == '"In use"'
    finally:
        context.close()


def test_the_badge_turns_stale_within_5_s_of_a_frozen_server_and_recovers_within_2_s(
    page, server
):
    log_in(page, server, who=VIEWER, then="/usage/default/users/alice/")
    expect(_badge(page)).to_have_text("live")
    updated = page.locator("[data-live-updated]")
    expect(updated).to_have_text(re.compile(r"^updated \d\d:\d\d:\d\d$"))
    shown = updated.text_content().removeprefix("updated ")

    server.process.send_signal(signal.SIGSTOP)
    frozen = time.monotonic()
    try:
        expect(_badge(page)).to_have_attribute("data-state", "stale", timeout=5000)
        assert time.monotonic() - frozen < 5.0
        expect(_badge(page)).to_have_text(re.compile(r"^stale since \d\d:\d\d:\d\d$"))
        # The badge says how old the figures are: the time of the last update.
        expect(_badge(page)).to_have_attribute("title", re.compile(rf"as of .*{shown}"))
        expect(updated).to_have_text(f"updated {shown}")
    finally:
        server.process.send_signal(signal.SIGCONT)
    resumed = time.monotonic()
    expect(_badge(page)).to_have_attribute("data-state", "live", timeout=2000)
    assert time.monotonic() - resumed < 2.0
