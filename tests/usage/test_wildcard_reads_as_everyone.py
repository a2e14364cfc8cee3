"""The wildcard user or group ``*`` reads as "everyone (*)" wherever a page shows a user or group
name (the users list's groups, a group page, the users filter, the activity feed's "as",
trends, a queue's limit entries), never as a bare name that looks like a group called "*"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import ODD_USER, engines_busy, row
from trackers.names import WILDCARD_SHOWN, shown_name

pytestmark = pytest.mark.django_db

USERS = reverse("usage:users", args=["default"])
EVERYONE_GROUP = reverse("usage:group", args=["default", "*"])
EVERYONE_LINK = f'<a href="{EVERYONE_GROUP}">everyone (*)</a>'


@pytest.fixture
def busy(db):
    return engines_busy()


def test_only_the_wildcard_is_renamed():
    assert WILDCARD_SHOWN == "everyone (*)"
    assert shown_name("*") == WILDCARD_SHOWN
    assert shown_name("ml") == "ml"


def test_the_users_list_names_the_wildcard_group_as_everyone(viewer_client, busy):
    html = viewer_client.get(USERS).content.decode()
    assert EVERYONE_LINK in row(html, ODD_USER)
    assert '<option value="*">everyone (*)</option>' in html


def test_the_wildcard_groups_page_is_titled_everyone(viewer_client, busy):
    html = viewer_client.get(EVERYONE_GROUP).content.decode()
    assert "Group <code>everyone (*)</code>" in html
    assert "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} everyone (*)</p>" in html


def test_the_activity_feed_says_as_everyone(viewer_client, busy):
    html = viewer_client.get(reverse("usage:activity", args=["default"])).content.decode()
    assert f'<span class="hint">as</span> {EVERYONE_LINK}' in html
    assert f'<span class="hint">as</span> <a href="{EVERYONE_GROUP}">*</a>' not in html


def test_trends_of_the_wildcard_group_name_it_everyone(viewer_client, busy):
    html = viewer_client.get(reverse("usage:trends", args=["default", "group", "*"])).content
    assert "Trends of group <code>everyone (*)</code>" in html.decode()


def test_a_queues_limit_entries_show_the_wildcards_as_everyone(quota_admin_client, capped_tree):
    html = quota_admin_client.get(reverse("config:queue", args=["default", "root.eng.ml"]))
    page = html.content.decode()
    assert page.count('<code class="token wildcard">everyone (*)</code>') == 2
    assert '<code class="token wildcard">*</code>' not in page
