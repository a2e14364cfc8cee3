"""``/trees/`` lists every tree (mode, forest, root, resources, node and consumer counts,
version) and every forest with its trees in order; admins get the way to create a tree and the
forest form, viewers neither. "Quota trees" is in the main navigation."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import services
from tests.config.pages import posting_forms
from tests.quotatrees.pages import cells, context_tree, example_with_story, text, url

pytestmark = pytest.mark.django_db


def _rows(page: str, table: str) -> dict[str, list[str]]:
    import re

    body = page.split(f"data-{table}>", 1)[1].split("</tbody>", 1)[0]
    return {key: cells(row) for key, row in
            re.findall(r'<tr data-key="([^"]+)">(.*?)</tr>', body, re.S)}


def test_trees_and_forests_are_listed(viewer_client, admin, active_sample):
    example_with_story(author=admin)
    context_tree(author=admin)
    services.tree_put(tree="context", document=_renamed_root(), author=admin)
    services.forest_put(forest="jobs", trees=["example", "context"])
    services.tree_mode_set(tree="context", mode="maintenance")
    response = viewer_client.get(url("index"))
    assert response.status_code == 200
    page = response.content.decode()
    trees = _rows(page, "trees")
    assert trees == {
        "context": ["context", "maintenance", "jobs", "Top", "cpu", "9", "0", "2"],
        "example": ["example", "normal", "jobs", "A", "cpu", "14", "5", "1"],
    }
    assert f'<a href="{url("tree", "example")}">example</a>' in page
    forests = _rows(page, "forests")
    assert forests == {"jobs": ["jobs", "normal", "example context"]}
    assert page.index(url("tree", "example"), page.index("data-forests")) < page.index(
        url("tree", "context"), page.index("data-forests"))
    assert f'href="{url("forest", "jobs")}"' in page
    # the main navigation
    assert f'<a href="{url("index")}" aria-current="page">Quota trees</a>' in page


def _renamed_root():
    from tests.quotatrees.pages import CONTEXT_NODES
    from tests.quotatrees.support import tree_document

    nodes = [("Top" if n == "Root" else n, "Top" if p == "Root" else p, q)
             for n, p, q in CONTEXT_NODES]
    return tree_document("context", ["cpu"], nodes)


def test_admins_get_the_create_controls_viewers_do_not(
    quota_admin_client, viewer_client, active_sample
):
    admin_page = quota_admin_client.get(url("index")).content.decode()
    assert f'href="{url("new")}">Create a tree</a>' in admin_page
    assert [f'action="{url("forest-new")}"' in form for form in posting_forms(admin_page)] == [True]
    assert '<label for="id_new_forest_name">Forest name</label>' in admin_page
    assert '<label for="id_new_forest_trees">Trees, in order</label>' in admin_page
    viewer_page = viewer_client.get(url("index")).content.decode()
    assert posting_forms(viewer_page) == []
    assert url("new") not in viewer_page
    assert "There are no quota trees yet. A quota admin creates them here" in text(viewer_page)
