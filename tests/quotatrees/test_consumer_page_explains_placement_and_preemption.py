"""``/trees/consumers/<id>/`` answers why a consumer is where it is: per tree its node, its
group, whether it borrows, its priority and request and the reasons; and its history newest
first: placements with their steps, rejections with the message, preemptions with who, where
and by which priority. An id nobody knows is a 404."""

from __future__ import annotations

import pytest

from tests.quotatrees.pages import cells, example_with_story, text, url

pytestmark = pytest.mark.django_db


def test_a_borrower_is_explained(viewer_client, admin, active_sample):
    example_with_story(author=admin)
    response = viewer_client.get(url("consumer", "b"))
    assert response.status_code == 200
    page = response.content.decode()
    placed = page.split("data-placements>", 1)[1].split("</tbody>", 1)[0]
    row = cells(placed.split('<tr data-key="example">', 1)[1])
    # cpu counts millicores
    assert row[:5] == ["example", "H borrowing from N", "N", "0", "cpu 0.001 vcore"]
    assert row[5] == "slid up from N to H to make room for d"
    history = text(page.split("data-history>", 1)[1].split("</ol>\n", 1)[0])
    assert "placed at N in example" in history
    # the steps say amounts as the page does
    assert "placed at N (cpu 0.001 vcore + 0.001 vcore <= 0.002 vcore)" in history


def test_a_preempted_consumer_says_by_whom_where_and_by_which_priority(
    viewer_client, admin, active_sample
):
    example_with_story(author=admin)
    page = viewer_client.get(url("consumer", "c")).content.decode()
    assert "Not allocated on any tree now." in page
    assert text(page.split("<p data-preemption>", 1)[1].split("</p>", 1)[0]) == (
        "Preempted by i (priority 1 against its 0) at node A of tree example: pushed out at "
        "the root to make room."
    )
    assert f'<a href="{url("consumer", "i")}">i</a>' in page
    # newest first: the preemption, then where it was placed
    assert page.index("preempted</strong>") < page.index("placed</strong>")


def test_a_rejection_keeps_its_reasons(viewer_client, admin, active_sample):
    example_with_story(author=admin)
    page = text(viewer_client.get(url("consumer", "f")).content.decode())
    assert "rejected on example" in page
    assert "Failed to allocate quota on quota designation 'example'" in page
    assert "A full (cpu 0.008 vcore + 0.003 vcore > 0.01 vcore)" in page
    assert "priority 0: no preemption (only priorities above 0 preempt)" in page


def test_an_unknown_consumer_is_404(viewer_client, active_sample):
    response = viewer_client.get(url("consumer", "nobody"))
    assert response.status_code == 404
    assert "No consumer 'nobody' is allocated on any tree" in text(response.content.decode())


def test_an_id_with_a_slash_has_its_page(viewer_client, admin, active_sample):
    from quotaweb.quotatrees import services
    from tests.quotatrees.support import body

    example_with_story(author=admin)
    services.tree_allocate(tree="example", body=body("team/job-1", "M", 1))
    assert url("consumer", "team/job-1") == "/trees/consumers/team/job-1/"
    page = viewer_client.get(url("consumer", "team/job-1")).content.decode()
    assert "Consumer <code>team/job-1</code>" in page
    tree_page = viewer_client.get(url("tree", "example")).content.decode()
    assert 'href="/trees/consumers/team/job-1/"' in tree_page
