"""The quota tree pages in a real browser against a real server (``manage.py demo``: the test
live server has no websockets). An admin builds a tree in the editor, row by row in the page
(adding the rows, naming the nodes, choosing their parents, typing the quotas), saves it and
lands on its page; then consumers arrive through the API with an API token, and the page shows
them at their nodes, a borrower marked "borrowing from <group>", a preemption (who, by whom,
where, which priority) and a rejection in the feed, all without a reload, over the tree's live
scope."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.demo_login import ADMIN, log_in
from tests.browser.frames import frames_pass
from tests.server_process import ServerProcess

pytestmark = pytest.mark.browser

NEW = "/trees/new/"
TREE = "/trees/lab/"
ALLOCATIONS = "/api/v1/quota-trees/lab/allocations"


@pytest.fixture(scope="module")
def server(demo_server):
    return demo_server


def _allocate(server: ServerProcess, token: str, cid: str, group: str, cpu: int,
              priority: int = 0) -> dict:
    # cpu in cores here; the API counts millicores
    status, answer = server.request("POST", ALLOCATIONS, {
        "id": cid, "groupID": group, "request": {"cpu": cpu * 1000}, "priority": priority,
    }, token)
    assert status == 201, answer
    return answer


def _node(page, name: str):
    return page.locator(f'tbody[data-nodes] tr[data-key="{name}"]')


def _build_the_tree_in_the_editor(page) -> None:
    # one resource: the second column's name is cleared, which removes it
    expect(page.get_by_label("Resource 1")).to_have_value("cpu")
    page.get_by_label("Resource 2").fill("")
    page.get_by_label("Tree name").fill("lab")
    page.get_by_label("Name of node 1").fill("root")
    page.get_by_label("Quota of cpu for root").fill("5")
    for index, name in ((2, "team-a"), (3, "team-b")):
        page.get_by_role("button", name="Add a node").click()
        page.get_by_label(f"Name of node {index}").fill(name)
        # the labels and the parent choices follow the names typed
        page.get_by_label(f"Parent of {name}").select_option("root")
        page.get_by_label(f"Quota of cpu for {name}").fill("2")
    expect(page.get_by_label("Parent of team-b").locator("option")).to_have_text(
        ["none: this is the root", "root", "team-a"])
    page.get_by_label("team-b is hard").check()
    page.get_by_label("Comment (optional, kept with the version)").fill("from the browser")
    page.get_by_role("button", name="Save the tree").click()


def test_an_admin_builds_a_tree_and_watches_consumers_arrive(page, server, token):
    log_in(page, server, who=ADMIN, then=NEW)
    _build_the_tree_in_the_editor(page)
    page.wait_for_url(server.url(TREE))
    expect(page.get_by_role("status").filter(has_text="Created tree lab (version 1).")) \
        .to_be_visible()
    expect(page.locator("[data-live-badge]")).to_have_text("live")
    # the first snapshot agrees with what the server drew: no row had to be drawn again
    frames_pass(page)
    assert page.locator("tr.changed").count() == 0
    expect(page.locator("tbody[data-nodes] tr")).to_have_count(3)
    expect(_node(page, "root").locator("th")).to_have_text("root soft")
    expect(_node(page, "team-b").locator("th")).to_have_text("team-b hard")
    expect(_node(page, "root").locator(".tq-slack")).to_have_text("cpu 1 vcore")
    expect(page.locator('[data-field="version-by"]')).to_contain_text(
        "Version 1 saved by admin at")
    page.evaluate("window.notReloaded = true")

    # job-1 fills team-a; job-2 borrows at the root
    _allocate(server, token, "job-1", "team-a", 2)
    answer = _allocate(server, token, "job-2", "team-a", 2)
    assert answer["node"] == "root"
    expect(_node(page, "team-a").locator(".tq-consumers")).to_have_text("job-1")
    expect(_node(page, "root").locator(".tq-consumers")).to_have_text(
        "job-2 borrowing from team-a")
    expect(_node(page, "root").locator(".ubar-text")).to_have_text("4 vcore of 5 vcore · 80 %")

    # job-3 claims team-b's quota: charging the root pushes the borrower job-2 out
    answer = _allocate(server, token, "job-3", "team-b", 2, priority=1)
    assert answer["preempted"] == ["job-2"]
    feed = page.locator("tbody[data-feed] tr").first
    expect(feed).to_contain_text("preempted")
    expect(feed).to_contain_text("job-2")
    expect(feed).to_contain_text(
        "by job-3 (priority 1 against its 0) at root: pushed out at the root to make room")
    expect(_node(page, "team-b").locator(".tq-consumers")).to_have_text("job-3")

    # team-b is hard: job-4 may not borrow above it, and is rejected
    status, answer = server.request("POST", ALLOCATIONS, {
        "id": "job-4", "groupID": "team-b", "request": {"cpu": 1000}}, token)
    assert status == 409, answer
    feed = page.locator("tbody[data-feed] tr").first
    expect(feed).to_contain_text("rejected")
    expect(feed).to_contain_text("Failed to allocate quota on quota designation 'lab'")
    # job-5 borrows the root's slack, from team-a
    _allocate(server, token, "job-5", "team-a", 1)
    expect(_node(page, "root").locator(".tq-consumers")).to_have_text(
        "job-5 borrowing from team-a")
    expect(_node(page, "root").locator(".tq-borrow")).to_have_count(1)
    expect(page.locator('[data-field="consumers"]')).to_have_text("3")
    assert page.evaluate("window.notReloaded") is True

    # the consumer page explains the preemption
    page.locator("tbody[data-feed] tr.tq-ev-preempted").get_by_role("link", name="job-2").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Consumer job-2")
    expect(page.locator("[data-preemption]")).to_have_text(
        "Preempted by job-3 (priority 1 against its 0) at node root of tree lab: pushed out "
        "at the root to make room.")


def test_the_pages_fit_a_phone(browser, server, token):
    document = {"kind": "QuotaTree", "metadata": {"name": "phone"}, "spec": {
        "resourceNames": ["cpu", "memory"], "nodes": {
            "top": {"parent": "nil", "hard": "false", "quota": {"cpu": "4", "memory": "8"}},
            "a-rather-long-team-name": {"parent": "top", "hard": "true",
                                        "quota": {"cpu": "6", "memory": "8"}},
        }}}
    status, answer = server.request("PUT", "/api/v1/quota-trees/phone", document, token)
    assert status in (200, 201), answer
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        log_in(page, server, who=ADMIN, then="/trees/phone/")
        expect(page.locator("[data-live-badge]")).to_have_text("live")
        expect(_node(page, "top").locator(".tq-slack")).to_contain_text("over-committed")
        # the wide tables scroll in their own boxes; the pages do not scroll sideways
        for path in ("/trees/phone/", "/trees/", "/trees/phone/edit/"):
            page.goto(server.url(path))
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, f"{path} scrolls sideways on a phone"
    finally:
        context.close()
