"""Roles from the directory's groups (posixGroup and groupOfNames), read again once they are older
than QUOTAWEB_LDAP_CACHE_SECONDS: an admin taken out of the admin group is no admin on the next
request after that, a deleted entry has no role, and a directory that does not answer is a 503."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from quotaweb.accounts.identity import DirectoryUnavailable
from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.roles import user_role
from tests.ldap_server import NAMED_GROUPS, PASSWORD, ldap_configure
from tests.personas import password_signs_in

pytestmark = pytest.mark.django_db


def _next_request(user):
    return type(user).objects.get(pk=user.pk)


def _cache_time_passes(user):
    DirectoryIdentity.objects.filter(user=user).update(
        synced_at=timezone.now() - datetime.timedelta(seconds=61)
    )


@pytest.mark.parametrize("group_type", ["posix", "groupOfNames"])
@pytest.mark.parametrize(("username", "role"), [
    ("alice", "member"), ("bob", "admin"), ("carol", "viewer"),
])
def test_the_role_comes_from_the_groups(ldap_directory, settings, group_type, username, role):
    overrides = {"QUOTAWEB_LDAP_GROUP_TYPE": group_type}
    if group_type == "groupOfNames":
        overrides["QUOTAWEB_LDAP_GROUP_BASE"] = NAMED_GROUPS
    ldap_configure(settings, ldap_directory, **overrides)
    user = password_signs_in(username, PASSWORD)
    assert user_role(_next_request(user)) == role


def test_leaving_the_admin_group_counts_after_the_cache_time(ldap_site):
    bob = password_signs_in("bob", PASSWORD)
    ldap_site.group_set("hpc-admins", [])
    # Within the cache time the stored groups stand (no directory query per request) ...
    assert user_role(_next_request(bob)) == "admin"
    _cache_time_passes(bob)
    # ... and the first request after it reads the directory again.
    assert user_role(_next_request(bob)) == "member"
    change = AuthEvent.objects.get(kind=AuthEvent.KIND_ROLE_CHANGE)
    assert change.detail == "quota admin -> member (directory groups: ml-researchers)"
    ldap_site.group_set("hpc-admins", ["bob"])
    _cache_time_passes(bob)
    assert user_role(_next_request(bob)) == "admin"


def test_a_deleted_entry_loses_its_role_on_the_next_request(ldap_site):
    alice = password_signs_in("alice", PASSWORD)
    ldap_site.person_delete("alice")
    _cache_time_passes(alice)
    assert user_role(_next_request(alice)) is None
    assert not DirectoryIdentity.objects.get(user=alice).present
    # A signed-in browser of hers is refused like a disabled account.
    from django.test import Client

    client = Client()
    client.force_login(alice)
    assert client.get("/").status_code == 403


@pytest.mark.parametrize("way", ["starttls", "ldaps"])
def test_tls_with_the_sites_ca(ldap_directory, settings, way):
    overrides = {"QUOTAWEB_LDAP_CA_FILE": ldap_directory.ca_file}
    if way == "starttls":
        overrides["QUOTAWEB_LDAP_START_TLS"] = "1"
    else:
        overrides["QUOTAWEB_LDAP_URL"] = ldap_directory.ldaps_url
    ldap_configure(settings, ldap_directory, **overrides)
    user = password_signs_in("bob", PASSWORD)
    assert user is not None
    assert user_role(_next_request(user)) == "admin"


def test_tls_with_a_ca_that_did_not_sign_the_server_is_refused(ldap_directory, settings):
    ldap_configure(
        settings, ldap_directory, QUOTAWEB_LDAP_START_TLS="1",
        QUOTAWEB_LDAP_CA_FILE=ldap_directory.other_ca_file,
    )
    with pytest.raises(DirectoryUnavailable):
        password_signs_in("bob", PASSWORD)


def test_a_directory_that_does_not_answer_is_a_503_not_a_wrong_password(
    ldap_directory, settings
):
    from django.test import Client

    from tests.server_process import free_port

    client = Client(raise_request_exception=False)
    ldap_configure(settings, ldap_directory,
                   QUOTAWEB_LDAP_URL=f"ldap://127.0.0.1:{free_port()}")
    response = client.post("/accounts/login/", {"username": "bob", "password": PASSWORD})
    assert response.status_code == 503
    assert response["Retry-After"]
    assert "LDAP directory did not answer" in response.content.decode()
