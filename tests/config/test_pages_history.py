"""The version history, one version's YAML and download, and the diff between two versions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.config.pages import apply, posting_forms
from tests.configs import CAPPED_TREE_YAML

pytestmark = pytest.mark.django_db

HISTORY = reverse("config:versions")
TIGHTER = CAPPED_TREE_YAML.replace("maxresources: {memory: 2G}", "maxresources: {memory: 1G}")


@pytest.fixture
def three_versions(admin, django_user_model):
    bob = django_user_model.objects.create_user("bob", password="pw")
    first = apply(CAPPED_TREE_YAML, author=admin, comment="first import")
    second = apply(TIGHTER, author=bob, comment="tighten the wildcard user")
    third = apply(
        TIGHTER.replace("          - name: training\n",
                        "          - name: training\n          - name: serving\n"),
        author=None, comment="",
    )
    return first, second, third


def test_anonymous_is_sent_to_login(outsider):
    for url in (HISTORY, reverse("config:version", args=[1]), reverse("config:diff", args=[1])):
        response = outsider.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))


def test_empty_history(viewer_client):
    response = viewer_client.get(HISTORY)
    assert response.status_code == 200
    assert b"No configuration version has been stored yet" in response.content


def test_history_newest_first_with_author_comment_summary(viewer_client, three_versions, admin):
    html = viewer_client.get(HISTORY).content.decode()
    assert posting_forms(html) == []
    rows = [html.index(f'data-version="{n}"') for n in (3, 2, 1)]
    assert rows == sorted(rows)
    row2 = html[rows[1]:rows[2]]
    assert "bob" in row2
    assert "tighten the wildcard user" in row2
    assert "limit 2 of root.eng.ml (default) changed" in row2
    row1 = html[rows[2]:]
    assert f"<td data-author>{admin.get_username()}</td>" in row1
    assert "first version: 2 partition(s), 6 queue(s)" in row1
    assert "first import" in row1
    row3 = html[rows[0]:rows[1]]
    assert "queue root.serving (gpu) added" in row3
    assert "system" in row3
    assert "no comment" in row3
    assert "data-active" in row3
    assert "data-active" not in row2


def test_version_page_shows_yaml_and_download_link(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:version", args=[2]))
    html = response.content.decode()
    assert response.status_code == 200
    assert posting_forms(html) == []
    assert "maxresources: {memory: 1G}" in html
    assert 'href="?download=1"' in html


def test_yaml_download_headers(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:version", args=[1]), {"download": "1"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    assert response["Content-Disposition"] == 'attachment; filename="quotaweb-config-v1.yaml"'
    assert response.content.decode() == CAPPED_TREE_YAML


def test_diff_shows_a_changed_limit(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:diff", args=[2]), {"against": "1"})
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-kind="limit" data-change="changed" data-queue="root.eng.ml"' in html
    assert "limit 2 of root.eng.ml (default) changed" in html
    field = html.split('data-field="max_resources"', 1)[1].split("</tr>", 1)[0]
    assert '<td class="old">memory 2G</td><td class="new">memory 1G</td>' in field
    # the field in words, as the draft's list of staged changes says it
    assert '<th scope="row">max resources</th>' in field
    assert '<span class="diff-del"><span class="visually-hidden">removed: </span>-' in html
    assert "maxresources: {memory: 2G}" in html
    assert '<span class="diff-add"><span class="visually-hidden">added: </span>+' in html


def test_diff_defaults_to_the_previous_version(viewer_client, three_versions):
    html = viewer_client.get(reverse("config:diff", args=[3])).content.decode()
    assert "queue root.serving (gpu) added" in html
    assert "Changes from version" in html


def test_diff_of_identical_configs_says_so(viewer_client, three_versions):
    html = viewer_client.get(reverse("config:diff", args=[2]), {"against": "2"}).content.decode()
    assert "configure the same queues and limits" in html


def test_bad_against_is_a_400_with_a_message(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:diff", args=[2]), {"against": "two"})
    assert response.status_code == 400
    assert b"must be a version number" in response.content


def test_first_version_has_nothing_to_compare(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:diff", args=[1]))
    assert response.status_code == 400
    assert b"Version 1 is the first version" in response.content


@pytest.mark.parametrize(
    ("url", "query", "message"),
    [
        ("config:version", {}, b"There is no configuration version 9"),
        ("config:diff", {"against": "1"}, b"There is no configuration version 9"),
    ],
)
def test_unknown_version_is_a_404(viewer_client, three_versions, url, query, message):
    response = viewer_client.get(reverse(url, args=[9]), query)
    assert response.status_code == 404
    assert message in response.content


def test_unknown_against_is_a_404(viewer_client, three_versions):
    response = viewer_client.get(reverse("config:diff", args=[2]), {"against": "42"})
    assert response.status_code == 404
    assert b"There is no configuration version 42" in response.content


def test_history_query_count_is_fixed(viewer_client, three_versions, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):
        assert viewer_client.get(HISTORY).status_code == 200
