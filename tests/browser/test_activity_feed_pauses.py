"""The live activity feed has a pause button: while paused the rows hold still however fast
events come (a feed at 20 operations a second could not be read); on resuming the newest
events are drawn at once."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

ALLOCATIONS = "/api/v1/partitions/default/allocations"
USER = "pause-user"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _allocate(server, token, app: str) -> None:
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": f"{app}-1", "applicationId": app, "queuePath": "root.ops",
        "user": USER, "groups": [], "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer


def test_a_paused_feed_holds_still_and_catches_up_on_resuming(page, server, token):
    _allocate(server, token, "pause-app-1")
    log_in(page, server, who=VIEWER, then=f"/usage/default/activity/?user={USER}")
    expect(page.locator("[data-live-badge]")).to_have_text("live")
    rows = page.locator('tbody[data-rows="events"] tr')
    expect(rows).to_have_count(1)
    button = page.locator("button[data-pause]")
    expect(button).to_have_text("Pause the feed")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(button).to_have_text("Resume the feed")

    _allocate(server, token, "pause-app-2")
    # Time for the update to arrive (it does within a second when not paused): the rows hold.
    page.wait_for_timeout(2000)
    expect(rows).to_have_count(1)

    button.click()
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("pause-app-2")
