"""An address for a tree, forest or consumer that does not exist answers 404 with a page that
says so; a change posted to one creates nothing."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import TreeVersion
from tests.quotatrees.pages import editor_data, text, url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("name", "args", "said"), [
    ("tree", ("nosuch",), "tree nosuch does not exist"),
    ("document", ("nosuch",), "tree nosuch does not exist"),
    ("edit", ("nosuch",), "tree nosuch does not exist"),
    ("forest", ("nosuch",), "There is no forest 'nosuch'."),
    ("consumer", ("nosuch",), "No consumer 'nosuch' is allocated on any tree"),
])
def test_reading_something_unknown_is_404(quota_admin_client, active_sample, name, args, said):
    response = quota_admin_client.get(url(name, *args))
    assert response.status_code == 404
    assert said in text(response.content.decode())


@pytest.mark.parametrize(("name", "data"), [
    ("edit", editor_data([("A", "", False, ["1"])])),
    ("mode", {"mode": "maintenance"}),
    ("delete", {}),
    ("forest-mode", {"mode": "maintenance"}),
    ("forest-delete", {}),
])
def test_changing_something_unknown_is_404_and_creates_nothing(
    quota_admin_client, active_sample, name, data
):
    response = quota_admin_client.post(url(name, "nosuch"), data)
    assert response.status_code == 404
    assert selectors.trees_list() == []
    assert selectors.forests_list() == []
    assert not TreeVersion.objects.exists()
