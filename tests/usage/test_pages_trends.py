"""Trends: a user's, group's or queue's sampled usage over the last days as server-drawn SVG charts
(with a table of the figures) and as CSV; and the users table's sparklines of the last hour."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from quotaweb.usage import page_selectors, selectors, views
from quotaweb.usage.services import usage_sample
from tests.config.pages import posting_forms
from tests.usage.pages import (
    ODD_USER,
    GiB,
    allocate,
    engines_busy,
    engines_pages,
    keys,
    row,
    shown,
)

pytestmark = pytest.mark.django_db

ALICE = reverse("usage:trends", args=["default", "user", "alice"])
BREADCRUMB = "\u203a"
USERS = reverse("usage:users", args=["default"])


def _trends(kind: str, name: str, partition: str = "default") -> str:
    return reverse("usage:trends", args=[partition, kind, name])


@pytest.fixture
def sampled(db):
    """alice at 9 GiB for three samples 20 minutes ago, then at 10 GiB (two applications) for
    two; one sample two days ago. Answers the sample times, oldest first."""
    engines_busy()
    now = timezone.now().replace(microsecond=0)
    times = [now - timedelta(minutes=m) for m in (20, 19, 18, 17, 16)]
    usage_sample(now=now - timedelta(days=2))
    for at in times[:3]:
        usage_sample(now=at)
    assert allocate("a3", app="app-9", memory=GiB).allowed
    for at in times[3:]:
        usage_sample(now=at)
    return times


def _get(client, url: str, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200
    return response.content.decode()


def _clock(at) -> str:
    return f"{timezone.localtime(at):%H:%M}"


# -- the page ------------------------------------------------------------------------------------


def test_a_chart_per_resource_and_one_of_running_applications(viewer_client, sampled):
    html = _get(viewer_client, ALICE)
    assert re.findall(r'<figure class="chart" data-chart="([^"]*)"', html) == [
        "memory", "applications",
    ]
    assert html.count('<svg class="chart-svg" width="100%"') == 2
    assert "<script" not in html.split("<main", 1)[1]  # drawn by the server, no library
    assert "Trends of user <code>alice</code>" in html
    assert "5 samples from" in html  # the last day only: not the one two days ago


def test_the_axes_are_in_human_units_and_times(viewer_client, sampled):
    html = _get(viewer_client, ALICE)
    memory = html.split('data-chart="memory"', 1)[1].split("</figure>", 1)[0]
    # 10 GiB at most under a 20 GiB limit (the scale reaches the limit's line): round steps of
    # 5 GiB (binary, as the labels read), the raw value on hover.
    y_labels = re.findall(r'<g class="chart-y">(.*?)</g>', memory)[0]
    assert re.findall(r"</title>([^<]*)</text>", y_labels) == [
        "0 GiB", "5 GiB", "10 GiB", "15 GiB", "20 GiB",
    ]
    assert f"<title>{5 * GiB} bytes</title>5 GiB" in y_labels
    x_labels = re.findall(r"</title>(\d\d:\d\d)</text>", memory.split('class="chart-x"', 1)[1])
    assert x_labels, "no time on the x axis"
    apps = html.split('data-chart="applications"', 1)[1].split("</figure>", 1)[0]
    # 2 running under a limit of 5: steps of 2 up to the first past the limit.
    assert re.findall(r"</title>([^<]*)</text>", apps.split('class="chart-y"', 1)[1]) == [
        "0", "2", "4", "6",
    ]


def test_the_caption_and_the_hover_say_the_figures(viewer_client, sampled):
    html = _get(viewer_client, ALICE)
    latest = sampled[-1]
    assert f"latest sample 10 GiB at {_clock(latest)}" in html
    assert "peak 10 GiB at" in html
    assert f"<title>{_clock(sampled[0])}: memory 9 GiB ({9 * GiB} bytes)</title>" in html
    assert 'role="img" aria-label="memory from ' in html


def test_a_table_holds_the_same_figures_for_screen_readers(viewer_client, sampled):
    html = _get(viewer_client, ALICE)
    table = html.split('data-rows="samples"', 1)[1].split("</tbody>", 1)[0]
    assert f'<td class="num" title="{10 * GiB} bytes">10 GiB</td>' in table
    assert '<td class="num" title="2">2</td>' in table
    assert "The highest value in each span of up to" in html
    assert '<th scope="col" class="num">running applications</th>' in html


def test_charts_read_in_light_and_dark_themes(viewer_client, sampled):
    """The SVG takes its colours from the stylesheet's theme variables, not fixed colours."""
    from pathlib import Path

    html = _get(viewer_client, ALICE)
    charts = "".join(re.findall(r'<svg class="chart-svg".*?</svg>\s*</figure>', html, re.S))
    assert not re.search(r'(fill|stroke)="#', charts)
    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "app.css").read_text()
    assert ".chart-line { fill: none; stroke: var(--accent)" in css
    assert ".chart-svg text { fill: var(--muted)" in css


