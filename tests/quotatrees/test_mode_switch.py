"""An admin switches a tree between normal and maintenance mode from its page, which explains
both; in maintenance mode allocations are forced at their group without checks. A bad mode is
refused and changes nothing."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors, services
from quotaweb.quotatrees.models import Tree
from tests.quotatrees.pages import cells, context_tree, node_rows, text, url
from tests.quotatrees.support import body

pytestmark = pytest.mark.django_db


def test_an_admin_switches_to_maintenance_and_back(quota_admin_client, admin, active_sample):
    context_tree(author=admin)
    page = quota_admin_client.get(url("tree", "context")).content.decode()
    assert f'<form method="post" action="{url("mode", "context")}"' in page
    assert '<input type="hidden" name="mode" value="maintenance" data-mode-value>' in page
    assert "Switch to maintenance mode</button>" in page
    assert "allocations are forced at their group without any check" in page

    response = quota_admin_client.post(url("mode", "context"), {"mode": "maintenance"},
                                       follow=True)
    assert response.redirect_chain == [(url("tree", "context"), 302)]
    page = response.content.decode()
    assert "Tree context is now in maintenance mode." in text(page)
    assert 'data-field="mode">maintenance<' in page
    assert "Switch to normal mode</button>" in page
    assert selectors.tree_view(tree="context")["mode"] == "maintenance"
    assert Tree.objects.get(name="context").mode == "maintenance"
    # forced at the group, above its quota
    services.tree_allocate(tree="context", body=body("big", "Context-1", 5))
    rows = node_rows(quota_admin_client.get(url("tree", "context")).content.decode())
    assert cells(rows["Context-1"])[1:4:2] == [
        "cpu 0.005 vcore of 0.001 vcore · over by 0.004 vcore", "big",
    ]

    quota_admin_client.post(url("mode", "context"), {"mode": "normal"})
    assert selectors.tree_view(tree="context")["mode"] == "normal"


def test_a_bad_mode_is_refused(quota_admin_client, admin, active_sample):
    context_tree(author=admin)
    response = quota_admin_client.post(url("mode", "context"), {"mode": "chaos"})
    assert response.status_code == 400
    assert "choose normal or maintenance" in response.content.decode()
    assert selectors.tree_view(tree="context")["mode"] == "normal"
