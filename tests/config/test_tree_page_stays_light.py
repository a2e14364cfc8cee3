"""At about 2,000 queues the configuration's queue tree sends what a screen shows: each root and
its children, a closed queue standing for its children with a link (the page focused on it) and
their fragment, a long level paged with its own search box; ``?focus=`` and ``?q=`` open more
without scripts, and ``config:tree-fragment`` gives a queue's children to a viewer only."""

from __future__ import annotations

import html as markup
import re

import pytest
from django.urls import reverse

from quotaweb.config.tree_window import LEVEL_ROWS
from tests.config.pages import apply
from tests.usage.large_tree import BIG, QUEUES, large_yaml

pytestmark = pytest.mark.django_db

TREE = reverse("config:tree")
BUDGET = 60_000


def _paths(html: str) -> list[str]:
    return re.findall(r'<li class="cq[^"]*" data-path="([^"]+)"', html)


def _fragment(path: str) -> str:
    return reverse("config:tree-fragment", args=["default", path])


@pytest.fixture
def large(db):
    apply(large_yaml())


def test_the_page_sends_a_screen_of_queues(viewer_client, large):
    assert QUEUES > 2000
    html = viewer_client.get(TREE).content.decode()
    assert len(html.encode()) < BUDGET
    assert _paths(html) == ["root", "root.big", *[f"root.d{n}" for n in range(10)]]
    load = re.search(r'<li class="cq-load"><a href="([^"]+)" data-children="([^"]+)">'
                     r'1200 queues under big</a>', html)
    assert markup.unescape(load.group(1)) == f"{TREE}?partition=default&focus=root.big"
    assert markup.unescape(load.group(2)) == _fragment("root.big")


def test_a_focus_opens_one_level_a_page_at_a_time(viewer_client, large):
    html = viewer_client.get(TREE, {"partition": "default", "focus": "root.big"}).content.decode()
    assert _paths(html) == ["root", "root.big",
                            *[f"root.big.team-{n:04d}" for n in range(LEVEL_ROWS)]]
    assert f"Queues 1&ndash;{LEVEL_ROWS} of {BIG} under <code>root.big</code>" in html
    assert 'name="focus" value="root.big"' in html
    html = viewer_client.get(TREE, {"partition": "default", "focus": "root.big", "page": "3"}
                             ).content.decode()
    assert _paths(html)[2] == f"root.big.team-{2 * LEVEL_ROWS:04d}"
    assert viewer_client.get(TREE, {"partition": "default", "focus": "root.big",
                                    "page": "25"}).status_code == 400
    assert viewer_client.get(TREE, {"partition": "default", "focus": "root.no"}
                             ).status_code == 404


def test_a_search_sends_the_matches_and_their_ancestors(viewer_client, large):
    html = viewer_client.get(TREE, {"q": "team-0042"}).content.decode()
    assert _paths(html) == ["root", "root.big", "root.big.team-0042"]
    assert "1 queue match" in html
    html = viewer_client.get(TREE, {"partition": "default", "focus": "root.d2", "q": "t7"}
                             ).content.decode()
    sevens = [f"root.d2.t{n}" for n in (7, *range(70, 80))]
    assert _paths(html) == ["root", "root.d2", *sevens]


def test_the_fragment_gives_a_viewer_the_children(viewer_client, client, large):
    response = viewer_client.get(_fragment("root.d4"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert _paths(html) == [f"root.d4.t{n}" for n in range(LEVEL_ROWS)]
    assert markup.escape(f"{_fragment('root.d4')}?page=2") in html
    assert viewer_client.get(_fragment("root.nowhere")).status_code == 404
    anonymous = client.get(_fragment("root.d4"))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("accounts:login"))
