"""The theme toggle: light or dark whatever the system says, remembered across pages, and back
to the system's choice."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_the_toggle_switches_and_remembers_the_theme(page, live_server, log_in, viewer):
    page.emulate_media(color_scheme="light")
    log_in(viewer)
    toggle = page.locator("[data-theme-toggle]")
    expect(toggle).to_have_text("Theme: system")
    light = _background(page)
    toggle.click()  # system -> light
    expect(toggle).to_have_text("Theme: light")
    toggle.click()  # light -> dark
    expect(toggle).to_have_text("Theme: dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    dark = _background(page)
    assert dark != light
    page.goto(f"{live_server.url}/config/")
    expect(page.locator("[data-theme-toggle]")).to_have_text("Theme: dark")
    assert _background(page) == dark
    page.locator("[data-theme-toggle]").click()  # dark -> system (light here)
    expect(page.locator("[data-theme-toggle]")).to_have_text("Theme: system")
    assert _background(page) == light
