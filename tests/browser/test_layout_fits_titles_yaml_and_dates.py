"""Layout: a queue page's title stays within a 390 px phone, the YAML paste box takes the page's
width without soft-wrapping lines (which hid their indentation), the activity feed's dates stay
on one line, and a limit entry's resource rows put type and amount side by side."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import ADMIN, VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


LONG = "root.ops.capacity-planning-experiments"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


@pytest.fixture(scope="module")
def long_queue(server, token) -> str:
    status, answer = server.request("POST", "/api/v1/partitions/default/queues/", {
        "name": LONG.rpartition(".")[2], "parent": LONG.rpartition(".")[0],
    }, token)
    assert status == 201, answer
    return LONG


@pytest.mark.parametrize("path", [
    f"/config/queues/default/{LONG}/", f"/usage/default/queues/{LONG}/",
])
def test_a_queue_title_stays_within_a_phone(browser, server, long_queue, path):
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    try:
        page = context.new_page()
        log_in(page, server, who=VIEWER, then=path)
        box = page.locator("h1").bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= PHONE["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()


def test_the_yaml_box_is_as_wide_as_its_form_and_keeps_lines_whole(page, server):
    page.set_viewport_size({"width": 1400, "height": 900})
    log_in(page, server, who=ADMIN, then="/config/yaml/")
    box = page.get_by_label("Paste YAML")
    form = page.locator("form[data-form=yaml]")
    assert box.bounding_box()["width"] >= 0.95 * form.bounding_box()["width"]
    assert box.evaluate("(el) => getComputedStyle(el).whiteSpace") == "pre"


@pytest.mark.parametrize("width", [390, 800, 1024, 1400])
def test_activity_dates_stay_on_one_line(page, server, token, width):
    status, answer = server.request("POST", "/api/v1/partitions/default/allocations", {
        "allocationKey": f"layout-{width}", "applicationId": "layout-app", "queuePath": "root.ops",
        "user": "layout-user", "groups": [], "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, server, who=VIEWER, then="/usage/default/activity/?user=layout-user")
    when = page.locator('tbody[data-rows="events"] tr time').first
    expect(when).to_be_visible()
    lines = when.evaluate(
        "(el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)"
    )
    assert lines < 1.5


@pytest.mark.parametrize("width", [390, 1400])
def test_each_resource_row_puts_type_and_amount_side_by_side(page, server, width):
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, server, who=ADMIN, then="/config/queues/default/root.eng.ml/")
    editor = page.locator("[data-editor=new-limit]")
    editor.locator("summary").click()
    kind = editor.get_by_label("Resource type 1")
    amount = editor.get_by_label("Amount 1")
    expect(kind).to_be_visible()
    kind_box, amount_box = kind.bounding_box(), amount.bounding_box()
    assert abs(kind_box["y"] - amount_box["y"]) < 1
    assert kind_box["x"] + kind_box["width"] <= amount_box["x"]


def test_the_overviews_queue_table_fits_a_phone(browser, server, token):
    status, answer = server.request("POST", "/api/v1/partitions/default/allocations", {
        "allocationKey": "layout-tree", "applicationId": "layout-tree-app",
        "queuePath": "root.eng.ml", "user": "layout-user", "groups": [],
        "resource": {"memory": GiB},
    }, token)
    assert status == 201, answer
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    try:
        page = context.new_page()
        log_in(page, server, who=VIEWER, then="/usage/default/")
        cells = page.locator('tbody[data-rows="tree"] td')
        expect(cells.first).to_be_visible()
        for index in range(cells.count()):
            box = cells.nth(index).bounding_box()
            assert box is not None
            assert box["x"] + box["width"] <= PHONE["width"], index
    finally:
        context.close()
