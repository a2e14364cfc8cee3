"""A table wider than a phone's screen scrolls sideways in its box, and a keyboard can scroll it
too: the box takes focus, has a name, and the arrow keys move it. On a screen where the table
fits, the box is no tab stop."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUEUE = "/usage/default/queues/root/"


@pytest.fixture
def queue_page(page, live_server, log_in, viewer, gateway):
    log_in(viewer)
    return page


def _box(page):
    return page.locator("section[aria-labelledby=queue-heading] .table-scroll")


def test_on_a_phone_the_box_is_a_named_tab_stop_the_arrows_scroll(queue_page, live_server):
    queue_page.set_viewport_size({"width": 390, "height": 844})
    queue_page.goto(f"{live_server.url}{QUEUE}")
    box = _box(queue_page)
    expect(box).to_have_attribute("tabindex", "0")
    expect(box).to_have_attribute("role", "region")
    expect(box).to_have_attribute("aria-label", re.compile(r".+, scrolls sideways$"))
    box.focus()
    queue_page.keyboard.press("ArrowRight")
    queue_page.wait_for_function(
        "(box) => box.scrollLeft > 0", arg=box.element_handle(), timeout=5_000
    )


def test_where_the_table_fits_the_box_is_no_tab_stop(queue_page, live_server):
    queue_page.set_viewport_size({"width": 1280, "height": 800})
    queue_page.goto(f"{live_server.url}{QUEUE}")
    expect(_box(queue_page)).not_to_have_attribute("tabindex", "0")
