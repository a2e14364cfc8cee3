"""The tree editor: an admin fills the rows (name, parent, hard, a quota per resource) and
saves; the tree is created as version 1 by that admin, and the page goes to the tree with the
result. Editing makes a new version and places the consumers again. Adding a row or a
resource column, or ticking Remove, changes nothing until saved."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import TreeVersion
from tests.quotatrees.pages import editor_data, example_with_story, text, url

pytestmark = pytest.mark.django_db

# In human units: cpu in cores or millicores, memory with a unit.
ROWS = [
    ("root", "", False, ["10", "64Gi"]),
    ("team-a", "root", True, ["500m", "32Gi"]),
    ("team-b", "root", False, ["6", ""]),
]


def test_a_new_tree_from_the_rows(quota_admin_client, admin, active_sample):
    response = quota_admin_client.post(url("new"), editor_data(
        ROWS, resources=("cpu", "memory"), name="lab", comment="first cut"), follow=True)
    assert response.redirect_chain == [(url("tree", "lab"), 302)]
    assert "Created tree lab (version 1)." in text(response.content.decode())
    assert selectors.tree_document(tree="lab") == {
        "kind": "QuotaTree", "metadata": {"name": "lab"},
        "spec": {"resourceNames": ["cpu", "memory"], "nodes": {
            # stored in base units: millicores and bytes
            "root": {"parent": "nil", "hard": "false",
                     "quota": {"cpu": "10000", "memory": str(64 * 2**30)}},
            "team-a": {"parent": "root", "hard": "true",
                       "quota": {"cpu": "500", "memory": str(32 * 2**30)}},
            # an empty quota cell is 0
            "team-b": {"parent": "root", "hard": "false", "quota": {"cpu": "6000", "memory": "0"}},
        }},
    }
    version = TreeVersion.objects.get(tree="lab")
    assert (version.number, version.author, version.comment) == (1, admin, "first cut")


def test_the_new_tree_form_starts_with_a_root_row(quota_admin_client, active_sample):
    page = quota_admin_client.get(url("new")).content.decode()
    assert '<label for="id_name">Tree name</label>' in page
    assert '<label for="id_resource-0">Resource 1</label>' in page
    assert 'value="cpu"' in page
    assert 'value="memory"' in page
    assert '<label class="visually-hidden" for="id_node-0-name">Name of node 1</label>' in page
    assert '<label class="visually-hidden" for="id_node-0-parent">Parent of row 1</label>' in page
    assert '<label class="visually-hidden" for="id_node-0-quota-1">Quota of memory for row 1' \
        '</label>' in page
    assert '<option value="" selected>none: this is the root</option>' in page
    assert "csrfmiddlewaretoken" in page


def test_an_edit_makes_a_new_version_and_places_the_consumers_again(
    quota_admin_client, admin, active_sample
):
    example_with_story(author=admin)
    # the edit page shows the active version's rows, with parents to choose from
    page = quota_admin_client.get(url("edit", "example")).content.decode()
    assert 'id="id_node-6-name" value="K"' in page
    assert '<option value="G" selected>G</option>' in page
    # a root alone: every consumer is placed again by force, on the root
    response = quota_admin_client.post(url("edit", "example"), editor_data(
        [("A", "", False, ["10"])], comment="flatten"), follow=True)
    assert response.redirect_chain == [(url("tree", "example"), 302)]
    assert "Saved tree example as version 2." in text(response.content.decode())
    view = selectors.tree_view(tree="example")
    assert [(node["name"], node["consumers"]) for node in view["nodes"]] == [
        ("A", ["b", "d", "g", "h", "i"]),
    ]
    assert (view["version"], view["versionAuthor"]) == (2, "ada")
    assert TreeVersion.objects.get(tree="example", number=2).comment == "flatten"


def test_a_tree_keeps_at_least_its_root(quota_admin_client, admin, active_sample):
    example_with_story(author=admin)
    response = quota_admin_client.post(url("edit", "example"), editor_data([]))
    assert response.status_code == 400
    assert "Nothing was saved: a tree needs at least one node: its root" in text(
        response.content.decode())
    assert selectors.tree_view(tree="example")["version"] == 1


def test_adding_rows_and_columns_and_removing_rows_save_nothing(
    quota_admin_client, active_sample
):
    data = editor_data(ROWS, resources=("cpu", "memory"), name="lab", action="add-row")
    page = quota_admin_client.post(url("new"), data).content.decode()
    assert 'id="id_node-3-name" value=""' in page
    assert 'id="id_node-2-name" value="team-b"' in page
    data["action"] = "add-resource"
    page = quota_admin_client.post(url("new"), data).content.decode()
    assert '<label for="id_resource-2">Resource 3</label>' in page
    assert 'name="node-0-quota-2"' in page
    assert not TreeVersion.objects.exists()
    # Remove: the row is left out of what is saved
    data.update({"action": "save", "node-2-remove": "on"})
    quota_admin_client.post(url("new"), data)
    assert [n["name"] for n in selectors.tree_view(tree="lab")["nodes"]] == ["root", "team-a"]


def test_a_new_tree_cannot_take_a_used_or_reserved_name(quota_admin_client, admin, active_sample):
    example_with_story(author=admin)
    for name, said in [
        ("example", "a tree named 'example' exists already"),
        ("new", "'new' is the address of another page here"),
        ("", "give the tree a name"),
        ("bad name", "use letters, digits"),
    ]:
        response = quota_admin_client.post(url("new"), editor_data(ROWS[:1], name=name,
                                                                   resources=("cpu", "memory")))
        assert response.status_code == 400
        assert said in text(response.content.decode())
    assert TreeVersion.objects.filter(tree="example").count() == 1
    assert selectors.trees_list()[0]["name"] == "example"
