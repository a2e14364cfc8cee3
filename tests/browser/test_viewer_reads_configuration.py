"""A viewer reads the configuration in a real browser, sees no edit controls, and a forged write
with a valid CSRF token is refused."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def active_sample(gateway, sample_yaml):
    from quotaweb.config.services import config_apply

    return config_apply(yaml_text=sample_yaml, author=None, base_version=None)


@pytest.fixture
def tree(page, live_server, log_in, viewer, active_sample):
    log_in(viewer)
    page.goto(f"{live_server.url}/config/")
    return page


def test_viewer_sees_the_queue_tree_without_edit_controls(tree):
    expect(tree.locator("header")).to_contain_text("viewer")
    expect(tree.get_by_text("engineering", exact=True).first).to_be_visible()
    # The only form that posts is the logout button in the header.
    expect(tree.locator("main form[method=post]")).to_have_count(0)
    expect(tree.locator("form[method=post]")).to_have_count(1)


def test_a_forged_write_from_a_viewer_is_refused(tree, live_server):
    token = tree.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
    response = tree.request.post(
        f"{live_server.url}/config/",
        form={"csrfmiddlewaretoken": token, "name": "forged"},
        headers={"Referer": f"{live_server.url}/config/"},
    )
    assert response.status == 403


def test_the_search_opens_and_shows_matches_and_hides_the_rest(tree):
    genomics = tree.get_by_text("genomics", exact=True).first
    expect(genomics).to_be_hidden()  # inside a collapsed department
    tree.get_by_role("searchbox").fill("genom")
    expect(genomics).to_be_visible()
    expect(tree.get_by_text("platform", exact=True).first).to_be_hidden()
    tree.get_by_role("searchbox").fill("")
    expect(tree.get_by_text("engineering", exact=True).first).to_be_visible()
