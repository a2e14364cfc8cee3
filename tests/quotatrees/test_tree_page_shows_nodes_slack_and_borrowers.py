"""A tree's page shows, to a viewer, every node in tree order with its allocated against quota
(a bar with its numbers as text, over quota marked), its slack (with a word when the children
are promised more than the node has), hard or soft, the consumers placed there with borrowers
marked "borrowing from <group>", the mode with what it means, the version with who saved it,
and the feed of decisions and preemptions newest first; the page follows the tree's live
scope. Consumer ids link to the consumer page."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import services
from tests.quotatrees.pages import (
    STORY,
    cells,
    context_tree,
    example_with_story,
    feed_rows,
    node_rows,
    text,
    url,
)
from tests.quotatrees.support import body

pytestmark = pytest.mark.django_db


def test_nodes_in_tree_order_with_allocated_quota_slack_and_consumers(
    viewer_client, admin, active_sample
):
    example_with_story(author=admin)
    response = viewer_client.get(url("tree", "example"))
    assert response.status_code == 200
    page = response.content.decode()
    rows = node_rows(page)
    assert list(rows) == ["A", "B", "E", "F", "C", "G", "K", "L", "H", "M", "N", "D", "I", "J"]
    # depth indents the names
    assert 'data-key="K" data-sig="K|G|soft|cpu=1|cpu=1|cpu=1|h@K#0#cpu=1" class="depth-3"' \
        in page
    node, allocated, slack, consumers = cells(rows["A"])
    assert node == "A soft"
    assert allocated == "cpu 0.008 vcore of 0.01 vcore · 80 %"  # cpu counts millicores
    assert slack == "cpu 0 vcore"
    # i (priority 1, group I) borrows at the root; b was pushed up from N to H
    assert consumers == "i borrowing from I"
    assert cells(rows["H"])[3] == "b borrowing from N"
    assert cells(rows["N"])[3] == "d"
    assert cells(rows["K"])[1] == "cpu 0.001 vcore of 0.001 vcore · 100 %"
    assert cells(rows["B"])[3] == "none"
    assert ('title="cpu: 0.008 vcore allocated of a quota of 0.01 vcore, 0.002 vcore left"'
            in rows["A"])
    assert 'title="priority 1, asks for cpu 0.003 vcore"' in rows["A"]
    assert f'<a href="{url("consumer", "i")}">i</a>' in rows["A"]
    # the bar's track is decoration: its numbers are the text beside it
    assert '<span class="ubar-track" aria-hidden="true">' in rows["A"]


def test_negative_slack_is_said_in_words_and_hard_nodes_are_marked(
    viewer_client, admin, active_sample
):
    context_tree(author=admin)
    rows = node_rows(viewer_client.get(url("tree", "context")).content.decode())
    assert cells(rows["Root"])[2] == (
        "cpu -0.004 vcore over-committed its children are promised 0.004 vcore more than it has"
    )
    assert cells(rows["Org-A"])[2] == "cpu 0.002 vcore"
    assert cells(rows["Org-B"])[0] == "Org-B hard"
    assert cells(rows["Context-4"])[0] == "Context-4 hard"
    assert cells(rows["Context-5"])[0] == "Context-5 soft"


def test_over_quota_is_visible(viewer_client, admin, active_sample):
    context_tree(author=admin)
    services.tree_mode_set(tree="context", mode="maintenance")
    services.tree_allocate(tree="context", body=body("big", "Context-1", 3))
    rows = node_rows(viewer_client.get(url("tree", "context")).content.decode())
    assert cells(rows["Context-1"])[1] == "cpu 0.003 vcore of 0.001 vcore · over by 0.002 vcore"
    assert 'class="ubar lvl-over"' in rows["Context-1"]
    assert ("cpu: 0.003 vcore allocated of a quota of 0.001 vcore, 0.002 vcore over quota"
            in rows["Context-1"])
    assert cells(rows["Org-A"])[1] == "cpu 0.003 vcore of 0.004 vcore · 75 %"


def test_mode_version_and_the_live_scope(viewer_client, admin, active_sample):
    example_with_story(author=admin)
    page = viewer_client.get(url("tree", "example")).content.decode()
    assert 'data-field="mode">normal<' in page
    assert 'data-field="version">1<' in page
    assert 'data-field="consumers">5<' in page
    assert "Version 1 saved by ada at" in text(page)
    assert "Normal: an allocation is placed at the lowest node" in page
    assert 'data-view="quotatree"' in page
    assert 'data-scopes="tree:example"' in page
    assert 'data-partition="default"' in page
    assert "js/quotatree.js" in page
    assert "js/live.js" in page
    # what the page knows of each consumer, for the live view
    assert '<script id="tq-consumers" type="application/json">{"example": {"b": ' \
        '{"group": "N", "priority": 0, "request": {"cpu": 1}}' in page
    # a viewer gets no controls
    assert "Switch to maintenance mode" not in page
    assert "Delete tree" not in page
    assert url("edit", "example") not in page
    assert url("document", "example") in page


def test_the_feed_says_who_preempted_whom_where_and_by_which_priority(
    viewer_client, admin, active_sample
):
    example_with_story(author=admin)
    feed = [row[1:] for row in feed_rows(
        viewer_client.get(url("tree", "example")).content.decode())]
    # newest first: i preempted c, a and e at the root, after its own placement
    assert feed[:3] == [
        ["preempted", victim, "A in example",
         "by i (priority 1 against its 0) at A: pushed out at the root to make room"]
        for victim in ("e", "a", "c")
    ]
    assert feed[3][:3] == ["placed", "i", "A in example"]
    # quotaweb's words, then the steps
    assert feed[3][3].startswith(
        "i is placed at A of tree example: its group I has no room left, so it borrows unused "
        "quota of A. Steps I full (cpu 0 vcore + 0.003 vcore > 0.001 vcore)")
    rejected = [row for row in feed if row[0] == "rejected"]
    assert [row[:3] for row in rejected] == [["rejected", "f", "example"]]
    assert rejected[0][3].startswith(
        "f does not fit tree example: A has 0.002 vcore of cpu left; the consumer asks for "
        "0.003 vcore: 0.001 vcore short. Nothing changed. "
        "Failed to allocate quota on quota designation 'example' Steps")
    # every decision once, and the three preemptions
    assert len(feed) == len(STORY) + 3
