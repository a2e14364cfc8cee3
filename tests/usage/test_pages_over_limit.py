"""The over-limit list: every user and group above a limit as of the last usage sample, since when
(and for how long) and by how much, linked from the overview and the usage pages' navigation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from quotaweb.usage import page_selectors, views
from quotaweb.usage.services import usage_sample
from tests.config.pages import posting_forms
from tests.configs import PAGES_YAML
from tests.usage.pages import GiB, allocate, engines_busy, engines_pages, keys, row

pytestmark = pytest.mark.django_db

OVER = reverse("usage:over_limit", args=["default"])
# alice's own limit at root.eng down from 10Gi and 2 applications, ml's from 16Gi.
TIGHTER = PAGES_YAML.replace(
    'maxresources: {memory: 10Gi, vcore: "8"}\n                maxapplications: 2',
    'maxresources: {memory: 4Gi, vcore: "8"}\n                maxapplications: 1',
).replace("maxresources: {memory: 16Gi}", "maxresources: {memory: 8Gi}")
# alice after one more application: 9.25 GiB in two applications, both counted against ml.
ALICE_USES = 9 * GiB + GiB // 4


def _tighten() -> None:
    from quotaweb.config.services import config_apply

    assert TIGHTER != PAGES_YAML
    config_apply(yaml_text=TIGHTER, author=None, base_version=1)


@pytest.fixture
def over(db):
    """alice and ml above their tightened limits at root.eng since ``first``, last sampled at
    ``last`` (2 h 5 min later, just now)."""
    engines_busy()
    assert allocate("a3", app="app-9", memory=GiB // 4).allowed
    last = timezone.now()
    first = last - timedelta(hours=2, minutes=5)
    usage_sample(now=first - timedelta(minutes=1))  # under every limit still
    _tighten()
    usage_sample(now=first)
    usage_sample(now=last)
    return first, last


def _page(client, url: str = OVER) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _quantity(value: int) -> str:
    from trackers.resources import format_quantity

    return format_quantity("memory", value)


def test_every_user_and_group_over_a_limit_longest_first(viewer_client, over):
    html = _page(viewer_client)
    assert keys(html, "over-limit") == ["user:alice@root.eng", "group:ml@root.eng"]
    assert "2 limits exceeded by 1 user and 1 group, longest first." in html


def test_a_row_says_since_when_for_how_long_and_by_how_much(viewer_client, over):
    first, _ = over
    alice = row(_page(viewer_client), "user:alice@root.eng")
    since = timezone.localtime(first)
    assert f'<time datetime="{since.isoformat()}">{since:%Y-%m-%d %H:%M}</time>' in alice
    assert "for 2 h 5 min" in alice
    over_by = _quantity(ALICE_USES - 4 * GiB)
    assert f'<strong class="over-by">memory {over_by}, 1 running application</strong>' in alice
    # Usage there against each limited resource, in human units; raw values on hover.
    assert f"{_quantity(ALICE_USES)} of {_quantity(4 * GiB)} · over by {over_by}" in alice
    assert "0 vcore of 8 vcore · 0 %" in alice
    assert "2 of 1 · over by 1" in alice
    assert 'class="ubar lvl-over"' in alice
    assert f"memory: {ALICE_USES} bytes used of {4 * GiB} bytes" in alice
    assert (
        f"uses memory {_quantity(ALICE_USES)} · limit memory {_quantity(4 * GiB)}, 8 vcore, "
        "1 running application"
    ) in alice
    ml = row(_page(viewer_client), "group:ml@root.eng")
    assert f'<strong class="over-by">memory {_quantity(ALICE_USES - 8 * GiB)}</strong>' in ml


def test_rows_link_to_the_user_group_queue_limit_and_trends(viewer_client, over):
    html = _page(viewer_client)
    alice, ml = row(html, "user:alice@root.eng"), row(html, "group:ml@root.eng")
    assert f'<a href="{reverse("usage:user", args=["default", "alice"])}">alice</a>' in alice
    assert f'<a href="{reverse("usage:group", args=["default", "ml"])}">ml</a>' in ml
    assert f'<a href="{reverse("usage:queue", args=["default", "root.eng"])}">root.eng</a>' in alice
    limit = reverse("config:queue", args=["default", "root.eng"])
    assert f'<a href="{limit}">the limit</a>' in alice
    trends = reverse("usage:trends", args=["default", "user", "alice"])
    assert f'<a href="{trends}">Trends</a>' in alice
    assert f'<a href="{reverse("usage:trends", args=["default", "group", "ml"])}">' in ml


def test_the_list_says_when_the_last_sample_was_and_how_often(viewer_client, over):
    _, last = over
    html = _page(viewer_client)
    at = timezone.localtime(last)
    assert (
        f'As of the last sample, <time datetime="{at.isoformat()}">{at:%Y-%m-%d %H:%M:%S}</time>'
    ) in html
    assert "The server samples usage every 60 s and refreshes this list with each sample." in html
    assert f"sample of {at:%H:%M:%S}" in html  # the header's badge
    assert "data-stale" not in html


def test_an_old_last_sample_warns_that_the_list_may_be_out_of_date(viewer_client, db):
    engines_busy()
    usage_sample(now=timezone.now() - timedelta(minutes=10))
    html = _page(viewer_client)
    assert "data-stale" in html
    assert "No sample for 10 min" in html


@override_settings(QUOTAWEB_TREND_SAMPLE_SECONDS=30)
def test_back_under_the_limit_empties_the_list_and_the_empty_list_says_what_it_is_for(
    viewer_client, over
):
    from quotaweb.allocations import services as allocations

    for key in ("a1", "a3"):
        allocations.allocation_release(partition="default", key=key)
    usage_sample(now=timezone.now())
    html = _page(viewer_client)
    assert "data-rows" not in html
    assert "Nobody is above a limit in this partition as of the last sample." in html
    assert "typically happens after a limit was tightened" in html
    assert "It is refreshed with every sample (every 30 s)." in html


def test_before_any_sample_the_list_says_so(viewer_client, db):
    engines_pages()
    html = _page(viewer_client)
    assert "No usage has been sampled yet." in html
    assert "Nobody is above a limit in this partition." in html
    assert "no sample yet" in html


def test_the_overview_counts_them_and_every_usage_page_links_to_the_list(viewer_client, over):
    overview = _page(viewer_client, reverse("usage:overview", args=["default"]))
    assert f'<a href="{OVER}" title="' in overview
    assert "data-over-limit>2</a>" in overview
    users = _page(viewer_client, reverse("usage:users", args=["default"]))
    assert f'<a href="{OVER}">Over limit</a>' in users
    assert f'<a href="{OVER}" aria-current="page">Over limit</a>' in _page(viewer_client)


def test_the_other_partitions_list_is_one_click_away(viewer_client, over):
    html = _page(viewer_client)
    gpu = reverse("usage:over_limit", args=["gpu"])
    assert f'<a href="{gpu}">gpu</a>' in html
    assert "Nobody is above a limit" in _page(viewer_client, gpu)


def test_anonymous_visitors_are_sent_to_log_in(outsider, db):
    response = outsider.get(OVER)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('accounts:login')}?next={OVER}"


def test_a_viewer_reads_it_and_sees_no_control_that_changes_anything(viewer_client, over):
    assert posting_forms(_page(viewer_client)) == []


def test_the_page_only_reads(quota_admin_client, over):
    assert quota_admin_client.post(OVER).status_code == 405


def test_an_unknown_partition_is_a_404_that_says_so(viewer_client, over):
    response = viewer_client.get(reverse("usage:over_limit", args=["nope"]))
    assert response.status_code == 404
    html = response.content.decode()
    assert views.TITLE_NOT_FOUND in html
    message = page_selectors.ERR_UNKNOWN_PARTITION.format(partition="nope", known="default, gpu")
    assert escape(message) in html
