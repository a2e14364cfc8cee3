"""The queue tree page: the queues of the active rows (as many levels as fit a screen, the rest
opened on demand: tests/config/test_tree_page_stays_light.py), read-only, searchable without
scripts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.config.pages import apply, posting_forms
from tests.configs import CAPPED_TREE_YAML

pytestmark = pytest.mark.django_db

TREE = reverse("config:tree")


def test_anonymous_is_sent_to_login(outsider):
    response = outsider.get(TREE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


def test_empty_state_without_configuration(viewer_client):
    response = viewer_client.get(TREE)
    assert response.status_code == 200
    assert b"No configuration has been applied yet" in response.content


def test_tree_renders_every_queue_of_the_sample(viewer_client, sample_yaml):
    from trackers import parse_config

    apply(sample_yaml)
    response = viewer_client.get(TREE)
    html = response.content.decode()
    assert response.status_code == 200
    config = parse_config(sample_yaml)
    paths = [(p.name, q.path) for p in config.partitions for q in p.queues()]
    assert len(paths) == 20
    for partition, path in paths:
        assert f'data-path="{path}"' in html
        assert reverse("config:queue", args=[partition, path]) in html
    assert html.count('<li class="cq') == len(paths)


def test_viewer_sees_no_edit_controls(viewer_client, sample_yaml):
    apply(sample_yaml)
    html = viewer_client.get(TREE).content.decode()
    assert posting_forms(html) == []
    assert "Read only" in html
    assert 'method="get"' in html  # the search works without scripts


def test_each_queue_shows_max_guaranteed_apps_and_limit_count(viewer_client):
    apply(CAPPED_TREE_YAML)
    html = viewer_client.get(TREE).content.decode()
    ml = html.split('data-path="root.eng.ml"', 1)[1].split("</li>", 1)[0]
    assert "guaranteed memory 9.3 GiB" in ml
    assert "max nvidia.com/gpu 4, 20 vcore" in ml
    assert 'data-limit-count="4"' in ml
    eng = html.split('data-path="root.eng"', 1)[1].split("<ul", 1)[0]
    assert "≤ 10 apps" in eng
    assert "max memory 93.1 GiB, 50 vcore" in eng
    assert "<details open>" in html  # the roots start open, the rest collapsed


def test_search_marks_matches_and_opens_their_ancestors(viewer_client):
    apply(CAPPED_TREE_YAML)
    response = viewer_client.get(TREE, {"q": "M"})
    html = response.content.decode()
    assert "1 queue match “m”" in html
    assert "<mark>m</mark>l" in html
    assert reverse("config:queue", args=["default", "root.eng.ml"]) in html
    eng = html.split('data-path="root.eng"', 1)[1].split("</summary>", 1)[0]
    assert "<details open>" in html.split('data-path="root.eng"', 1)[1].split("<ul", 1)[0]
    assert "<mark>" not in eng


def test_tree_page_loads_its_script_as_a_module(viewer_client):
    apply(CAPPED_TREE_YAML)
    html = viewer_client.get(TREE).content.decode()
    assert '<script type="module" src="/static/js/queue-tree.js"></script>' in html


def _wide_yaml(teams: int, per_team: int) -> str:
    lines = ["partitions:", "  - name: default", "    queues:", "      - name: root",
             "        queues:"]
    for team in range(teams):
        lines += [f"          - name: team{team}", "            resources:",
                  "              max: {memory: 10Gi}", "            limits:",
                  "              - users: ['*']", "                maxapplications: 5",
                  "            queues:"]
        lines += [f"              - name: q{index}" for index in range(per_team)]
    return "\n".join(lines) + "\n"


def test_query_count_does_not_grow_with_the_queues(viewer_client, django_assert_max_num_queries):
    apply(_wide_yaml(teams=20, per_team=15))  # 321 queues
    with django_assert_max_num_queries(8):
        response = viewer_client.get(TREE)
    assert response.status_code == 200
    # The root and its teams; each team's queues come when it is opened (a fragment).
    html = response.content.decode()
    assert html.count("data-path=") == 21
    assert html.count('<li class="cq-load">') == 20
