"""On a tree too large to list (about 2,000 queues), the queue pickers of the usage pages (the
users, groups and activity filters, the "will it fit?" form) suggest the top levels and the
queues the page is about, say that any path may be typed, and read a typed deep path; a small
tree's pickers list every queue (tests/usage/test_pages_users.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.usage.forms import QUEUE_TYPE
from quotaweb.usage.queue_picker import PICKER_ROWS, queue_picker_get
from tests.usage.large_tree import BIG, QUEUES, engines_large
from tests.usage.pages import GiB, allocate

pytestmark = pytest.mark.django_db

DEEP = "root.d7.t42"
# The pickers' share of a page is bounded; the page's rows are paged themselves.
BUDGET = 60_000


@pytest.fixture
def large(db):
    engines_large()
    assert allocate("a1", user="alice", queue=DEEP, memory=GiB, groups=("ml",)).allowed


def _suggested(html: str, datalist: str) -> list[str]:
    listed = re.search(rf'<datalist id="{datalist}">(.*?)</datalist>', html, re.S).group(1)
    return re.findall(r'<option value="([^"]+)">', listed)


def test_the_picker_lists_whole_levels_from_the_root_and_the_queues_asked_for(large):
    picker = queue_picker_get(partition="default", around=[DEEP, "root.nowhere"])
    assert not picker.complete
    assert picker.total == QUEUES
    # Root, its 11 children and the 10 departments' 80 teams would be 812: one level of 1,200
    # under root.big would not fit either, so the levels stop at the root's children.
    assert picker.paths[:3] == ["root", "root.big", "root.d0"]
    assert len(picker.paths) == 1 + 11 + 1 <= PICKER_ROWS
    assert DEEP in picker.paths
    assert "root.nowhere" not in picker.paths


@pytest.mark.parametrize("page", ["usage:users", "usage:groups", "usage:activity"])
def test_the_list_pages_suggest_the_top_levels_and_read_a_typed_path(viewer_client, large, page):
    url = reverse(page, args=["default"])
    html = viewer_client.get(url).content.decode()
    suggested = _suggested(html, "queue-paths")
    assert "root.d7" in suggested
    assert DEEP not in suggested
    assert f"top levels of {QUEUES} queues; type any queue" in html
    assert 'aria-describedby="f-queue-hint"' in html
    assert len(html.encode()) < BUDGET, len(html.encode())
    filtered = viewer_client.get(url, {"queue": DEEP}).content.decode()
    assert DEEP in _suggested(filtered, "queue-paths")
    if page == "usage:users":
        assert 'href="/usage/default/users/alice/"' in filtered


def test_the_fit_form_is_a_text_box_that_reads_a_typed_deep_queue(viewer_client, large):
    url = reverse("usage:user", args=["default", "alice"])
    html = viewer_client.get(url).content.decode()
    assert re.search(r'<input type="text" name="queue"[^>]*list="fit-queue-paths"', html)
    assert QUEUE_TYPE in html
    suggested = _suggested(html, "fit-queue-paths")
    # alice's queues are offered beside the top levels.
    assert DEEP in suggested
    assert "root.d7" in suggested
    assert f"root.big.team-{BIG - 1:04d}" not in suggested
    answer = viewer_client.get(url, {"queue": "d7.t42", "resources": "memory: 1Gi"})
    answer = answer.content.decode()
    assert 'data-fit="yes"' in answer
    assert "<code>root.d7.t42</code>" in answer
