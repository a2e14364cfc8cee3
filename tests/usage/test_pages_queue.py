"""A queue's usage page: the queue against its maximum, and which users and groups use it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import ODD_USER, GiB, engines_busy, keys, row, shown

pytestmark = pytest.mark.django_db

BREADCRUMB = "\u203a"


@pytest.fixture
def busy(db):
    return engines_busy()


def _page(client, path: str) -> str:
    response = client.get(reverse("usage:queue", args=["default", path]))
    assert response.status_code == 200
    return response.content.decode()


def test_who_uses_a_queue_and_how_much(viewer_client, busy):
    html = _page(viewer_client, "root.eng")
    assert "10 GiB of 100 GiB · 10 %" in row(html, "root.eng")
    assert keys(html, "users") == ["alice", ODD_USER]
    assert "9 GiB of 10 GiB · 90 %" in row(html, "alice")
    # The odd user has no limit at root.eng: root's 20 GiB for everyone holds there.
    assert f"memory={GiB}/{20 * GiB}@root" in row(html, ODD_USER)
    assert keys(html, "groups") == ["*", "ml"]
    assert "1 GiB of 8 GiB · 12 %" in row(html, "*")


def test_the_queue_sits_in_its_tree(viewer_client, busy):
    html = _page(viewer_client, "root.eng.ml")
    overview = reverse("usage:overview", args=["default"])
    eng = reverse("usage:queue", args=["default", "root.eng"])
    crumbs = [f'<a href="{overview}">Queues</a>', '<a href="/usage/default/queues/root/">root</a>',
              f'<a href="{eng}">eng</a>', "ml"]
    assert f" {BREADCRUMB} ".join(crumbs) in html
    children = _page(viewer_client, "root.eng")
    web = reverse("usage:queue", args=["default", "root.eng.web"])
    assert f'<a href="{web}">web</a>' in children
    # The queue, and each user and group on screen (the group wildcard has no scope).
    assert 'data-scopes="queues user:alice group:ml"' in html
    assert 'data-path="root.eng.ml"' in html


def test_a_queue_nobody_uses_says_so(viewer_client, busy):
    html = _page(viewer_client, "root.ops")
    assert keys(html, "users") == ["bob"]
    assert keys(html, "groups") == []
    assert shown(html, "data-empty-groups")
    assert "No group uses this queue right now." in html


def test_queue_paths_are_read_as_the_engine_reads_them(viewer_client, busy):
    html = _page(viewer_client, "ROOT.Eng")
    assert "Queue <code>root.eng</code>" in html


def test_a_dynamic_queue_has_a_page_while_something_runs_there(viewer_client, busy):
    from tests.usage.pages import allocate

    assert allocate("d1", user="bob", app="app-d", queue="root.ops.adhoc", groups=()).allowed
    html = _page(viewer_client, "root.ops.adhoc")
    assert keys(html, "users") == ["bob"]


def test_a_busy_queue_shows_its_first_users_and_links_to_all_of_them(
    viewer_client, busy, monkeypatch
):
    from quotaweb.usage import page_selectors
    from tests.usage.pages import allocate

    monkeypatch.setattr(page_selectors, "QUEUE_ROWS", 2)
    for n in range(3):
        assert allocate(f"q{n}", user=f"q{n}", app=f"app-q{n}", queue="root.ops",
                        groups=()).allowed
    html = _page(viewer_client, "root.ops")
    assert keys(html, "users") == ["bob", "q0"]
    assert 'data-scopes="queues user:bob user:q0"' in html
    users = reverse("usage:users", args=["default"])
    assert (
        'data-count="4" data-shown="2">The first <span data-more-shown>2</span> of the '
        "<span data-more-count>4</span> users using this queue, by name, follow it live here; "
        f'<a href="{users}?queue=root.ops">all <span data-more-count>4</span> in the users '
        "list</a>."
    ) in html
    assert "data-more-groups" not in html
