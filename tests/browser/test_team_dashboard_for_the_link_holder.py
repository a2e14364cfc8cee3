"""A team dashboard as its link holder sees it (no account): no link leads to a login page, the
group's applications show who runs them also after live updates, and the live pill is as wide as
its words."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_team_link_page import _allocate, _link

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def test_the_link_holder_meets_no_login_link_and_sees_who_runs_what(page, server):
    token = server.token("admin")
    _allocate(server, token, "c1", "dave", ["ml"])
    link = _link(server, "group", "ml")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"http://127.0.0.1:{server.port}/team/{link}/")
    badge = page.locator("[data-live-badge]")
    expect(badge).to_have_attribute("data-state", "live")
    assert badge.bounding_box()["width"] < 300
    app = page.locator('tbody[data-rows="apps"] tr[data-key="app-c1"]')
    expect(app).to_contain_text("dave")

    # A live update redraws the group's rows: the user stays, and nothing becomes a link.
    _allocate(server, token, "c2", "dave", ["ml"])
    expect(page.locator("[data-field=running]")).to_have_text("2", timeout=2000)
    expect(page.locator('tbody[data-rows="apps"] tr')).to_have_count(2)
    expect(app).to_contain_text("dave")
    # Nothing on the page, its header included, leads to a page that needs a login ("?kiosk=1"
    # is this page again, /healthz is open).
    paths = page.eval_on_selector_all("a[href]", "links => links.map((a) => a.pathname)")
    assert [path for path in paths if not path.startswith("/team/") and path != "/healthz"] == []
