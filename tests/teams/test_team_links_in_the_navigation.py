"""Admins reach the team links page from the main navigation; viewers, who may not use it, do
not see it there."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

NAV_LINK = f'<a href="{reverse("teams:links")}"'


def test_admins_see_team_links_in_the_navigation(quota_admin_client, capped_engines):
    assert NAV_LINK in quota_admin_client.get(reverse("core:home")).content.decode()
    page = quota_admin_client.get(reverse("teams:links")).content.decode()
    assert f'{NAV_LINK} aria-current="page">Team links</a>' in page


def test_viewers_do_not(viewer_client, capped_engines):
    assert NAV_LINK not in viewer_client.get(reverse("core:home")).content.decode()
