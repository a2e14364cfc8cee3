"""A directory user makes their own API token, shown once; it acts with the role their groups
give them at each request. Local accounts' tokens stay an admin's business (service accounts)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.authtoken.models import Token

from quotaweb.accounts.directory import directory_user_sync
from quotaweb.accounts.services import ERR_TOKEN_LOCAL
from quotaweb.api.authentication import token_cache_clear

pytestmark = pytest.mark.django_db

CONFIG = "/api/v1/config"


def test_a_member_makes_a_token_and_sees_it_once(member_client, member):
    page = member_client.get("/accounts/token/")
    assert page.status_code == 200
    assert page["Cache-Control"] == "no-store"
    made = member_client.post("/accounts/token/", {"action": "create"})
    key = Token.objects.get(user=member).key
    assert key in made.content.decode()
    assert key not in member_client.get("/accounts/token/").content.decode()
    # A new one stops the old one.
    member_client.post("/accounts/token/", {"action": "create"})
    assert Token.objects.get(user=member).key != key
    member_client.post("/accounts/token/", {"action": "revoke"})
    assert not Token.objects.filter(user=member).exists()


@override_settings(QUOTAWEB_ADMIN_GROUPS=["hpc-admins"])
def test_the_token_follows_the_groups(client, capped_engines):
    from quotaweb.accounts.services import personal_token_create

    bob = directory_user_sync(username="bob", groups=["hpc-admins"], source="ldap")
    key = personal_token_create(user=bob)
    headers = {"HTTP_AUTHORIZATION": f"Token {key}"}
    assert client.get(CONFIG, **headers).status_code == 200
    directory_user_sync(username="bob", groups=[], source="ldap")
    token_cache_clear()
    answer = client.get(CONFIG, **headers)
    assert answer.status_code == 403


def test_a_local_account_gets_no_personal_token(viewer_client, viewer):
    answer = viewer_client.post("/accounts/token/", {"action": "create"})
    assert answer.status_code == 400
    assert not Token.objects.filter(user=viewer).exists()
    assert ERR_TOKEN_LOCAL.format(username="vera") in answer.content.decode()


def test_signed_out_visitors_are_sent_to_sign_in(client):
    assert client.post("/accounts/token/", {"action": "create"}).status_code == 302
