"""``usage:tree-fragment`` answers the rows of one page of a queue's children, closed, for a
tree page that opens the queue in place: to a viewer; a team link's holder (who may read only
their team's scope) and an anonymous visitor are sent to log in like on every usage page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.config.tree_paths import LEVEL_ROWS
from quotaweb.teams.services import team_link_create
from tests.usage.large_tree import BIG, engines_large

pytestmark = pytest.mark.django_db


def _fragment(path: str) -> str:
    return reverse("usage:tree-fragment", args=["default", path])


@pytest.fixture
def large(db):
    engines_large()


def test_a_viewer_gets_the_children_a_page_at_a_time(viewer_client, large):
    response = viewer_client.get(_fragment("root.big"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # rows only, to put into the page's table
    assert re.findall(r'<tr data-key="([^"]+)"', html) == [
        f"root.big.team-{n:04d}" for n in range(LEVEL_ROWS)
    ]
    assert f"of {BIG} under" in html
    assert 'data-more="root.big" data-page="2"' in html
    # Closed, with their own arrows where they have children.
    html = viewer_client.get(_fragment("root")).content.decode()
    assert 'data-expand="root.d0" aria-expanded="false"' in html
    assert 'href="/usage/default/?focus=root.d0"' in html

    last = viewer_client.get(_fragment("root.big"), {"page": "24"}).content.decode()
    assert re.findall(r'<tr data-key="([^"]+)"', last)[-1] == f"root.big.team-{BIG - 1:04d}"
    assert "data-more=" not in last


def test_an_unknown_queue_or_page_is_refused(viewer_client, large):
    assert viewer_client.get(_fragment("root.nowhere")).status_code == 404
    assert viewer_client.get(_fragment("root.big"), {"page": "0"}).status_code == 400
    assert viewer_client.get(reverse("usage:tree-fragment", args=["nopart", "root"])
                             ).status_code == 404


def test_anonymous_visitors_and_team_links_are_sent_to_log_in(client, admin, large):
    link = team_link_create(partition="default", kind="group", name="ml", author=admin,
                            confirm_unknown=True)
    for query in ({}, {"token": link.token}):
        response = client.get(_fragment("root.big"), query)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))
