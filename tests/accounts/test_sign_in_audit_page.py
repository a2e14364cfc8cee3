"""Admins read the sign-in audit: sign-ins and through what, refusals, role changes; nobody else
may."""

from __future__ import annotations

import pytest
from django.test import override_settings

from quotaweb.accounts.directory import directory_user_sync
from quotaweb.accounts.models import AuthEvent
from tests.personas import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db


@override_settings(QUOTAWEB_ADMIN_GROUPS=["hpc-admins"])
def test_the_admin_reads_who_signed_in_was_refused_or_changed_role(
    client, quota_admin_client, viewer
):
    client.post("/accounts/login/", {"username": "vera", "password": PERSONA_PASSWORD})
    client.post("/accounts/login/", {"username": "vera", "password": "wrong-pass"})
    directory_user_sync(username="bob", groups=["hpc-admins"], source="ldap")
    directory_user_sync(username="bob", groups=[], source="ldap")
    html = quota_admin_client.get("/accounts/sign-ins/").content.decode()
    assert "signed in" in html
    assert "sign-in refused" in html
    assert "quota admin -&gt; member (directory groups: none)" in html
    kinds = list(AuthEvent.objects.values_list("kind", "username", "source"))
    assert ("sign-in", "vera", "local") in kinds
    assert ("denied", "vera", "password") in kinds
    only_refused = quota_admin_client.get("/accounts/sign-ins/?kind=denied").content.decode()
    assert "quota admin -&gt; member" not in only_refused


def test_viewers_and_members_may_not_read_it(viewer_client, member_client):
    assert viewer_client.get("/accounts/sign-ins/").status_code == 403
    assert member_client.get("/accounts/sign-ins/").status_code == 403


def test_the_version_history_names_a_directory_author(admin_api, settings, capped_engines):
    from quotaweb.config.models import ConfigVersion

    settings.QUOTAWEB_ADMIN_GROUPS = ["hpc-admins"]
    bob = directory_user_sync(username="bob", groups=["hpc-admins"], source="ldap")
    ConfigVersion.objects.filter(number=1).update(author=bob)
    from django.test import Client

    client = Client()
    client.force_login(bob)
    html = client.get("/config/versions/").content.decode()
    assert "bob (ldap)" in html
