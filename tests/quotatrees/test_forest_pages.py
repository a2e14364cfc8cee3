"""Forests from the pages: an admin creates one from the list (its trees in order), opens its
page with the trees side by side, each live, and a joint feed; changes its trees and their
order, its mode, and forgets it (the trees stay). Refusals say why and change nothing."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors, services
from tests.quotatrees.pages import context_tree, example_with_story, text, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def trees(admin, active_sample):
    example_with_story(author=admin)
    context_tree(author=admin)


def test_create_a_forest_and_see_its_trees_side_by_side(quota_admin_client, trees):
    response = quota_admin_client.post(url("forest-new"), {
        "name": "jobs", "trees": "context, example"}, follow=True)
    assert response.redirect_chain == [(url("forest", "jobs"), 302)]
    page = response.content.decode()
    assert "Forest jobs now allocates on context, example, in this order." in text(page)
    assert selectors.forest_view(forest="jobs")["trees"] == ["context", "example"]
    # both trees, in the forest's order, each with its nodes, and one live socket for both
    assert page.index('data-tree="context"') < page.index('data-tree="example"')
    assert 'data-scopes="tree:context tree:example"' in page
    assert '<div class="tq-forest">' in page
    assert page.count("<tbody data-nodes>") == 2
    assert '<tr data-key="Org-B"' in page
    assert '<tr data-key="H"' in page
    # the feed of both trees, once
    assert page.count("<tbody data-feed>") == 1
    assert "by i (priority 1 against its 0)" in text(page)


def test_change_the_trees_their_order_and_the_mode_then_forget_it(quota_admin_client, trees):
    services.forest_put(forest="jobs", trees=["example"])
    page = quota_admin_client.get(url("forest", "jobs")).content.decode()
    assert 'value="example"' in page  # the trees field holds the current list
    response = quota_admin_client.post(url("forest-edit", "jobs"),
                                       {"trees": "example context"}, follow=True)
    assert "Forest jobs now allocates on example, context, in this order." in text(
        response.content.decode())
    assert selectors.forest_view(forest="jobs")["trees"] == ["example", "context"]

    response = quota_admin_client.post(url("forest-mode", "jobs"), {"mode": "maintenance"},
                                       follow=True)
    assert "Forest jobs is now in maintenance mode." in text(response.content.decode())
    assert selectors.forest_view(forest="jobs")["mode"] == "maintenance"
    # the trees keep their own modes
    assert selectors.tree_view(tree="example")["mode"] == "normal"

    response = quota_admin_client.post(url("forest-delete", "jobs"), follow=True)
    assert response.redirect_chain == [(url("index"), 302)]
    assert "Forest jobs is gone; its trees and their consumers stay." in text(
        response.content.decode())
    assert selectors.forests_list() == []
    assert [tree["name"] for tree in selectors.trees_list()] == ["context", "example"]


@pytest.mark.parametrize(("data", "said"), [
    ({"name": "jobs", "trees": "nosuch"}, "unknown tree name nosuch"),
    ({"name": "jobs", "trees": "example example"}, "tree 'example' is listed twice"),
    ({"name": "jobs", "trees": " "}, "This field is required."),
    ({"name": "bad name", "trees": "example"}, "use letters, digits"),
    ({"name": "taken", "trees": "context"}, "a forest named 'taken' exists already"),
    ({"name": "jobs", "trees": "example"}, "tree example already belongs to forest taken"),
])
def test_refusals_say_why_and_change_nothing(quota_admin_client, trees, data, said):
    services.forest_put(forest="taken", trees=["example"])
    before = selectors.forests_list()
    response = quota_admin_client.post(url("forest-new"), data)
    assert response.status_code == 400
    assert said in text(response.content.decode())
    assert selectors.forests_list() == before


def test_an_edit_of_an_unknown_forest_is_404_and_creates_nothing(quota_admin_client, trees):
    response = quota_admin_client.post(url("forest-edit", "nosuch"), {"trees": "example"})
    assert response.status_code == 404
    assert selectors.forests_list() == []
