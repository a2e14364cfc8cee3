"""At about 2,000 queues the elastic page shows a screen of queues: the root and its children,
each with an arrow that opens the page on it (``?focus=``), a long level a page at a time with
its own search box, ``?q=`` the matches with their ancestors; its HTML stays within a budget
that does not grow with the tree."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.config.tree_paths import LEVEL_ROWS
from tests.usage.large_tree import BIG, QUEUES, engines_large

pytestmark = pytest.mark.django_db

PAGE = reverse("elastic:page", args=["default"])
BUDGET = 150_000


def _queues(html: str) -> list[str]:
    return re.findall(r'<tbody class="equeue[^"]*" data-key="([^"]+)"', html)


@pytest.fixture
def large(db):
    engines_large()


def test_the_page_opens_on_a_screen_of_queues(viewer_client, large):
    assert QUEUES > 2000
    html = viewer_client.get(PAGE).content.decode()
    assert len(html.encode()) < BUDGET
    assert _queues(html) == ["root", "root.big", *[f"root.d{n}" for n in range(10)]]
    assert f'href="{PAGE}?focus=root.big" aria-expanded="false"' in html


def test_a_focus_shows_a_long_level_a_page_at_a_time(viewer_client, large):
    html = viewer_client.get(PAGE, {"focus": "root.big", "page": "2"}).content.decode()
    assert len(html.encode()) < BUDGET
    assert _queues(html) == ["root", "root.big", *[
        f"root.big.team-{n:04d}" for n in range(LEVEL_ROWS, 2 * LEVEL_ROWS)]]
    assert f"Queues {LEVEL_ROWS + 1}&ndash;{2 * LEVEL_ROWS} of {BIG} under" in html
    assert f'href="{PAGE}?focus=root.big&amp;page=3"' in html
    assert f'href="{PAGE}?focus=root.big&amp;page=1"' in html
    assert viewer_client.get(PAGE, {"focus": "root.big", "page": "x"}).status_code == 400
    assert viewer_client.get(PAGE, {"focus": "root.none"}).status_code == 404


def test_a_search_shows_the_matches_and_their_ancestors(viewer_client, large):
    html = viewer_client.get(PAGE, {"q": "team-0042"}).content.decode()
    assert _queues(html) == ["root", "root.big", "root.big.team-0042"]
    assert 'data-tree-matched="1"' in html
