"""On a touch screen, where nothing hovers, a tap on a bar shows the raw values its title holds
(the same text a mouse reads by hovering); a second tap hides them, and a mouse click shows
nothing (the mouse has its hover)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def bar_title(live_server, viewer, gateway, log_in, page) -> str:
    log_in(viewer)
    page.goto(f"{live_server.url}/usage/default/")
    bar = page.locator(".ubar[title]").first
    title = bar.get_attribute("title")
    assert title
    return title


@pytest.fixture
def phone(browser, live_server, page, bar_title):
    context = browser.new_context(has_touch=True, is_mobile=True, viewport=PHONE,
                                  storage_state=page.context.storage_state())
    context.set_default_timeout(10_000)
    touch = context.new_page()
    touch.goto(f"{live_server.url}/usage/default/")
    yield touch
    context.close()


def test_a_tap_shows_the_bars_raw_values_and_a_second_hides_them(phone, bar_title):
    bubble = phone.locator("[data-tap-title]")
    phone.locator(".ubar[title]").first.tap()
    expect(bubble).to_have_text(bar_title)
    expect(bubble).to_be_in_viewport()
    phone.locator(".ubar[title]").first.tap()
    expect(bubble).to_have_count(0)


def test_a_mouse_click_shows_nothing(page, bar_title):
    page.locator(".ubar[title]").first.click()
    expect(page.locator("[data-tap-title]")).to_have_count(0)
