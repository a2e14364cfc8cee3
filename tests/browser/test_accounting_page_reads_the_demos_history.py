"""The accounting page of a fresh demo already holds hours of history (made at start), draws it
as a stacked chart, sorts its table from the header, and axe-core finds nothing serious."""

from __future__ import annotations

import pytest

from tests.browser.demo_login import VIEWER, log_in
from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE, SAMPLE
from tests.server_process import ServerProcess, free_port

pytestmark = pytest.mark.browser

PAGE = "/usage/default/accounting/?step=hour"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with ServerProcess(
        tmp_path_factory.mktemp("accounting"), free_port(),
        config_yaml=SAMPLE.read_text(encoding="utf-8"), env={"QUOTAWEB_SIMULATOR": "1"},
    ).running("demo", "--sim-rate", "2") as process:
        yield process


def test_the_page_shows_the_seeded_hours_sorts_and_passes_axe(browser, demo, axe_script, shots):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(15_000)
    context.add_init_script(path=str(axe_script))
    page = context.new_page()
    log_in(page, demo, who=VIEWER, then="/usage/default/")
    page.get_by_role("link", name="Accounting").click()
    page.goto(demo.url(PAGE))
    bands = page.locator("figure.accounting-chart rect[class^='series-']")
    assert bands.count() > 4
    rows = page.locator("[data-accounting-table] tbody tr")
    assert rows.count() >= 2
    page.screenshot(path=str(shots / "accounting.png"), full_page=True)
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []
    page.locator("[data-accounting-table] thead a", has_text="Allocations").click()
    page.wait_for_url("**sort=allocations**")
    counts = [int(text) for text in page.locator(
        "[data-accounting-table] tbody tr td:nth-last-child(2)").all_inner_texts()]
    assert counts == sorted(counts, reverse=True)
    assert page.locator("th[aria-sort='descending']").count() == 1
    context.close()
