"""Everyone logged in reads the quota tree pages; every change needs a quota admin. A viewer's
POST (even with a valid CSRF token) is refused with 403 and changes nothing; the editor is not
even shown to viewers; someone not logged in is sent to the login page; a POST without the CSRF
token is refused."""

from __future__ import annotations

import pytest
from django.test import Client

from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import Forest, Tree, TreeVersion
from quotaweb.quotatrees.services import forest_put
from tests.quotatrees.pages import context_tree, editor_data, example_with_story, url

pytestmark = pytest.mark.django_db

NEW_TREE = editor_data([("root", "", False, ["4"])], name="fresh")
WRITES = [
    ("new", (), NEW_TREE),
    ("edit", ("example",), editor_data([("A", "", False, ["99"])])),
    ("mode", ("example",), {"mode": "maintenance"}),
    ("delete", ("context",), {}),
    ("forest-new", (), {"name": "other", "trees": "context"}),
    ("forest-edit", ("jobs",), {"trees": "example context"}),
    ("forest-mode", ("jobs",), {"mode": "maintenance"}),
    ("forest-delete", ("jobs",), {}),
]
IDS = [name for name, _, _ in WRITES]


@pytest.fixture
def trees(admin, active_sample):
    example_with_story(author=admin)
    context_tree(author=admin)
    forest_put(forest="jobs", trees=["example"])


def _state():
    return (
        list(TreeVersion.objects.order_by("id").values_list("tree", "number", "document")),
        list(Tree.objects.order_by("name").values_list("name", "mode", "version")),
        list(Forest.objects.order_by("name").values_list("name", "trees", "mode")),
        selectors.tree_view(tree="example")["nodes"], selectors.forests_list(),
        [tree["name"] for tree in selectors.trees_list()],
    )


@pytest.mark.parametrize(("name", "args", "data"), WRITES, ids=IDS)
def test_a_viewers_post_is_refused_and_changes_nothing(viewer_client, trees, name, args, data):
    before = _state()
    response = viewer_client.post(url(name, *args), data)
    assert response.status_code == 403
    said = response.content.decode()
    # the editor is an admin's page altogether; the other forms sit on pages viewers read
    assert ("This page is for quota admins" if name in ("new", "edit")
            else "nothing was changed") in said
    assert _state() == before


@pytest.mark.parametrize(("name", "args", "data"), WRITES, ids=IDS)
def test_someone_not_logged_in_is_sent_to_log_in(outsider, trees, name, args, data):
    before = _state()
    response = outsider.post(url(name, *args), data)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert _state() == before


@pytest.mark.parametrize(
    ("name", "args"),
    [("index", ()), ("tree", ("example",)), ("forest", ("jobs",)), ("consumer", ("b",)),
     ("document", ("example",)), ("new", ()), ("edit", ("example",))],
)
def test_every_page_needs_a_login(outsider, trees, name, args):
    response = outsider.get(url(name, *args))
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url(name, *args)}"


def test_the_editor_is_for_admins(viewer_client, quota_admin_client, trees):
    for address in (url("new"), url("edit", "example")):
        refused = viewer_client.get(address)
        assert refused.status_code == 403
        assert "This page is for quota admins" in refused.content.decode()
        assert quota_admin_client.get(address).status_code == 200


def test_viewers_read_every_page(viewer_client, trees):
    for name, args in [("index", ()), ("tree", ("example",)), ("forest", ("jobs",)),
                       ("consumer", ("b",)), ("document", ("example",))]:
        assert viewer_client.get(url(name, *args)).status_code == 200, name


def test_a_post_without_the_csrf_token_is_refused(admin, trees):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    before = _state()
    for name, args, data in WRITES:
        assert client.post(url(name, *args), data).status_code == 403, name
    assert _state() == before
