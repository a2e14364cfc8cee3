"""The activity feed takes an application's events together (one row with how many and their
total), filters by type, user, group, queue (and below), denial reason and time, pages back
through every kept event with an "older" link (keyset: ``?before=<event number>``), shows
dates, and answers a bad filter with a clear 400."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from quotaweb.usage import page_selectors
from quotaweb.usage.page_selectors import ERR_BEFORE, ERR_EVENT_TYPE, ERR_WITHIN, EVENT_TYPES
from tests.usage.pages import GiB, allocate, engines_pages, keys, row

pytestmark = pytest.mark.django_db

ACTIVITY = reverse("usage:activity", args=["default"])


@pytest.fixture
def feed(db):
    """Events 1-4: app-1 of alice, four allocations of 1 GiB in root.eng.ml counted against ml;
    5: bob's app-2 in root.ops; 6-9: app-1 released as a whole; 10: alice denied (userQuota)."""
    from quotaweb.allocations.services import application_release

    engines_pages()
    for n in range(4):
        assert allocate(f"a{n}").allowed
    assert allocate("b1", user="bob", app="app-2", queue="root.ops", groups=()).allowed
    application_release(partition="default", application_id="app-1")
    assert not allocate("a9", app="app-9", memory=11 * GiB).allowed


def _get(client, **params) -> str:
    response = client.get(ACTIVITY, params)
    assert response.status_code == 200, response.content.decode()[:300]
    return response.content.decode()


def test_an_applications_events_are_one_row_with_how_many_and_the_total(viewer_client, feed):
    html = _get(viewer_client)
    # Rows are keyed by their oldest event: 10 the denial, 6 the release, 5 bob, 1 the start.
    assert keys(html, "events") == ["10", "6", "5", "1"]
    started = row(html, "1")
    kind = '<span class="ev-kind">allocated</span> <span class="ev-count">&times;4</span>'
    assert kind in started
    assert "in all memory 4 GiB" in started
    assert 'data-sig="4:4"' in started
    released = row(html, "6")
    assert '<span class="ev-count">&times;4</span>' in released
    assert "in all memory 4 GiB" in released
    single = row(html, "5")
    assert "ev-count" not in single
    assert "in all" not in single


def test_times_carry_their_date(viewer_client, feed):
    time = re.search(r"<time datetime=\"[^\"]+\">([^<]+)</time>", row(_get(viewer_client), "5"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", time.group(1))


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"type": "released"}, ["6"]),
        ({"user": "bob"}, ["5"]),
        ({"group": "ml"}, ["10", "6", "1"]),
        ({"queue": "root.eng"}, ["10", "6", "1"]),  # root.eng.ml is under root.eng
        ({"queue": "ROOT.OPS"}, ["5"]),
        ({"queue": "root.en"}, []),  # a queue, not a prefix of a name
        ({"reason": "userQuota"}, ["10"]),
        ({"within": "5"}, ["10", "6", "5", "1"]),
        ({"type": "allocated", "user": "alice"}, ["1"]),
    ],
)
def test_filters(viewer_client, feed, params, expected):
    assert keys(_get(viewer_client, **params), "events") == expected


def test_the_time_filter_leaves_out_older_events(viewer_client, feed, monkeypatch):
    import time

    later = time.time() + 6 * 60
    monkeypatch.setattr(page_selectors.time, "time", lambda: later)
    assert keys(_get(viewer_client, within="5"), "events") == []
    assert keys(_get(viewer_client, within="15"), "events") == ["10", "6", "5", "1"]


def test_older_pages_continue_where_the_page_ended(viewer_client, feed, monkeypatch):
    monkeypatch.setattr(page_selectors, "EVENT_ROWS", 2)
    first = _get(viewer_client)
    assert keys(first, "events") == ["10", "6"]
    assert '<a href="?before=6" rel="next" data-older>Older events</a>' in first
    assert 'data-scopes="events"' in first
    second = _get(viewer_client, before="6")
    assert keys(second, "events") == ["5", "1"]
    assert "data-older" not in second
    assert "This page is older history and stands still" in second
    # An older page stands still: no live scope.
    assert 'data-scopes=""' in second
    # Filters stay on the older pages.
    assert '?user=alice&amp;before=6"' in _get(viewer_client, user="alice")


def test_more_than_two_hundred_rows_can_be_paged_through(viewer_client, db):
    engines_pages()
    for n in range(260):
        # Each its own application (allowed up to bob's five, denied after): 260 rows, more
        # than the old cap of 200.
        allocate(f"m{n}", user="bob", app=f"app-m{n}", queue="root.ops", memory=1, groups=())
    seen: list[str] = []
    before = ""
    while True:
        html = _get(viewer_client, **({"before": before} if before else {}))
        seen += keys(html, "events")
        found = re.search(r'href="\?before=(\d+)" rel="next"', html)
        if not found:
            break
        before = found.group(1)
    assert seen == [str(n) for n in range(260, 0, -1)]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"type": "bogus"}, ERR_EVENT_TYPE.format(choices=", ".join(EVENT_TYPES), value="bogus")),
        ({"within": "7"}, ERR_WITHIN.format(choices="5, 15, 60, 360, 1440", value="7")),
        ({"within": "soon"}, ERR_WITHIN.format(choices="5, 15, 60, 360, 1440", value="soon")),
        ({"before": "x1"}, ERR_BEFORE.format(value="x1")),
        ({"before": "1"}, ERR_BEFORE.format(value="1")),
    ],
)
def test_a_bad_filter_is_a_clear_400(viewer_client, feed, params, message):
    response = viewer_client.get(ACTIVITY, params)
    assert response.status_code == 400
    assert escape(message) in response.content.decode()
