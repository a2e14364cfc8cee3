"""A busy queue's usage page says "The first 25 of the 30 users"; when users on screen stop
using the queue, their rows leave live and the sentence follows them (the first 22 of the 27),
so the count never names rows that are no longer there."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import VIEWER, log_in
from tests.usage.pages import GiB

pytestmark = pytest.mark.browser

BATCH = "/api/v1/partitions/default/allocations/batch"
CROWD = 30  # more than the 25 a queue page follows


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _batch(server, token, operations) -> None:
    status, answer = server.request("POST", BATCH, {"operations": operations}, token)
    assert status == 200, answer


def test_the_count_follows_rows_that_leave(page, server, token):
    _batch(server, token, [
        {"op": "allocate", "allocationKey": f"drop-{n:02d}", "applicationId": f"drop-app-{n}",
         "queuePath": "root.ops", "user": f"drop-{n:02d}", "groups": [],
         "resource": {"memory": GiB}}
        for n in range(CROWD)
    ])
    log_in(page, server, who=VIEWER, then="/usage/default/queues/root.ops/")
    expect(page.locator("[data-live-badge]")).to_have_text("live")
    rows = page.locator('tbody[data-rows="users"] tr')
    expect(rows).to_have_count(25)
    more = page.locator("[data-more-users]")
    expect(more).to_contain_text("The first 25 of the 30 users")

    _batch(server, token, [
        {"op": "release", "allocationKey": f"drop-{n:02d}"} for n in range(3)
    ])
    expect(rows).to_have_count(22)
    expect(more).to_contain_text("The first 22 of the 27 users")
    expect(more.get_by_role("link")).to_have_text("all 27 in the users list")