def test_a_gap_in_the_samples_is_a_gap_in_the_line(viewer_client, db):
    engines_busy()
    now = timezone.now()
    for minutes in (30, 29, 5):
        usage_sample(now=now - timedelta(minutes=minutes))
    html = _get(viewer_client, ALICE)
    line = re.search(r'class="chart-line" d="([^"]*)"', html).group(1)
    assert line.count("M") == 2
    assert "A gap in a line means no sample then" in html


@override_settings(QUOTAWEB_TREND_DAYS=3)
@pytest.mark.parametrize(("days", "shown_samples"), [("1", 5), ("3", 6), ("", 5)])
def test_days_choose_how_far_back(viewer_client, sampled, days, shown_samples):
    html = _get(viewer_client, ALICE, days=days)
    assert f"{shown_samples} samples from" in html
    expected = days or "1"
    assert f'<a href="?days={expected}" aria-current="page">' in html
    assert '<a href="?days=2">2 days</a>' in html


@override_settings(QUOTAWEB_TREND_DAYS=7)
@pytest.mark.parametrize("days", ["0", "8", "-1", "1.5", "abc", "\uff17"])
def test_days_out_of_range_are_a_400_that_says_what_is_allowed(viewer_client, sampled, days):
    for params in ({"days": days}, {"days": days, "format": "csv"}):
        response = viewer_client.get(ALICE, params)
        assert response.status_code == 400
        html = response.content.decode()
        assert views.TITLE_BAD_REQUEST in html
        assert escape(page_selectors.ERR_DAYS.format(most=7, value=days)) in html


def test_an_unknown_format_is_a_400(viewer_client, sampled):
    response = viewer_client.get(ALICE, {"format": "xml"})
    assert response.status_code == 400
    assert escape(views.ERR_FORMAT.format(value="xml")) in response.content.decode()


@pytest.mark.parametrize("kind", ["users", "app", "User"])
def test_an_unknown_kind_is_a_404_that_says_which_kinds_there_are(viewer_client, sampled, kind):
    response = viewer_client.get(_trends(kind, "alice"))
    assert response.status_code == 404
    html = response.content.decode()
    assert views.TITLE_NOT_FOUND in html
    assert escape(page_selectors.ERR_TREND_KIND.format(kind=kind)) in html


def test_an_unknown_partition_is_a_404(viewer_client, sampled):
    response = viewer_client.get(_trends("user", "alice", partition="nope"))
    assert response.status_code == 404
    message = page_selectors.ERR_UNKNOWN_PARTITION.format(partition="nope", known="default, gpu")
    assert escape(message) in response.content.decode()


