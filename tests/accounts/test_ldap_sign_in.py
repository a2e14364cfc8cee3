"""Sign-in with a real OpenLDAP directory (slapd started by the test): the right password signs
in, a wrong one, an unknown person or a deleted entry do not, and the audit says so."""

from __future__ import annotations

import pytest

from quotaweb.accounts.directory import ERR_LOCAL_ACCOUNT
from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.roles import user_role
from tests.ldap_server import PASSWORD
from tests.personas import PERSONA_PASSWORD, password_signs_in

pytestmark = pytest.mark.django_db


def test_the_directory_password_signs_in_with_the_groups(ldap_site):
    user = password_signs_in("alice", PASSWORD)
    assert user is not None
    identity = DirectoryIdentity.objects.get(user=user)
    assert (identity.source, identity.groups) == ("ldap", ["ml-researchers"])
    assert (user.email, user.first_name, user.last_name) == (
        "alice@example.org", "Alice", "Liddell"
    )
    assert not user.has_usable_password()


@pytest.mark.parametrize(("username", "password"), [
    ("alice", "not-her-password"), ("nobody", PASSWORD), ("alice", ""),
])
def test_a_wrong_password_or_an_unknown_person_is_refused(ldap_site, username, password):
    assert password_signs_in(username, password) is None
    assert not DirectoryIdentity.objects.exists()


def test_the_sign_in_page_signs_in_and_the_audit_says_through_what(ldap_site, client):
    response = client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    assert response.status_code == 302
    event = AuthEvent.objects.get(kind=AuthEvent.KIND_SIGN_IN)
    assert (event.username, event.source, event.detail) == ("carol", "ldap", "as viewer")

    client.logout()
    response = client.post("/accounts/login/", {"username": "carol", "password": "wrong"})
    assert response.status_code == 200
    denied = AuthEvent.objects.get(kind=AuthEvent.KIND_DENIED)
    assert denied.username == "carol"


def test_a_deleted_entry_no_longer_signs_in(ldap_site):
    assert password_signs_in("alice", PASSWORD) is not None
    ldap_site.person_delete("alice")
    assert password_signs_in("alice", PASSWORD) is None


def test_a_local_account_signs_in_beside_the_directory(ldap_site, admin):
    assert password_signs_in("ada", PERSONA_PASSWORD) == admin


def test_a_directory_person_cannot_take_over_a_local_account(ldap_site, django_user_model):
    local = django_user_model.objects.create_user("alice", password="local-pass-1")
    assert password_signs_in("alice", PASSWORD) is None
    local.refresh_from_db()
    assert local.check_password("local-pass-1")
    assert local.email == ""
    assert not DirectoryIdentity.objects.exists()
    assert AuthEvent.objects.filter(
        kind=AuthEvent.KIND_DENIED, username="alice", source="ldap",
        detail=ERR_LOCAL_ACCOUNT.format(username="alice"),
    ).exists()
    assert user_role(local) == "viewer"
