"""The elastic quota page in a real browser against a real server (``manage.py demo`` with the
elastic worked example): an admin turns elastic quota on and sets the cluster total through the
page's forms, then demand arrives through the API and the page shows the new runtimes without a
reload, over the live socket's ``elastic`` scope; so do a switch turned off elsewhere and a queue
that usage puts over its runtime."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import ADMIN, log_in
from tests.browser.frames import frames_pass
from tests.configs import ELASTIC_YAML
from tests.elastic.support import K1_DEMAND, K1_RUNTIME, gpus
from tests.server_process import ServerProcess, free_port

pytestmark = pytest.mark.browser

PAGE = "/elastic/default/"
DEMAND = "/api/v1/partitions/default/elastic/demand"
SETTINGS = "/api/v1/partitions/default/elastic/settings"
ALLOCATIONS = "/api/v1/partitions/default/allocations"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerProcess(
        tmp_path_factory.mktemp("elastic"), free_port(), config_yaml=ELASTIC_YAML
    ).running() as process:
        yield process


def _runtime(page, path: str):
    return page.locator(f'tbody[data-key="{path}"] td.runtime')


def test_an_admin_turns_it_on_sets_the_total_and_sees_demand_arrive(page, server, token):
    log_in(page, server, who=ADMIN, then=PAGE)
    badge = page.locator("[data-live-badge]")
    expect(badge).to_have_text("live")
    # The first snapshot matched what the server drew: no queue had to be drawn again.
    frames_pass(page)
    assert page.locator("tr.changed").count() == 0
    expect(page.locator('[data-field="enabled"]')).to_have_text("off")
    expect(page.locator("[data-no-total]")).to_be_visible()

    page.get_by_role("button", name="Turn elastic quota on").click()
    page.wait_for_url(server.url(PAGE))
    expect(page.get_by_role("status").filter(has_text="Elastic quota is on")).to_be_visible()
    expect(page.locator('[data-field="enabled"]')).to_have_text("on")

    page.get_by_label("Cluster total").fill("gpu: 100")
    page.get_by_role("button", name="Set the cluster total").click()
    page.wait_for_url(server.url(PAGE))
    done = page.get_by_text("The cluster total of partition default is now gpu 100.")
    expect(done).to_be_visible()
    expect(page.locator('[data-field="cluster-total"]')).to_have_text("gpu 100")
    expect(page.locator("[data-no-total]")).to_be_hidden()
    expect(badge).to_have_text("live")
    # nothing asked for yet: every leaf lends its min, the root's pool is 100
    expect(_runtime(page, "root")).to_have_text("100")
    expect(_runtime(page, "root.d")).to_have_text("0")
    page.evaluate("window.notReloaded = true")

    for path, count in K1_DEMAND.items():
        status, answer = server.request(
            "PUT", DEMAND, {"queuePath": path, "resource": gpus(count)}, token
        )
        assert status == 200, answer
    for path, runtime in K1_RUNTIME.items():
        expect(_runtime(page, path)).to_have_text(str(runtime))
    d = page.locator('tbody[data-key="root.d"]')
    expect(d.locator(".ebar")).to_have_attribute(
        "aria-label",
        "gpu: runtime 40 against a min of 15, borrows 25; uses 0; "
        "asks for 70, 30 more than it gets",
    )
    expect(d.locator(".ebar-borrowed")).to_have_count(1)
    expect(page.locator('tbody[data-key="root.a"] .ebar-lent')).to_have_count(1)
    assert page.evaluate("window.notReloaded") is True

    # Turned off elsewhere: the page says so and offers to turn it on again.
    status, answer = server.request("PUT", SETTINGS, {"enabled": False}, token)
    assert status == 200, answer
    expect(page.locator('[data-field="enabled"]')).to_have_text("off")
    expect(page.get_by_role("button", name="Turn elastic quota on")).to_be_visible()
    # Off, a takes 30 GPUs (its max is 40), more than its share: it is above its runtime (not
    # enforced), and the page says the over-use list below is out of date.
    expect(page.locator("[data-over-changed]")).to_be_hidden()
    status, answer = server.request("POST", ALLOCATIONS, {
        "allocationKey": "a-1", "applicationId": "app-1", "queuePath": "root.a", "user": "alice",
        "groups": [], "resource": gpus(30),
    }, token)
    assert status == 201, answer
    a = page.locator('tbody[data-key="root.a"]')
    # off: information, not an alarm
    expect(a.locator(".tag.above")).to_contain_text("above its runtime by gpu")
    expect(a.locator(".tag.over")).to_have_count(0)
    expect(a.locator(".ebar-over")).to_have_count(1)
    expect(page.locator("[data-over-changed]")).to_be_visible()
    assert page.evaluate("window.notReloaded") is True

    # the explanation of the runtime shown is one click away
    shown = _runtime(page, "root.d").inner_text()
    _runtime(page, "root.d").get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Runtime of root.d for gpu")
    expect(page.locator("[data-steps] li").last).to_have_text(
        f"Runtime: {shown} (it asked for 70; nothing more was left)."
    )


def test_the_page_fits_a_phone(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        log_in(page, server, who=ADMIN, then=PAGE)
        expect(page.locator("[data-live-badge]")).to_have_text("live")
        # the wide table scrolls in its own box; the page does not scroll sideways
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, "the page scrolls sideways on a phone"
        expect(page.get_by_label("Cluster total")).to_be_visible()
    finally:
        context.close()
