"""A tree the editor cannot save is not saved: the page comes back (400) with every problem on
the row and input it is about (an error's node and JSON field say which): a parent cycle on the
parent of each node in it, a quota that is not a whole number on that node's quota of that
resource, an unknown parent on that parent, a second root, two rows of one name, a resource
listed twice. What was typed is kept."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import TreeVersion
from quotaweb.quotatrees.units import ERR_QUANTITY, example_of
from tests.quotatrees.pages import all_errors, editor_data, example_with_story, text, url

pytestmark = pytest.mark.django_db


def _refused(client, address, data) -> dict[str, list[str]]:
    response = client.post(address, data)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was saved" in text(page)
    return all_errors(page)


def test_a_cycle_is_shown_on_the_parent_of_each_node_in_it(quota_admin_client, active_sample):
    errors = _refused(quota_admin_client, url("new"), editor_data([
        ("root", "", False, ["4"]), ("b", "c", False, ["1"]), ("c", "b", False, ["1"]),
    ], name="loop"))
    assert errors == {
        "node-1-parent": ["node b is on a parent cycle: b -> c -> b"],
        "node-2-parent": ["node c is on a parent cycle: b -> c -> b"],
    }
    assert not TreeVersion.objects.exists()


def test_a_quota_that_is_not_a_whole_number_is_shown_on_its_cell(
    quota_admin_client, admin, active_sample
):
    example_with_story(author=admin)
    before = selectors.tree_document(tree="example")
    response = quota_admin_client.post(url("edit", "example"), editor_data(
        [("A", "", False, ["10", "64"]), ("B", "A", False, ["1.5", "-1"])],
        resources=("cpu", "memory")))
    assert response.status_code == 400
    page = response.content.decode()
    assert all_errors(page) == {
        "node-1-quota-0": [ERR_QUANTITY.format(value="1.5", resource="cpu",
                                               example=example_of("cpu"))],
        "node-1-quota-1": [ERR_QUANTITY.format(value="-1", resource="memory",
                                               example=example_of("memory"))],
    }
    # the cell is marked and keeps what was typed
    assert '<td class="num has-error">' in page
    assert 'id="id_node-1-quota-0" value="1.5"' in page
    assert selectors.tree_document(tree="example") == before
    assert TreeVersion.objects.filter(tree="example").count() == 1


def test_an_unknown_parent_and_a_second_root_are_shown_on_their_parent(
    quota_admin_client, active_sample
):
    errors = _refused(quota_admin_client, url("new"), editor_data([
        ("root", "", False, ["4"]), ("lost", "nowhere", False, ["1"]),
        ("other", "", False, ["1"]),
    ], name="t"))
    assert errors == {
        "node-1-parent": ["node lost has unknown parent nowhere"],
        "node-2-parent": ["node other is a second root (the root is root)"],
    }


def test_a_dangling_parent_stays_shown_as_such(quota_admin_client, active_sample):
    response = quota_admin_client.post(url("new"), editor_data(
        [("root", "", False, ["4"]), ("lost", "nowhere", False, ["1"])], name="t"))
    assert '<option value="nowhere" selected>nowhere (no such node)</option>' \
        in response.content.decode()


def test_two_rows_of_one_name_and_a_row_without_a_name(quota_admin_client, active_sample):
    errors = _refused(quota_admin_client, url("new"), editor_data([
        ("root", "", False, ["4"]), ("a", "root", False, ["1"]), ("a", "root", False, ["2"]),
        ("", "root", False, ["3"]),
    ], name="t"))
    assert errors == {
        "node-2-name": ["another row (row 2) is already named 'a'; node names are unique"],
        "node-3-name": ["this row has values but no node name: name it, or tick Remove"],
    }
    assert not TreeVersion.objects.exists()


def test_a_resource_twice_and_no_resource_at_all(quota_admin_client, active_sample):
    errors = _refused(quota_admin_client, url("new"), editor_data(
        [("root", "", False, ["4", "4"])], resources=("cpu", "cpu"), name="t"))
    assert errors == {"resource-1": ["the resource 'cpu' has two columns"]}
    errors = _refused(quota_admin_client, url("new"), editor_data(
        [("root", "", False, ["4"])], resources=("",), name="t"))
    assert errors == {"resources": ["a tree needs at least one resource"]}


def test_a_tree_without_a_root_says_so(quota_admin_client, active_sample):
    response = quota_admin_client.post(url("new"), editor_data(
        [("a", "b", False, ["1"]), ("b", "a", False, ["1"])], name="t"))
    assert response.status_code == 400
    page = text(response.content.decode())
    assert "Nothing was saved: the tree has no root: one node needs an empty or 'nil' parent" \
        in page
    assert not TreeVersion.objects.exists()
