"""One queue's page: its values, effective caps with their sources, limit entries, 404s."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.config.pages import posting_forms

pytestmark = pytest.mark.django_db


def _url(partition: str, path: str) -> str:
    return reverse("config:queue", args=[partition, path])


def test_anonymous_is_sent_to_login(outsider, capped_tree):
    response = outsider.get(_url("default", "root.eng.ml"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


def test_viewer_sees_values_without_edit_controls(viewer_client, capped_tree):
    response = viewer_client.get(_url("default", "root.eng.ml"))
    html = response.content.decode()
    assert response.status_code == 200
    assert posting_forms(html) == []
    assert "memory 9.3 GiB" in html  # guaranteed 10G, in binary units
    assert "(written memory: 10G)" in html


def test_effective_max_comes_from_the_capped_ancestor(viewer_client, capped_tree):
    html = viewer_client.get(_url("default", "root.eng.ml")).content.decode()
    # memory: only root.eng caps it; vcore: ml's own 20 is tighter than eng's 50.
    assert 'data-effective="memory" data-source="root.eng"' in html
    assert "effective memory 93.1 GiB, from <a href=\"/config/queues/default/root.eng/\">" in html
    assert 'data-effective="vcore" data-source="root.eng.ml"' in html
    assert "effective 20 vcore, from this queue" in html
    assert 'data-effective="nvidia.com/gpu" data-source="root.eng.ml"' in html
    assert 'data-effective="applications" data-source="root.eng.ml"' in html


def test_effective_max_of_a_queue_without_its_own_max(viewer_client, capped_tree):
    html = viewer_client.get(_url("default", "root.eng.web")).content.decode()
    assert 'data-effective="memory" data-source="root.eng"' in html
    assert 'data-effective="vcore" data-source="root.eng"' in html
    assert "none set on this queue" in html


def test_unlimited_queue_says_so(viewer_client, capped_tree):
    html = viewer_client.get(_url("gpu", "root.training")).content.decode()
    assert "unlimited: neither this queue nor an ancestor sets a max" in html
    assert "This queue has no limit entries" in html


def test_limit_entries_in_order_with_wildcard_rules(viewer_client, capped_tree):
    html = viewer_client.get(_url("default", "root.eng.ml")).content.decode()
    positions = [html.index(f'data-limit="{n}"') for n in range(1, 5)]
    assert positions == sorted(positions)
    assert "1. lead" in html
    assert "4. other groups" in html
    assert '<code class="token">alice</code>' in html
    assert "memory 7.5 GiB" in html
    assert "4 vcore" in html
    assert "A user wildcard must come last" in html
    assert "needs a limit naming a group before it" in html
    assert "Each listed user gets these caps separately." in html


def test_queue_path_is_case_insensitive(viewer_client, capped_tree):
    assert viewer_client.get(_url("default", "Root.ENG.ml")).status_code == 200


def test_unknown_queue_is_a_404_that_names_it(viewer_client, capped_tree):
    response = viewer_client.get(_url("default", "root.eng.nope"))
    assert response.status_code == 404
    assert b"There is no queue &#x27;root.eng.nope&#x27; in partition &#x27;default&#x27;" in (
        response.content
    )


def test_unknown_partition_is_a_404_that_names_it(viewer_client, capped_tree):
    response = viewer_client.get(_url("nowhere", "root"))
    assert response.status_code == 404
    assert b"There is no partition &#x27;nowhere&#x27;" in response.content


def test_viewer_post_is_refused(viewer_client, capped_tree):
    assert viewer_client.post(_url("default", "root.eng.ml")).status_code == 403


def test_query_count_is_fixed(viewer_client, capped_tree, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):
        assert viewer_client.get(_url("default", "root.eng.ml")).status_code == 200
