"""The whole code flow with PKCE against a real provider (oidc-provider): the person signs in
there, quotaweb checks the answer and gives them the role their groups give."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.roles import user_role
from tests.accounts.oidc_flow import query, sign_in, start
from tests.oidc_provider import CLIENT_ID, OidcBrowser

pytestmark = pytest.mark.django_db


def test_the_authorization_request_carries_pkce_a_nonce_and_a_state(client, oidc_on):
    url = start(client)

    sent = query(url)
    assert url.startswith(f"{oidc_on.issuer}/auth?")
    assert sent["client_id"] == CLIENT_ID
    assert sent["code_challenge_method"] == "S256"
    assert len(sent["code_challenge"]) >= 43
    assert sent["nonce"]
    assert sent["state"]
    assert sent["scope"].split() == ["openid", "email", "profile", "groups"]
    assert sent["redirect_uri"] == "http://testserver/accounts/oidc/callback/"


@pytest.mark.parametrize(("login", "role"), [
    ("alice", "admin"), ("victor", "viewer"), ("mia", "member"), ("nobody", "member"),
])
def test_the_groups_claim_gives_the_role(client, oidc_on, login, role):
    response = sign_in(client, oidc_on.issuer, login)

    assert response.status_code == 302
    assert response["Location"] == reverse("core:home")
    user = response.wsgi_request.user
    assert user.get_username() == login
    assert user_role(type(user).objects.get(pk=user.pk)) == role
    assert client.session.get_expiry_age() <= 8 * 3600


def test_only_the_admin_group_may_change_the_configuration(client, oidc_on):
    sign_in(client, oidc_on.issuer, "victor")
    viewer = get_user_model().objects.get(username="victor")
    client.logout()
    sign_in(client, oidc_on.issuer, "alice")
    admin = get_user_model().objects.get(username="alice")

    assert user_role(viewer) == "viewer"
    assert user_role(admin) == "admin"
    assert admin.directory_identity.groups == ["hpc-admins", "ml-researchers"]
    assert admin.email == "alice@example.org"
    assert not admin.has_usable_password()


def test_the_sign_in_is_audited_without_a_token(client, oidc_on):
    sign_in(client, oidc_on.issuer, "mia")

    event = AuthEvent.objects.get(kind=AuthEvent.KIND_SIGN_IN)
    assert (event.username, event.source, event.detail) == ("mia", "oidc", "as member")
    assert event.address == "127.0.0.1"


def test_the_person_comes_back_to_the_page_they_asked_for(client, oidc_on):
    url = start(client, "/accounts/oidc/login/?next=/elastic/")
    response = client.get(OidcBrowser(oidc_on.issuer).authorize(url, login="mia"))

    assert response["Location"] == "/elastic/"


def test_a_next_on_another_site_is_not_followed(client, oidc_on):
    url = start(client, "/accounts/oidc/login/?next=https://evil.example/")
    response = client.get(OidcBrowser(oidc_on.issuer).authorize(url, login="mia"))

    assert response["Location"] == reverse("core:home")


def test_the_groups_come_from_the_claim_the_setting_names(client, oidc_on, settings):
    settings.QUOTAWEB_OIDC_GROUPS_CLAIM = "teams"

    response = sign_in(client, oidc_on.issuer, "alice")

    user = response.wsgi_request.user
    assert user.directory_identity.groups == []
    assert user_role(type(user).objects.get(pk=user.pk)) == "member"
