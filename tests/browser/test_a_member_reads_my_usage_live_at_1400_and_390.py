"""A member signs in with their directory password (a real slapd) and lands on My usage: their
user and their group, live, with the room left; an allocation of theirs shows without a reload;
axe-core finds no serious violation at a desktop's and a phone's width; another page is a 403."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.frames import frames_pass
from tests.browser.test_team_link_page import _allocate
from tests.ldap_server import PASSWORD, ldap_environment
from tests.server_process import ServerProcess, free_port

pytestmark = pytest.mark.browser

RUN_AXE = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .filter((v) => ["serious", "critical"].includes(v.impact))
  .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, ldap_server):
    from tests.configs import PAGES_YAML

    ldap_server.fill()
    env = {**ldap_environment(ldap_server), "QUOTAWEB_ADMIN_GROUPS": "hpc-admins",
           "QUOTAWEB_VIEWER_GROUPS": "operators"}
    with ServerProcess(
        tmp_path_factory.mktemp("member"), free_port(), config_yaml=PAGES_YAML, env=env,
    ).running() as process:
        # She runs something already: an empty page shows a notice, not the live tables.
        _allocate(process, process.token("admin"), "m0", "alice", ["ml-researchers"])
        yield process


def test_a_member_lands_on_my_usage_and_it_is_live(browser, server, axe_script):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(15_000)
    context.add_init_script(path=axe_script)
    page = context.new_page()
    page.goto(server.url("/accounts/login/"))
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(server.url("/me/"))
    expect(page.locator("[data-role]")).to_have_text("member")
    user = page.locator('[data-partition="default"][data-scopes="user:alice"]')
    # Her group has no limit in this configuration, so the engine keeps no usage for it: the
    # page says so, and follows it live all the same.
    group = page.locator('[data-partition="default"][data-scopes="group:ml-researchers"]')
    expect(group.locator("[data-empty]")).to_be_visible()
    # Her user and her group in every partition, each following its own scope live.
    badges = page.locator("[data-live-badge]")
    assert badges.count() == 2 * page.locator("[data-room]").count() >= 2
    for badge in badges.all():
        expect(badge).to_have_attribute("data-state", "live")
    expect(page.locator("[data-binding]").first).to_contain_text("Binds first")

    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        # A table that overflows gets its tab stop once the resize has been laid out.
        frames_pass(page)
        violations = page.evaluate(RUN_AXE)
        assert violations == [], (width, violations)

    # Her next allocation shows on the live page, without a reload.
    apps = user.locator('tbody[data-rows="apps"] tr')
    expect(apps).to_have_count(1)
    _allocate(server, server.token("admin"), "m1", "alice", ["ml-researchers"])
    expect(apps).to_have_count(2)
    expect(user.locator("[data-field=running]")).to_have_text("2")

    # Any other page is refused, with no data.
    response = page.goto(server.url("/usage/default/users/"))
    assert response.status == 403
    context.close()