@override_settings(QUOTAWEB_TREND_SAMPLE_SECONDS=30)
def test_without_samples_the_page_says_how_often_sampling_runs(viewer_client, db):
    engines_pages()
    html = _get(viewer_client, _trends("user", "zoe"))
    assert shown(html, "data-empty")
    assert "No samples of user zoe in the last day." in html
    assert "every 30 s" in html
    assert "Nothing has been sampled yet" in html
    assert '<a href="?days=7">the last 7 days</a>' in html
    assert "data-csv" not in html
    assert "<figure" not in html


def test_groups_and_queues_have_trends_too(viewer_client, sampled):
    ml = _get(viewer_client, _trends("group", "ml"))
    assert "Trends of group <code>ml</code>" in ml
    assert "5 samples from" in ml
    queue = _get(viewer_client, _trends("queue", "ROOT.Eng"))
    assert "Trends of queue <code>root.eng</code>" in queue
    assert "Usage of all users in the queue" in queue
    # alice's 10 GiB and the odd user's 1 GiB.
    assert "latest sample 11 GiB at" in queue
    eng = reverse("usage:queue", args=["default", "root.eng"])
    crumbs = f'<a href="{eng}">eng</a> {BREADCRUMB} Trends'
    assert crumbs in queue


def test_odd_user_names_are_reachable(viewer_client, sampled):
    url = _trends("user", ODD_USER)
    assert url == "/usage/default/trends/user/ci/runner@corp%231:x/"
    html = _get(viewer_client, url)
    assert "Trends of user <code>ci/runner@corp#1:x</code>" in html
    assert "latest sample 1 GiB at" in html


def test_the_user_group_and_queue_pages_link_to_their_trends(viewer_client, sampled):
    for page, trends in [
        (reverse("usage:user", args=["default", ODD_USER]), _trends("user", ODD_USER)),
        (reverse("usage:group", args=["default", "ml"]), _trends("group", "ml")),
        (reverse("usage:queue", args=["default", "root.eng"]), _trends("queue", "root.eng")),
    ]:
        assert f'<a href="{trends}" data-trends>Trends</a>' in _get(viewer_client, page)


def test_the_navigation_stays_in_the_list_the_trend_belongs_to(viewer_client, sampled):
    html = _get(viewer_client, ALICE)
    assert f'<a href="{USERS}" aria-current="page">Users</a>' in html
    assert f'<a href="{reverse("usage:users", args=["gpu"])}">gpu</a>' in html


# -- CSV -----------------------------------------------------------------------------------------


