"""An admin deletes a tree from its page; while consumers are allocated on it the deletion is
refused with the reason, and nothing changes."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors, services
from quotaweb.quotatrees.models import TreeVersion
from tests.quotatrees.pages import context_tree, example_with_story, text, url

pytestmark = pytest.mark.django_db


def test_a_tree_without_consumers_is_deleted_and_its_versions_kept(
    quota_admin_client, admin, active_sample
):
    context_tree(author=admin)
    page = quota_admin_client.get(url("tree", "context")).content.decode()
    assert f'<form method="post" action="{url("delete", "context")}">' in page
    response = quota_admin_client.post(url("delete", "context"), follow=True)
    assert response.redirect_chain == [(url("index"), 302)]
    assert "Deleted tree context. Its versions are kept." in text(response.content.decode())
    assert selectors.trees_list() == []
    assert TreeVersion.objects.filter(tree="context").count() == 1
    assert quota_admin_client.get(url("tree", "context")).status_code == 404


def test_a_tree_with_consumers_is_not_deleted(quota_admin_client, admin, active_sample):
    example_with_story(author=admin)
    response = quota_admin_client.post(url("delete", "example"))
    assert response.status_code == 409
    assert "Not deleted: consumer(s) allocated in tree example." in text(
        response.content.decode())
    assert [tree["name"] for tree in selectors.trees_list()] == ["example"]
    for consumer in ("b", "d", "g", "h", "i"):
        services.tree_release(tree="example", consumer=consumer)
    assert quota_admin_client.post(url("delete", "example")).status_code == 302
