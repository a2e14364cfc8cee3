"""Logging out of quotaweb after a provider's sign-in ends the session at the provider too
(RP-initiated logout through its end_session_endpoint), so the next sign-in asks again."""

from __future__ import annotations

import pytest

from quotaweb.accounts.views import MSG_LOGGED_OUT, MSG_LOGGED_OUT_PROVIDER
from tests.accounts.oidc_flow import (
    AFTER_LOGOUT,
    query,
    sign_in,
    start,
)
from tests.oidc_provider import OidcBrowser

pytestmark = pytest.mark.django_db


def test_logout_sends_the_browser_to_the_provider_and_ends_its_session(client, oidc_on):
    person = OidcBrowser(oidc_on.issuer)
    sign_in(client, oidc_on.issuer, "alice", person=person)
    # While the provider's session lasts, a second sign-in does not ask for a password.
    client.logout()
    assert not person.asks_to_sign_in(start(client))
    sign_in(client, oidc_on.issuer, "alice", person=person)
    id_token = client.session["quotaweb_oidc_id_token"]

    response = client.post("/accounts/logout/")

    assert response.status_code == 302
    logout_url = response["Location"]
    assert logout_url.startswith(f"{oidc_on.issuer}/session/end?")
    sent = query(logout_url)
    assert sent["post_logout_redirect_uri"] == AFTER_LOGOUT
    assert sent["id_token_hint"] == id_token
    assert "_auth_user_id" not in client.session
    assert person.log_out(logout_url).startswith(AFTER_LOGOUT)
    assert person.asks_to_sign_in(start(client))
    page = client.get("/accounts/login/").content.decode()
    assert MSG_LOGGED_OUT_PROVIDER.format(product="quotaweb", provider="Test SSO") in page


def test_a_local_account_logs_out_here_only(client, oidc_on, django_user_model):
    user = django_user_model.objects.create_user("local", password="a-long-local-password")
    client.force_login(user)

    response = client.post("/accounts/logout/")

    assert response["Location"] == "/accounts/login/"
    assert MSG_LOGGED_OUT in client.get("/accounts/login/").content.decode()
