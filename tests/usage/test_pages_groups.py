"""The groups table and a group's page: its tree against its limits, and its members (the users
whose applications count against it)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import ODD_USER, GiB, allocate, engines_busy, keys, row, shown

pytestmark = pytest.mark.django_db

GROUPS = reverse("usage:groups", args=["default"])
ML = reverse("usage:group", args=["default", "ml"])


@pytest.fixture
def busy(db):
    return engines_busy()


def test_every_group_with_its_most_constrained_limit(viewer_client, busy):
    html = viewer_client.get(GROUPS).content.decode()
    assert keys(html, "groups") == ["*", "ml"]
    ml = row(html, "ml")
    assert "9 GiB of 16 GiB · 56 %" in ml  # ml may use 16 GiB in root.eng
    assert 'class="ubar lvl-ok"' in ml
    assert "1 GiB of 8 GiB · 12 %" in row(html, "*")  # the group wildcard's 8 GiB
    assert f'href="{reverse("usage:group", args=["default", "*"])}"' in html
    # The group wildcard has no scope of its own: its row is drawn and not followed.
    assert 'data-scopes="group:ml"' in html


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "M"}, ["ml"]),
        ({"queue": "root.eng.web"}, ["*"]),
        ({"queue": "root.ops"}, []),
        ({"sort": "usage"}, ["ml", "*"]),
    ],
)
def test_search_filters_and_sorting(viewer_client, busy, params, expected):
    html = viewer_client.get(GROUPS, params).content.decode()
    assert keys(html, "groups") == expected
    assert shown(html, "data-empty") == (expected == [])


def test_a_groups_tree_members_and_applications(viewer_client, busy):
    html = viewer_client.get(ML).content.decode()
    assert keys(html, "tree") == ["root", "root.eng", "root.eng.ml"]
    assert "9 GiB of 16 GiB · 56 %" in row(html, "root.eng")
    assert keys(html, "members") == ["alice"]
    assert "<code>app-1</code>" in row(html, "alice")
    user = reverse("usage:user", args=["default", "alice"])
    assert f'<a href="{user}">alice</a>' in row(html, "app-1")
    assert '<dd data-field="members">1</dd>' in html
    assert 'data-scopes="group:ml users"' in html


def test_members_are_the_users_whose_applications_count_against_the_group(viewer_client, busy):
    assert allocate("z1", user="zoe", app="app-z", memory=GiB).allowed
    html = viewer_client.get(ML).content.decode()
    assert keys(html, "members") == ["alice", "zoe"]
    assert keys(html, "apps") == ["app-1", "app-z"]


def test_the_group_wildcard_has_a_page_that_follows_the_groups_list(viewer_client, busy):
    html = viewer_client.get(reverse("usage:group", args=["default", "*"])).content.decode()
    assert "Group <code>everyone (*)</code>" in html
    assert keys(html, "members") == [ODD_USER]
    assert 'data-scopes="groups users"' in html


def test_a_group_without_members_says_so(viewer_client, db):
    from tests.usage.pages import engines_pages

    engines_pages()
    html = viewer_client.get(ML).content.decode()
    assert shown(html, "data-empty-members")
    assert "No user runs an application against this group right now." in html
