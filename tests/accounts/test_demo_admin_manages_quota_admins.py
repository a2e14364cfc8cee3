"""docs/tour.md sends the demo admin to /admin/ to add and remove members of ``quota-admins``:
the demo admin can see that group there and make the demo viewer a quota admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from quotaweb.accounts.roles import QUOTA_ADMINS_GROUP, user_role
from quotaweb.accounts.services import (
    DEMO_ADMIN_USERNAME,
    DEMO_VIEWER_USERNAME,
    accounts_demo_ensure,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_admin_client() -> Client:
    accounts_demo_ensure()
    client = Client()
    client.force_login(get_user_model().objects.get(username=DEMO_ADMIN_USERNAME))
    return client


def test_the_demo_admin_sees_the_group_and_the_accounts(demo_admin_client):
    index = demo_admin_client.get("/admin/").content.decode()
    assert "/admin/auth/group/" in index
    assert "/admin/auth/user/" in index
    groups = demo_admin_client.get("/admin/auth/group/")
    assert groups.status_code == 200
    assert QUOTA_ADMINS_GROUP in groups.content.decode()


def test_the_demo_admin_makes_the_viewer_a_quota_admin(demo_admin_client):
    viewer = get_user_model().objects.get(username=DEMO_VIEWER_USERNAME)
    group = Group.objects.get(name=QUOTA_ADMINS_GROUP)
    url = f"/admin/auth/user/{viewer.pk}/change/"
    assert demo_admin_client.get(url).status_code == 200
    response = demo_admin_client.post(url, {
        "username": viewer.username, "is_active": "on", "groups": [group.pk],
        "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    viewer.refresh_from_db()
    assert user_role(viewer) == "admin"


def test_running_the_demo_again_keeps_those_rights_and_only_those(demo_admin_client):
    accounts_demo_ensure()
    admin = get_user_model().objects.get(username=DEMO_ADMIN_USERNAME)
    assert not admin.is_superuser
    assert admin.has_perm("auth.change_user")
    assert not admin.has_perm("auth.delete_user")
