"""The activity feed: allocations, releases and denials, newest first; a denial says who, where,
which limit and the numbers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import engines_busy, engines_pages, keys, row, shown

pytestmark = pytest.mark.django_db

ACTIVITY = reverse("usage:activity", args=["default"])


@pytest.fixture
def busy(db):
    return engines_busy()


def test_events_newest_first(viewer_client, busy):
    from quotaweb.allocations.services import allocation_release

    allocation_release(partition="default", key="b1")
    html = viewer_client.get(ACTIVITY).content.decode()
    assert keys(html, "events") == ["5", "4", "3", "2", "1"]
    assert 'class="ev ev-released"' in row(html, "5")
    allocated = row(html, "1")
    assert '<span class="ev-kind">allocated</span>' in allocated
    assert "memory 9 GiB" in allocated
    assert "<code>app-1</code>" in allocated
    assert f'<a href="{reverse("usage:group", args=["default", "ml"])}">ml</a>' in allocated
    assert '<time datetime="' in allocated


def test_a_denial_says_who_where_which_limit_and_the_numbers(viewer_client, busy):
    denied = row(viewer_client.get(ACTIVITY).content.decode(), "2")
    assert '<span class="ev-kind">denied</span> <span class="hint">userQuota</span>' in denied
    assert (
        '<p class="ev-message">user alice in queue root.eng uses memory 9 GiB of memory 10 GiB; '
        "the request for memory 2 GiB in root.eng.ml does not fit</p>"
    ) in denied


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"type": "denied"}, ["2"]),
        ({"type": "allocated", "user": "alice"}, ["1"]),
        ({"user": "bob"}, ["3"]),
        ({"type": "released"}, []),
    ],
)
def test_filters_come_from_the_url(viewer_client, busy, params, expected):
    html = viewer_client.get(ACTIVITY, params).content.decode()
    assert keys(html, "events") == expected
    assert shown(html, "data-empty") == (expected == [])
    assert 'data-scopes="events"' in html


def test_a_quiet_partition_says_where_events_come_from(viewer_client, db):
    engines_pages()
    html = viewer_client.get(ACTIVITY).content.decode()
    assert shown(html, "data-empty")
    assert "Nothing has happened in this partition since the server started." in html