def test_csv_export_of_the_samples(viewer_client, sampled):
    response = viewer_client.get(ALICE, {"format": "csv", "days": "1"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="usage-default-user-alice-1d.csv"'
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["time", "memory_bytes", "running_applications"]
    assert rows[1] == [sampled[0].isoformat(), str(9 * GiB), "1"]
    assert rows[-1] == [sampled[-1].isoformat(), str(10 * GiB), "2"]
    since = timezone.now() - timedelta(days=1)
    trend = selectors.usage_trend(partition="default", kind="user", name="alice", since=since)
    assert rows == selectors.trend_csv_rows(trend)
    assert 'href="?days=1&amp;format=csv" download data-csv' in _get(viewer_client, ALICE)


def test_csv_file_names_are_safe_and_days_widen_the_export(viewer_client, sampled):
    response = viewer_client.get(_trends("user", ODD_USER), {"format": "csv", "days": "3"})
    assert response["Content-Disposition"] == (
        'attachment; filename="usage-default-user-ci_runner_corp_1_x-3d.csv"'
    )
    alice = viewer_client.get(ALICE, {"format": "csv", "days": "3"}).content.decode()
    assert len(alice.strip().splitlines()) == 1 + 6  # the header, and the sample 2 days ago too


def test_csv_without_samples_is_just_the_header(viewer_client, sampled):
    response = viewer_client.get(_trends("user", "zoe"), {"format": "csv"})
    assert response.status_code == 200
    assert response.content.decode().splitlines() == ["time,running_applications"]


# -- who may read --------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [{}, {"format": "csv"}])
def test_anonymous_visitors_are_sent_to_log_in(outsider, db, params):
    response = outsider.get(ALICE, params)
    assert response.status_code == 302
    assert response["Location"].startswith(f"{reverse('accounts:login')}?next={ALICE}")


def test_a_viewer_reads_trends_and_sees_no_control_that_changes_anything(viewer_client, sampled):
    assert posting_forms(_get(viewer_client, ALICE)) == []


def test_the_page_only_reads(quota_admin_client, sampled):
    assert quota_admin_client.post(ALICE).status_code == 405


def test_without_engines_the_page_says_the_server_is_starting(viewer_client, db):
    response = viewer_client.get(ALICE)
    assert response.status_code == 503
    assert escape(views.ERR_STARTING) in response.content.decode()


# -- the users table's sparklines ----------------------------------------------------------------


def test_each_user_has_a_sparkline_of_their_last_hour(viewer_client, sampled):
    html = _get(viewer_client, USERS)
    alice = row(html, "alice")
    spark = re.search(r'<td class="spark" data-keep[^>]*><svg class="sparkline".*?</td>', alice)
    spark = spark.group(0)
    assert 'viewBox="0 0 60 20"' in spark
    title = (
        f"memory in the last hour: latest sample 10 GiB at {_clock(sampled[-1])}, "
        f"peak 10 GiB ({10 * GiB} bytes)"
    )
    assert f'aria-label="{title}"' in spark
    assert f"<title>{title}</title>" in spark
    # Five samples a minute apart, 9 GiB then 10 GiB: a line ending at the top.
    path = re.search(r'<path d="([^"]*)"', spark).group(1)
    assert path.startswith("M")
    assert path.count("L") == 4
    assert path.endswith(" 1")
    assert '<span class="spark-kind">memory</span>' in spark
    assert '<th scope="col"><abbr title="Usage at root sampled over the last hour' in html


def test_a_user_without_recent_samples_has_a_dash(viewer_client, db):
    engines_busy()
    usage_sample(now=timezone.now() - timedelta(hours=2))
    html = _get(viewer_client, USERS)
    assert 'title="No usage sampled in the last hour">&ndash;</span>' in row(html, "alice")


def test_the_sparklines_cost_one_query_however_many_users_there_are(viewer_client, db):
    engines_busy()
    usage_sample(now=timezone.now() - timedelta(minutes=2))

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _get(viewer_client, USERS)
        return len(captured)

    few = queries()
    for n in range(8):
        assert allocate(f"m{n}", user=f"member{n}", app=f"app-m{n}", queue="root.ops",
                        memory=GiB, groups=()).allowed
    for minutes in (2, 1):
        usage_sample(now=timezone.now() - timedelta(minutes=minutes))
    html = _get(viewer_client, USERS)
    assert html.count('<svg class="sparkline"') == 3 + 8
    assert queries() == few


def test_sparklines_are_drawn_for_the_users_on_the_page(viewer_client, sampled, monkeypatch):
    monkeypatch.setattr(page_selectors, "PAGE_ROWS", 2)
    first = _get(viewer_client, USERS, sort="apps")  # alice (2), bob (1), the odd user (1)
    assert keys(first, "users") == ["alice", "bob"]
    assert first.count('<svg class="sparkline"') == 2
    second = _get(viewer_client, USERS, sort="apps", page="2")
    assert keys(second, "users") == [ODD_USER]
    assert '<svg class="sparkline"' in row(second, ODD_USER)


def test_the_sparkline_cell_is_left_alone_by_live_updates(viewer_client, sampled):
    """live.js draws an empty cell marked ``data-keep`` where the server drew the sparkline, and
    its row updates replace no cell so marked."""
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "static" / "js" / "live.js").read_text()
    cell = 'h("td", { class: "spark", "data-keep": true, "data-label": "Last hour" })'
    assert f"usersList ? {cell} : null" in script
    assert '!cell.hasAttribute("data-keep")' in script
