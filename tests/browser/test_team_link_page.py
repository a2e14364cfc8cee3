"""A team link in a real browser against a real server: it shows that team, updates live over
the link's own socket without a login, and shows nothing of other teams."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.server_process import ServerProcess
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

ALLOCATIONS = "/api/v1/partitions/default/allocations"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _allocate(server: ServerProcess, token: str, key: str, user: str, groups: list[str]) -> None:
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": key, "applicationId": f"app-{key}", "queuePath": "root.eng.ml",
        "user": user, "groups": groups, "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer


def _link(server: ServerProcess, kind: str, name: str) -> str:
    """A team link made the way an admin makes one (the service, in the server's database)."""
    out = server.manage("shell", "-c", (
        "from quotaweb.accounts.models import TeamLink; import secrets; "
        f"print(TeamLink.objects.create(token=secrets.token_urlsafe(32), partition='default', "
        f"kind='{kind}', name='{name}').token)"
    ))
    return out.strip().splitlines()[-1]


def test_the_team_link_shows_that_team_live_and_nothing_else(page, server):
    token = server.token("admin")
    _allocate(server, token, "a1", "alice", ["ml"])
    link = _link(server, "group", "ml")
    page.goto(f"http://127.0.0.1:{server.port}/team/{link}/?kiosk=1")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Group ml")
    expect(page.locator("[data-live-badge]")).to_have_attribute("data-state", "live")
    assert page.locator("header.topbar").count() == 0
    assert page.locator("form[method=post]").count() == 0
    # No account, and nothing of other users or groups reaches the page.
    assert "bob" not in page.content()

    _allocate(server, token, "a2", "alice", ["ml"])
    eng = page.locator('tbody[data-rows="tree"] tr[data-key="root.eng"]')
    expect(eng).to_contain_text("2 GiB", timeout=2000)
    _allocate(server, token, "b1", "bob", [])
    page.wait_for_timeout(600)
    assert "bob" not in page.content()
