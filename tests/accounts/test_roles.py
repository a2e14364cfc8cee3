"""Who is a quota admin and who is a viewer."""

import pytest
from django.contrib.auth.models import AnonymousUser, Group

from quotaweb.accounts.roles import (
    QUOTA_ADMINS_GROUP,
    is_quota_admin,
    is_viewer,
    user_role,
)

pytestmark = pytest.mark.django_db


def test_the_migration_creates_the_quota_admins_group():
    assert Group.objects.filter(name=QUOTA_ADMINS_GROUP).exists()


def test_a_member_of_quota_admins_is_an_admin_and_a_viewer(admin):
    assert not admin.is_staff
    assert is_quota_admin(admin)
    assert is_viewer(admin)
    assert user_role(admin) == "admin"


def test_a_staff_user_is_an_admin_without_the_group(staff_admin):
    assert not staff_admin.groups.exists()
    assert is_quota_admin(staff_admin)
    assert user_role(staff_admin) == "admin"


def test_a_plain_account_is_a_viewer_only(viewer):
    assert is_viewer(viewer)
    assert not is_quota_admin(viewer)
    assert user_role(viewer) == "viewer"


def test_another_group_does_not_make_an_admin(viewer):
    viewer.groups.add(Group.objects.create(name="quota-admins-old"))

    assert not is_quota_admin(viewer)


def test_anonymous_and_missing_users_have_no_role():
    for nobody in (AnonymousUser(), None):
        assert not is_viewer(nobody)
        assert not is_quota_admin(nobody)
        assert user_role(nobody) is None


@pytest.mark.parametrize("persona", ["admin", "staff_admin", "viewer"])
def test_an_inactive_account_has_no_role(request, persona):
    user = request.getfixturevalue(persona)
    user.is_active = False
    user.save()

    assert not is_viewer(user)
    assert not is_quota_admin(user)
    assert user_role(user) is None


def test_leaving_the_group_takes_effect_at_once(admin, quota_admins_group):
    admin.groups.remove(quota_admins_group)

    assert not is_quota_admin(admin)
    assert user_role(admin) == "viewer"
