"""What a newcomer sees first, at a 1,400 px window and on a 390 px phone, against a real demo
seeded as ``bin/run`` seeds it (a cluster total with elastic quota off, the lab tree and the
cluster forest; the simulators off so the figures stay put): the elastic page raises no
over-runtime alarm while elastic quota is off and lists no revocation picks, the runtime
table's key columns fit the window (on a phone the queue column stays in view while the rest
scrolls in its own box); an admin adds a consumer on the tree page in human units and reads
where it landed, and a refusal says which node is short of what. axe-core finds no serious
violation. Screenshots go to the session's folder for people to look at (``shots``; not
compared)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import page_signed_in
from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
from tests.server_process import ROOT, ServerProcess, free_port

pytestmark = pytest.mark.browser

SAMPLE = ROOT / "quotaweb" / "samples" / "queues.yaml"
ELASTIC = "/elastic/default/"
TREE = "/trees/lab/"
WIDTHS = {"window": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}
SEED = (
    "from quotaweb.core.services import engines_start; "
    "from quotaweb.core.demo_seed import demo_seed; engines_start(); demo_seed()"
)
KEY_COLUMNS = ("Queue", "Resource", "Runtime", "Used", "Min", "Lent", "Borrowed", "Unallocated")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("newcomer"), free_port(),
                            config_yaml=SAMPLE.read_text(encoding="utf-8"))
    process.migrate()
    process.manage("shell", "-c", SEED)
    with process.running() as running:
        yield running


def _axe_clean(page) -> None:
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []


def _box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


@pytest.mark.parametrize("size", WIDTHS)
def test_the_elastic_page_while_elastic_is_off(browser, server, axe_script, shots, size):
    viewport = WIDTHS[size]
    page = page_signed_in(browser, server, axe_script=axe_script, viewport=viewport, path=ELASTIC)
    try:
        expect(page.locator("[data-live-badge]")).to_have_text("live")
        expect(page.locator('[data-field="enabled"]')).to_have_text("off")
        expect(page.locator('[data-field="cluster-total"]')).to_contain_text("TiB")
        expect(page.locator("[data-no-total]")).to_be_hidden()
        # off: no red alarm, no revocation picks unless asked for
        expect(page.locator(".etable .tag.over")).to_have_count(0)
        expect(page.locator("[data-picks-table]")).to_have_count(0)
        # nothing sideways on the page itself
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        scroller = _box(page, "[data-elastic-scroll]")
        headers = page.locator("[data-elastic-table] thead th")
        names = headers.all_inner_texts()
        assert tuple(names[:len(KEY_COLUMNS)]) == KEY_COLUMNS
        if size == "window":
            # every key column inside the table's box, without scrolling it
            for index in range(len(KEY_COLUMNS)):
                box = headers.nth(index).bounding_box()
                assert box["x"] + box["width"] <= scroller["x"] + scroller["width"] + 1, \
                    names[index]
        else:
            # queue, resource and runtime in view at once
            runtime = headers.nth(2).bounding_box()
            assert runtime["x"] + runtime["width"] <= viewport["width"]
            # the queue column stays in view while the rest scrolls under it
            page.locator("[data-elastic-scroll]").evaluate("(box) => { box.scrollLeft = 400; }")
            queue = page.locator("[data-elastic-table] th.qname").first.bounding_box()
            assert queue["x"] >= scroller["x"] - 1
        page.screenshot(path=str(shots / f"elastic-{size}.png"), full_page=True)
        _axe_clean(page)
    finally:
        page.context.close()


@pytest.mark.parametrize("size", WIDTHS)
def test_an_admin_adds_a_consumer_on_the_tree_page(browser, server, axe_script, shots, size):
    viewport = WIDTHS[size]
    page = page_signed_in(browser, server, axe_script=axe_script, viewport=viewport, path=TREE)
    consumer = f"newbie-{size}"
    try:
        expect(page.locator("[data-live-badge]")).to_have_text("live")
        root = page.locator('tbody[data-nodes] tr[data-key="lab"]')
        expect(root.locator(".ubar").first).to_contain_text("vcore")
        form = page.locator("[data-add-form]")
        form.get_by_label("Consumer id").fill(consumer)
        form.get_by_label("Group (a leaf node)").select_option("nlp")
        form.get_by_label("Asks for cpu").fill("2")
        form.get_by_label("Asks for memory").fill("16Gi")
        form.get_by_role("button", name="Allocate on lab").click()
        page.wait_for_url(server.url(TREE))
        expect(page.get_by_role("status").filter(
            has_text=f"{consumer} is placed at nlp of tree lab, its own group.")).to_be_visible()
        expect(page.locator('tbody[data-nodes] tr[data-key="nlp"] .tq-consumers')) \
            .to_contain_text(consumer)
        # ops is hard with 32 GiB: 64 GiB cannot fit, and the page says by how much
        form = page.locator("[data-add-form]")
        form.get_by_label("Consumer id").fill(f"too-big-{size}")
        form.get_by_label("Group (a leaf node)").select_option("batch")
        form.get_by_label("Asks for memory").fill("64Gi")
        form.get_by_role("button", name="Allocate on lab").click()
        expect(page.locator("[data-add-form] [data-form-errors]")).to_contain_text(
            "ops has 32 GiB of memory left; the consumer asks for 64 GiB: 32 GiB short")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(shots / f"tree-{size}.png"), full_page=True)
        _axe_clean(page)
    finally:
        page.context.close()
