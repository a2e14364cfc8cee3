"""A tree's active document downloads as JSON (everyone may export); pasted or uploaded into
the editor it fills the rows (nothing saved) or is saved at once; either way saving it again
gives the same document. A new tree takes the imported document's name. Text that is not JSON,
or a document with problems, is refused with the problems on the rows."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import TreeVersion
from quotaweb.quotatrees.units import ERR_QUANTITY, example_of
from tests.quotatrees.pages import all_errors, example_with_story, text, url
from tests.quotatrees.support import example_document, tree_document

pytestmark = pytest.mark.django_db


def _exported(client, tree: str) -> dict:
    response = client.get(url("document", tree))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="{tree}.json"'
    return json.loads(response.content)


def test_export_then_import_and_save_gives_the_same_document(
    viewer_client, quota_admin_client, admin, active_sample
):
    example_with_story(author=admin)
    exported = _exported(viewer_client, "example")
    assert exported == selectors.tree_document(tree="example")
    response = quota_admin_client.post(url("edit", "example"), {
        "action": "import", "text": json.dumps(exported), "comment": "round trip",
    }, follow=True)
    assert response.redirect_chain == [(url("tree", "example"), 302)]
    assert "Saved tree example as version 2." in text(response.content.decode())
    assert selectors.tree_document(tree="example") == exported
    assert TreeVersion.objects.get(tree="example", number=2).comment == "round trip"


def test_an_uploaded_file_loads_into_the_rows_and_saves_the_same(
    quota_admin_client, admin, active_sample
):
    example_with_story(author=admin)
    exported = selectors.tree_document(tree="example")
    upload = SimpleUploadedFile("example.json", json.dumps(exported).encode(),
                                content_type="application/json")
    response = quota_admin_client.post(url("edit", "example"), {"action": "load",
                                                                "upload": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert "The document is in the rows below; nothing is saved yet." in text(page)
    assert 'id="id_node-13-name" value="J"' in page
    assert TreeVersion.objects.filter(tree="example").count() == 1
    # the rows as the page shows them, saved: the same document
    rows = _form_fields(page)
    rows["action"] = "save"
    quota_admin_client.post(url("edit", "example"), rows)
    assert selectors.tree_document(tree="example") == exported
    assert TreeVersion.objects.filter(tree="example").count() == 2


def _form_fields(page: str) -> dict[str, str]:
    """What the browser would send from the editor's inputs as drawn (checkboxes checked)."""
    data = {}
    for tag in re.findall(r"<input [^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or name.group(1) == "csrfmiddlewaretoken":
            continue
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                data[name.group(1)] = "on"
            continue
        value = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = html.unescape(value.group(1)) if value else ""
    for name, options in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', options)
        data[name] = html.unescape(chosen.group(1)) if chosen else ""
    return data


def test_a_new_tree_takes_the_documents_name(quota_admin_client, active_sample):
    document = tree_document("imported", ["cpu", "gpu"], [
        ("top", None, {"cpu": 8, "gpu": 2}), ("left", "top", {"cpu": 4, "gpu": 1}),
    ], hard={"left"})
    response = quota_admin_client.post(url("new"), {
        "action": "import", "text": json.dumps(document)}, follow=True)
    assert response.redirect_chain == [(url("tree", "imported"), 302)]
    assert selectors.tree_document(tree="imported") == document


def test_a_document_for_another_tree_is_refused_on_an_edit(
    quota_admin_client, admin, active_sample
):
    example_with_story(author=admin)
    response = quota_admin_client.post(url("edit", "example"), {
        "action": "import", "text": json.dumps(example_document("other"))})
    assert response.status_code == 400
    assert ("the document names tree 'other' but the address is for tree 'example'; they "
            "must agree") in text(response.content.decode())
    assert TreeVersion.objects.filter(tree="example").count() == 1


def test_problems_of_an_imported_document_are_shown_on_its_rows(
    quota_admin_client, active_sample
):
    document = tree_document("t", ["cpu"], [("A", None, 4), ("B", "X", {"cpu": "1.5"})])
    response = quota_admin_client.post(url("new"), {"action": "import",
                                                    "text": json.dumps(document)})
    assert response.status_code == 400
    assert all_errors(response.content.decode()) == {
        "node-1-parent": ["node B has unknown parent X"],
        "node-1-quota-0": [ERR_QUANTITY.format(value="1.5", resource="cpu",
                                               example=example_of("cpu"))],
    }
    assert not TreeVersion.objects.exists()


@pytest.mark.parametrize(("sent", "said"), [
    ("{not json", "this is not JSON: Expecting property name enclosed in double quotes "
                  "(line 1, column 2)"),
    ("[1, 2]", 'a QuotaTree document is a JSON object ({"kind": "QuotaTree", ...}), not list'),
    ("", "paste a QuotaTree document or choose a file to upload"),
])
def test_text_that_is_not_a_document_is_refused(quota_admin_client, active_sample, sent, said):
    response = quota_admin_client.post(url("new"), {"action": "load", "text": sent})
    assert response.status_code == 400
    page = response.content.decode()
    assert said in html.unescape(page)
    assert "<details class=\"tq-import\" open>" in page
    assert not TreeVersion.objects.exists()
