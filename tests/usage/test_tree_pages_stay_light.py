"""At about 2,000 queues the tree pages (home, the usage overview) open collapsed to a screen:
their HTML stays within a budget that does not grow with the tree, a long level shows its first
rows with a pager and a search box, ``?focus=`` opens one subtree (what an arrow does without
scripts), ``?q=`` shows the matching queues with their ancestors, and the page subscribes to the
scopes of the open queues only."""

from __future__ import annotations

import html as markup
import re

import pytest
from django.urls import reverse

from quotaweb.config.tree_paths import LEVEL_ROWS, SCREEN_ROWS, SEARCH_ROWS
from tests.usage.large_tree import BIG, QUEUES, engines_large

pytestmark = pytest.mark.django_db

OVERVIEW = reverse("usage:overview", args=["default"])
# Well above what a screen of rows weighs (about 1.5 KB each), far below the whole tree.
BUDGET = 120_000


def _rows(html: str) -> list[str]:
    return re.findall(r'<tr data-key="([^"]+)"', html)


def _scopes(html: str) -> list[str]:
    return re.search(r'data-scopes="([^"]*)"', html).group(1).split()


@pytest.fixture
def large(db):
    engines_large()


def test_the_home_page_and_the_overview_stay_within_the_budget(viewer_client, large):
    assert QUEUES > 2000
    for url in (reverse("core:home"), OVERVIEW):
        html = viewer_client.get(url).content.decode()
        assert len(html.encode()) < BUDGET, url
        rows = _rows(html)
        # The root and its children: the next level would not fit a screen.
        assert rows[:3] == ["root", "root.big", "root.d0"]
        assert len(rows) == 12 <= SCREEN_ROWS
        assert 'data-expand="root.big" aria-expanded="false"' in html
        assert _scopes(html) == ["queue:root"]


def test_a_long_level_shows_a_page_with_a_pager_and_a_search_box(viewer_client, large):
    html = viewer_client.get(OVERVIEW, {"focus": "root.big"}).content.decode()
    rows = _rows(html)
    assert rows[:2] == ["root", "root.big"]
    assert rows[2:] == [f"root.big.team-{n:04d}" for n in range(LEVEL_ROWS)]
    assert len(html.encode()) < BUDGET
    assert f"Queues 1&ndash;{LEVEL_ROWS} of {BIG} under <code>root.big</code>" in html
    assert 'data-more="root.big" data-page="2"' in html
    assert 'name="focus" value="root.big"' in html  # the level's own search box
    assert _scopes(html) == ["queue:root", "queue:root.big"]

    second = viewer_client.get(OVERVIEW, {"focus": "root.big", "page": "2"}).content.decode()
    assert _rows(second)[2:] == [
        f"root.big.team-{n:04d}" for n in range(LEVEL_ROWS, 2 * LEVEL_ROWS)
    ]
    assert markup.escape(f"{OVERVIEW}?focus=root.big&page=1") in second  # back


def test_a_page_out_of_range_or_an_unknown_queue_says_what_it_accepts(viewer_client, large):
    response = viewer_client.get(OVERVIEW, {"focus": "root.big", "page": "99"})
    assert response.status_code == 400
    assert "page must be a whole number from 1 to 24" in response.content.decode()
    response = viewer_client.get(OVERVIEW, {"focus": "root.nowhere"})
    assert response.status_code == 404
    assert "There is no queue &#x27;root.nowhere&#x27;" in response.content.decode()


def test_a_search_shows_the_matches_with_their_ancestors(viewer_client, large):
    html = viewer_client.get(OVERVIEW, {"q": "team-0042"}).content.decode()
    assert _rows(html) == ["root", "root.big", "root.big.team-0042"]
    assert 'data-tree-matched="1"' in html

    # Under a focus, only its subtree; a broad search shows its first matches and says how many.
    html = viewer_client.get(OVERVIEW, {"focus": "root.d3", "q": "t1"}).content.decode()
    assert _rows(html) == ["root", "root.d3", *[f"root.d3.t{n}" for n in (1, *range(10, 20))]]
    html = viewer_client.get(OVERVIEW, {"q": "team"}).content.decode()
    assert len(_rows(html)) == 2 + SEARCH_ROWS
    assert f'data-tree-matched="{BIG}"' in html
    assert len(html.encode()) < 2 * BUDGET
