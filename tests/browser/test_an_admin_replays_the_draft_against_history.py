"""An admin replays the draft against the partition's history from the draft page: the replay
waits its turn with a progress bar and a cancel button, then the page shows what the draft
would have denied. axe-core finds nothing serious on either state."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_replay_runs_from_the_draft_page_and_shows_what_changes(
    page, live_server, log_in, admin, admin_api, capped_engines, axe_script
):
    from quotaweb.config import edits, services
    from quotaweb.whatif import services as whatif

    for key in ("k1", "k2"):
        answer = admin_api.post(ALLOCATIONS, body(key, memory=4 * GiB), format="json")
        assert answer.status_code == 201
    services.draft_stage(author=admin, record=edits.edit_record(
        "limit_update", partition="default", queue_path="root.eng", index=0,
        values={"max_resources": {"memory": "6Gi"}},
    ))
    page.context.add_init_script(path=axe_script)
    log_in(admin)
    page.goto(f"{live_server.url}/config/draft/")
    page.get_by_role("link", name="replay a period of history against it").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Replay history against your draft")

    assert whatif._slots.acquire(timeout=5)  # every slot taken: the replay waits its turn
    try:
        page.get_by_role("button", name="Replay").click()
        expect(page.locator("[data-replay]")).to_have_attribute("data-state", "queued")
        expect(page.get_by_label("Progress")).to_be_visible()
        expect(page.get_by_role("button", name="Cancel the replay")).to_be_visible()
        assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []
    finally:
        whatif._slots.release()

    # The page follows the replay by itself and shows its result once it has ended.
    expect(page.locator("[data-replay-summary]")).to_contain_text(
        "1 admitted request", timeout=20_000
    )
    expect(page.locator("[data-differences=denied]")).to_contain_text("k2")
    expect(page.locator("[data-differences=denied]")).to_contain_text("userQuota")
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []
