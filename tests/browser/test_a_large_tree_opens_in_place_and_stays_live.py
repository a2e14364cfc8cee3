"""On a site of about 2,000 queues, the usage overview opens with the root's children only; a
reader opens a queue of 1,200 in place (its first page of children, then "Show more"), sees a
queue in it move live when a scheduler allocates there (the page subscribed to it when it was
opened), and closes it again; at a 1,400 px window and on a 390 px phone, axe-core clean."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from quotaweb.config.tree_paths import LEVEL_ROWS
from tests.browser.demo_login import page_signed_in
from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
from tests.server_process import ServerProcess, free_port
from tests.usage.large_tree import large_yaml

pytestmark = pytest.mark.browser

OVERVIEW = "/usage/default/"
ALLOCATIONS = "/api/v1/partitions/default/allocations"
WIDTHS = {"window": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerProcess(tmp_path_factory.mktemp("large-tree"), free_port(),
                       config_yaml=large_yaml()).running() as process:
        yield process


def _axe_clean(page) -> None:
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []


@pytest.mark.parametrize("size", WIDTHS)
def test_a_queue_opens_in_place_and_its_children_are_live(browser, server, axe_script, shots,
                                                          size):
    page = page_signed_in(browser, server, axe_script=axe_script, viewport=WIDTHS[size],
                          path=OVERVIEW)
    try:
        expect(page.locator("[data-live-badge]")).to_have_text("live")
        rows = page.locator('tbody[data-rows="tree"] tr[data-key]')
        expect(rows).to_have_count(12)
        twisty = page.locator('a[data-expand="root.big"]')
        expect(twisty).to_have_attribute("aria-expanded", "false")
        _axe_clean(page)

        twisty.click()
        expect(twisty).to_have_attribute("aria-expanded", "true")
        expect(rows).to_have_count(12 + LEVEL_ROWS)
        expect(page).to_have_url(server.url(OVERVIEW))  # opened in place, not followed
        scopes = page.locator("[data-live]").get_attribute("data-scopes")
        assert scopes == "queue:root"  # the server's list; the socket follows one more now
        key = f"k-{size}"
        status, answer = server.request("POST", ALLOCATIONS, {
            "allocationKey": key, "applicationId": f"app-{key}",
            "queuePath": "root.big.team-0003", "user": "alice", "groups": [],
            "resource": {"memory": 2**30},
        }, server.token("admin"))
        assert status == 201, answer
        team = page.locator('tr[data-key="root.big.team-0003"]')
        expect(team.locator("td.apps .ubar-text")).to_contain_text("1 ·", timeout=3000)
        expect(page.locator("[data-live-badge]")).to_have_text("live")

        page.locator('a[data-more="root.big"]').click()
        expect(rows).to_have_count(12 + 2 * LEVEL_ROWS)
        expect(page.locator(f'tr[data-key="root.big.team-{LEVEL_ROWS:04d}"]')).to_be_visible()
        _axe_clean(page)
        page.screenshot(path=shots / f"large-tree-open-{size}.png")

        twisty.click()
        expect(twisty).to_have_attribute("aria-expanded", "false")
        expect(rows).to_have_count(12)
        expect(page.locator("tr.tree-more")).to_have_count(0)
    finally:
        page.context.close()


def test_without_scripts_the_arrow_opens_the_page_on_the_queue(browser, server, axe_script):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        from tests.browser.demo_login import ADMIN, log_in

        log_in(page, server, who=ADMIN, then=OVERVIEW)
        page.locator('a[data-expand="root.big"]').click()
        expect(page).to_have_url(server.url(f"{OVERVIEW}?focus=root.big"))
        expect(page.locator('tbody[data-rows="tree"] tr[data-key]')).to_have_count(2 + LEVEL_ROWS)
        page.get_by_role("link", name="Show more").click()
        expect(page.locator('tr[data-key="root.big.team-0050"]')).to_have_count(1)
    finally:
        context.close()
