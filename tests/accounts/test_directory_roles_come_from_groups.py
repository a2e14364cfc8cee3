"""A directory user's role comes from their directory groups, read on every request; a local
account keeps its rule; a directory person cannot take over a local account."""

from __future__ import annotations

import pytest
from django.test import override_settings

from quotaweb.accounts.directory import (
    ERR_LOCAL_ACCOUNT,
    DirectoryUserRefused,
    directory_name,
    directory_user_sync,
)
from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.roles import user_role

pytestmark = pytest.mark.django_db

GROUPS = {"QUOTAWEB_ADMIN_GROUPS": ["hpc-admins"], "QUOTAWEB_VIEWER_GROUPS": ["operators"]}


def _fresh(user):
    """The user as the next request loads it."""
    return type(user).objects.get(pk=user.pk)


@override_settings(**GROUPS)
@pytest.mark.parametrize(("groups", "role"), [
    (["hpc-admins", "operators"], "admin"),
    (["operators", "ml-researchers"], "viewer"),
    (["ml-researchers"], "member"),
    ([], "member"),
])
def test_the_groups_decide_the_role(groups, role):
    user = directory_user_sync(username="alice", groups=groups, source="ldap")
    assert user_role(_fresh(user)) == role


@override_settings(QUOTAWEB_DEFAULT_ROLE="viewer", **GROUPS)
def test_the_default_role_can_make_everyone_a_viewer():
    user = directory_user_sync(username="bob", groups=["ml-researchers"], source="oidc")
    assert user_role(_fresh(user)) == "viewer"


@override_settings(**GROUPS)
def test_a_directory_user_who_is_staff_is_still_what_the_groups_say():
    user = directory_user_sync(username="carol", groups=[], source="ldap")
    user.is_staff = True
    user.save()
    assert user_role(_fresh(user)) == "member"


@override_settings(**GROUPS)
def test_a_role_change_is_recorded_with_the_groups():
    directory_user_sync(username="alice", groups=["hpc-admins"], source="ldap")
    directory_user_sync(username="alice", groups=["ml-researchers"], source="ldap")
    event = AuthEvent.objects.get(kind=AuthEvent.KIND_ROLE_CHANGE)
    assert event.username == "alice"
    assert event.detail == "quota admin -> member (directory groups: ml-researchers)"
    # The same role again is no change.
    directory_user_sync(username="alice", groups=["ml-researchers", "other"], source="ldap")
    assert AuthEvent.objects.filter(kind=AuthEvent.KIND_ROLE_CHANGE).count() == 1


def test_a_local_account_is_not_taken_over(admin):
    with pytest.raises(DirectoryUserRefused) as caught:
        directory_user_sync(username="ada", groups=["hpc-admins"], source="ldap")
    assert str(caught.value) == ERR_LOCAL_ACCOUNT.format(username="ada")
    assert user_role(_fresh(admin)) == "admin"
    assert directory_name(admin) == "ada"


def test_the_directory_details_are_kept():
    user = directory_user_sync(
        username="alice", groups=[" b ", "a", "a"], source="oidc",
        email="alice@example.org", full_name="Alice van Dijk",
    )
    assert (user.email, user.first_name, user.last_name) == (
        "alice@example.org", "Alice", "van Dijk"
    )
    assert user.directory_identity.groups == ["a", "b"]
    assert not user.has_usable_password()
    assert directory_name(user) == "alice (oidc)"


@pytest.mark.parametrize(("username", "source"), [("", "ldap"), ("alice", "kerberos")])
def test_a_bad_source_or_name_is_refused(username, source):
    with pytest.raises(DirectoryUserRefused):
        directory_user_sync(username=username, groups=[], source=source)


def test_a_service_account_with_a_token_is_not_taken_over(django_user_model):
    from rest_framework.authtoken.models import Token

    service = django_user_model.objects.create_user("scheduler")
    Token.objects.create(user=service)
    assert not service.has_usable_password()
    with pytest.raises(DirectoryUserRefused):
        directory_user_sync(username="scheduler", groups=["hpc-admins"], source="oidc")
