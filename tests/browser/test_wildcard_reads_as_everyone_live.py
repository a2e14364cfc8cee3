"""The rows live.js draws name the wildcard group as the server does, "everyone (*)": a user's
groups in the users list after a live update, and "as everyone (*)" in a new activity row."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

ALLOCATIONS = "/api/v1/partitions/default/allocations"
USER = "wild-user"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _allocate(server, token, key: str) -> None:
    # "web" is named by no group limit of root.eng.web: the application counts against "*".
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": key, "applicationId": "wild-app", "queuePath": "root.eng.web",
        "user": USER, "groups": ["web"], "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer


def test_live_rows_name_the_wildcard_group_as_everyone(page, server, token):
    _allocate(server, token, "wild-1")
    log_in(page, server, who=VIEWER, then=f"/usage/default/users/?q={USER}")
    expect(page.locator("[data-live-badge]")).to_have_text("live")
    row = page.locator(f'tbody[data-rows="users"] tr[data-key="{USER}"]')
    before = row.get_attribute("data-sig")
    _allocate(server, token, "wild-2")
    expect(row).not_to_have_attribute("data-sig", before)
    expect(row.locator('td[data-label="Groups"]')).to_have_text("everyone (*)")

    page.goto(server.url(f"/usage/default/activity/?user={USER}"))
    expect(page.locator("[data-live-badge]")).to_have_text("live")
    _allocate(server, token, "wild-3")
    expect(page.locator('tbody[data-rows="events"] tr').first).to_contain_text(
        f"{USER} as everyone (*)"
    )
