"""The first Tab on any page reaches a "Skip to content" link, shown while focused; following it
puts the keyboard in the page's main content, past the header's links."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_skip_link_comes_first_and_lands_in_the_main_content(page, live_server, log_in,
                                                                 viewer):
    log_in(viewer)
    page.goto(f"{live_server.url}/config/versions/")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null")
