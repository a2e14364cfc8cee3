"""The users and groups lists page on the server: sorting, search and filters in the URL apply to
every user, one page of ``PAGE_ROWS`` is drawn (with its sparklines), each row on it follows its
own live scope, and a bad ``page`` or ``sort`` gets a clear 400, not a 500. The rows are kept
between requests and brought up to date from the engine's change log."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from quotaweb.usage import page_selectors
from quotaweb.usage.page_selectors import ERR_PAGE, ERR_SORT
from quotaweb.usage.row_cache import entity_rows_read
from quotaweb.usage.rows import SORTS, sorted_rows
from tests.usage.pages import GiB, allocate, engines_pages, keys, row

pytestmark = pytest.mark.django_db

USERS = reverse("usage:users", args=["default"])
GROUPS = reverse("usage:groups", args=["default"])


@pytest.fixture
def crowd(db, monkeypatch):
    """alice (a limit of her own, nothing used) and seven users u0..u6 with 1..7 GiB in
    root.ops (u6 the most): eight users, in pages of three rows."""
    monkeypatch.setattr(page_selectors, "PAGE_ROWS", 3)
    gateway = engines_pages()
    for n in range(7):
        assert allocate(f"k{n}", user=f"u{n}", app=f"app-{n}", queue="root.ops",
                        memory=(n + 1) * GiB, groups=()).allowed
    return gateway


def _get(client, path=USERS, **params) -> str:
    response = client.get(path, params)
    assert response.status_code == 200, response.content.decode()[:500]
    return response.content.decode()


def test_a_page_shows_its_rows_and_says_which_of_how_many(viewer_client, crowd):
    first = _get(viewer_client)
    assert keys(first, "users") == ["alice", "u0", "u1"]
    assert "<span data-shown>1\N{EN DASH}3</span> of <span data-matched>8</span> users." in first
    assert "Page 1 of 3" in first
    assert '<a href="?page=2" rel="next">Next page</a>' in first
    assert 'rel="prev"' not in first
    last = _get(viewer_client, page="3")
    assert keys(last, "users") == ["u5", "u6"]
    assert '<a href="?page=2" rel="prev">Previous page</a>' in last
    assert 'rel="next"' not in last


def test_sorting_applies_to_everyone_before_paging(viewer_client, crowd):
    # u6 has the largest share of the 20 GiB everyone may use at root: first when sorted so.
    html = _get(viewer_client, sort="usage")
    assert keys(html, "users") == ["u6", "u5", "u4"]
    # u0..u3 are at 20 % (one application of the five allowed) in name order, alice at 0 %.
    assert keys(_get(viewer_client, sort="usage", page="2"), "users") == ["u0", "u1", "u2"]
    assert keys(_get(viewer_client, sort="usage", page="3"), "users") == ["u3", "alice"]
    # The next page keeps the order and the filters; a new order starts at page 1.
    assert '<a href="?sort=usage&amp;page=2" rel="next">' in html
    assert '<a href="?sort=name">User</a>' in _get(viewer_client, sort="usage", page="2")


def test_search_applies_to_everyone_before_paging(viewer_client, crowd):
    html = _get(viewer_client, q="U5")
    assert keys(html, "users") == ["u5"]
    assert "<span data-matched>1</span> users that match, of <span data-total>8</span>" in html


def test_only_the_rows_on_the_page_are_followed_live(viewer_client, crowd):
    assert 'data-scopes="user:u2 user:u3 user:u4"' in _get(viewer_client, page="2")


def test_a_change_between_two_pages_is_seen_by_the_next(viewer_client, crowd):
    from quotaweb.allocations.services import allocation_release

    assert keys(_get(viewer_client, sort="usage"), "users") == ["u6", "u5", "u4"]
    allocation_release(partition="default", key="k6")  # u6 has nothing left and no own limit
    assert allocate("k0b", user="u0", app="app-0", queue="root.ops", memory=10 * GiB,
                    groups=()).allowed
    assert keys(_get(viewer_client, sort="usage"), "users") == ["u0", "u5", "u4"]
    assert "<span data-matched>7</span> users." in _get(viewer_client)


@pytest.mark.parametrize("page", ["0", "4", "-1", "two", "1.5", "9" * 12])
def test_a_page_out_of_range_is_a_clear_400(viewer_client, crowd, page):
    response = viewer_client.get(USERS, {"page": page})
    assert response.status_code == 400
    message = ERR_PAGE.format(last=3, count=8, size=3, value=page)
    assert escape(message) in response.content.decode()


@pytest.mark.parametrize("path", [USERS, GROUPS])
def test_an_unknown_order_is_a_clear_400(viewer_client, crowd, path):
    response = viewer_client.get(path, {"sort": "bogus"})
    assert response.status_code == 400
    message = ERR_SORT.format(choices=", ".join(SORTS), value="bogus")
    assert escape(message) in response.content.decode()


def test_an_empty_list_has_one_page(viewer_client, crowd):
    html = _get(viewer_client, q="nobody")
    assert keys(html, "users") == []
    assert 'data-scopes=""' in html
    assert "Page 1" not in html


def test_the_groups_list_pages_the_same_way(viewer_client, db, monkeypatch):
    monkeypatch.setattr(page_selectors, "PAGE_ROWS", 1)
    engines_pages()
    assert allocate("g1", groups=("ml",)).allowed
    first = _get(viewer_client, GROUPS)
    assert len(keys(first, "groups")) == 1
    assert "Page 1 of" in first
    second = _get(viewer_client, GROUPS, page="2")
    assert keys(second, "groups") != keys(first, "groups")


def test_a_configuration_switch_is_seen_by_the_next_page(viewer_client, crowd):
    from quotaweb.config.services import config_apply
    from tests.configs import PAGES_YAML

    assert "7 GiB of 20 GiB" in row(_get(viewer_client, q="u6"), "u6")  # the wildcard at root
    tighter = PAGES_YAML.replace("maxresources: {memory: 20Gi}", "maxresources: {memory: 10Gi}")
    assert tighter != PAGES_YAML
    config_apply(yaml_text=tighter, author=None, base_version=1)
    assert "7 GiB of 10 GiB" in row(_get(viewer_client, q="u6"), "u6")


@pytest.mark.parametrize(("path", "kind"), [(USERS, "users"), (GROUPS, "groups")])
def test_a_page_in_name_order_reads_only_its_own_rows(viewer_client, crowd, monkeypatch, path,
                                                      kind):
    assert allocate("g1", user="u9", app="app-g", queue="root.ops", groups=("ml",)).allowed
    every = sorted_rows(entity_rows_read(gateway=crowd, partition="default", kind=kind), "name")

    def every_row(**kwargs):
        raise AssertionError("every row was read for a page in name order")

    monkeypatch.setattr(page_selectors, "entity_rows_read", every_row)
    pages = -(-len(every) // 3)
    shown = [key for number in range(1, pages + 1)
             for key in keys(_get(viewer_client, path, page=str(number)), kind)]
    assert shown == [row.name for row in every]
    assert f"of <span data-matched>{len(every)}</span> {kind}" in _get(viewer_client, path)
