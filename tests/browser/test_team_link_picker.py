"""An admin makes a team link in a real browser: the page is in the navigation, the name field
suggests the names the chosen partition knows for the chosen kind and warns about any other,
and the copy button puts the link on the clipboard and says so to screen readers."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.configs import CAPPED_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def links_page(page, live_server, log_in, admin):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=CAPPED_YAML, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(admin)
    page.goto(live_server.url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Team links").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Team dashboard links")
    return page


def test_the_name_is_picked_from_the_known_ones_and_a_typo_is_flagged(links_page):
    page = links_page
    name = page.get_by_label("Name")
    unknown = page.locator("[data-unknown-name]")
    expect(name).to_have_attribute("list", "team-names-default-group")
    name.fill("ml")
    expect(unknown).to_be_hidden()
    name.fill("mll")
    expect(unknown).to_be_visible()
    page.get_by_label("Shows a").select_option("user")
    expect(name).to_have_attribute("list", "team-names-default-user")
    name.fill("alice")
    expect(unknown).to_be_hidden()

    page.get_by_label("Shows a").select_option("group")
    name.fill("mll")
    page.get_by_role("button", name="Create link").click()
    expect(page.locator('[data-error-for="name"]')).to_contain_text("knows no group 'mll'")
    page.get_by_label("The name is right").check()
    page.get_by_role("button", name="Create link").click()
    expect(page.locator("tr[data-link]")).to_have_count(1)
    expect(page.locator("tr[data-link]")).to_contain_text("mll")


def test_the_copy_button_copies_the_link_and_announces_it(links_page):
    page = links_page
    page.get_by_label("Name").fill("ml")
    page.get_by_role("button", name="Create link").click()
    link = page.locator("code.token-link")
    expect(link).to_contain_text("/team/")
    page.get_by_role("button", name="Copy the link for group ml").click()
    expect(page.locator("[data-copy-status]")).to_have_text("Link copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == link.inner_text().strip()


def test_the_revoke_button_stays_inside_its_card_on_a_narrow_screen(links_page):
    page = links_page
    page.get_by_label("Name").fill("ml")
    page.get_by_role("button", name="Create link").click()
    page.set_viewport_size({"width": 700, "height": 900})
    card = page.locator("section.card").nth(1).bounding_box()
    revoke = page.get_by_role("button", name="Revoke the link for group ml").bounding_box()
    assert revoke["x"] + revoke["width"] <= card["x"] + card["width"]
