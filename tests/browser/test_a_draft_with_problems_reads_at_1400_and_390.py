"""A draft with problems, at a 1,400 px window and on a 390 px phone, against a real demo on
the sample configuration: the admin has staged a tighter cap for each researcher (below what
nlp's own entry allows) and a vision max below its guaranteed memory. The review page counts the
problems and lists every one it counts, links each to its queue, keeps the staged changes and
what they change in view and offers no apply; each queue page shows its problem on the field to
fix, in an editor already open. Nothing overflows the page sideways, every problem is inside the
window, and axe-core finds no serious violation. Screenshots go to the session's folder
(``shots``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from quotaweb.accounts.services import DEMO_ADMIN_USERNAME
from tests.browser.demo_login import page_signed_in
from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
from tests.configs import SAMPLE_CONFIG
from tests.server_process import ServerProcess, free_port

pytestmark = pytest.mark.browser

DRAFT = "/config/draft/"
NLP = "/config/queues/default/root.research.nlp/"
VISION = "/config/queues/default/root.research.vision/"
WIDTHS = {"window": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}
# Staged as the admin, through the service the queue form uses: each researcher's vcore cap
# (16) falls below nlp's own entry for them (24), and vision's max memory (128Gi) below its
# guaranteed (256Gi).
STAGE = (
    "from django.contrib.auth import get_user_model; "
    "from quotaweb.config import edits, services; "
    f"admin = get_user_model().objects.get(username={DEMO_ADMIN_USERNAME!r}); "
    "services.draft_stage(author=admin, record=edits.edit_record('limit_update', "
    "partition='default', queue_path='root.research', index=1, values={'max_resources': "
    "{'memory': '128Gi', 'vcore': '16', 'nvidia.com/gpu': '2'}})); "
    "services.draft_stage(author=admin, record=edits.edit_record('queue_update', "
    "partition='default', queue_path='root.research.vision', values={'max': "
    "{'memory': '128Gi', 'vcore': '256', 'nvidia.com/gpu': '16'}}))"
)
_COUNT = re.compile(r"has (\d+) problems? to fix")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("draft"), free_port(),
                            config_yaml=SAMPLE_CONFIG.read_text(encoding="utf-8"))
    with process.running() as running:
        running.manage("shell", "-c", STAGE)
        yield running


def _fits(page, viewport, locator) -> None:
    """Nothing sideways on the page, and each of ``locator`` shown inside the window."""
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for index in range(locator.count()):
        item = locator.nth(index)
        expect(item).to_be_visible()
        box = item.bounding_box()
        assert box["x"] >= 0, item.inner_text()
        assert box["x"] + box["width"] <= viewport["width"] + 1, item.inner_text()


def _finish(page, shots, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []


@pytest.mark.parametrize("size", WIDTHS)
def test_the_review_page_lists_every_problem_it_counts(browser, server, axe_script, shots, size):
    viewport = WIDTHS[size]
    page = page_signed_in(browser, server, axe_script=axe_script, viewport=viewport, path=DRAFT)
    try:
        problems = page.locator("[data-draft-problems]")
        heading = problems.get_by_role("heading", level=2)
        expect(heading).to_contain_text("problems to fix before it can be applied")
        counted = int(_COUNT.search(heading.inner_text())[1])
        listed = problems.locator("li[data-problem]")
        assert counted >= 2
        expect(listed).to_have_count(counted)
        # each problem names the queue to open, and links to it
        expect(listed.filter(has_text="root.research.nlp").first.get_by_role("link")) \
            .to_have_attribute("href", NLP)
        expect(listed.filter(has_text="root.research.vision").first.get_by_role("link")) \
            .to_have_attribute("href", VISION)
        staged = page.locator("[data-staged]")
        expect(staged).to_have_count(2)
        expect(page.locator("[data-preview]")).to_be_visible()
        expect(page.locator("[data-apply-unavailable]")).to_be_visible()
        expect(page.get_by_role("button", name="Apply as a new version")).to_have_count(0)
        _fits(page, viewport, listed)
        _fits(page, viewport, staged)
        _fits(page, viewport, page.locator("h1, [data-preview] h2"))
        _finish(page, shots, f"draft-{size}")
    finally:
        page.context.close()


@pytest.mark.parametrize(("size", "path", "form", "words"), [
    (size, path, form, words) for size in WIDTHS for path, form, words in (
        (NLP, "limit-1", "16 vcore"), (VISION, "queue", "guaranteed"),
    )
])
def test_each_queue_shows_its_problem_on_the_field_to_fix(
    browser, server, axe_script, shots, size, path, form, words
):
    viewport = WIDTHS[size]
    page = page_signed_in(browser, server, axe_script=axe_script, viewport=viewport, path=path)
    try:
        expect(page.locator("[data-draft-problems]")).to_be_visible()
        errors = page.locator(f"form[data-form={form}] [data-error-for]")
        expect(errors.first).to_contain_text(words)
        _fits(page, viewport, errors)
        _fits(page, viewport, page.locator("h1"))
        _finish(page, shots, f"draft-{form}-{size}")
    finally:
        page.context.close()
