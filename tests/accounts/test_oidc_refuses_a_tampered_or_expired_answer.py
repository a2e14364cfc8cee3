"""An answer from the provider that does not belong to this sign-in, or whose ID token fails its
checks, is refused with a message that says why: a 400 with the login page, nobody signed in,
the refusal in the audit. Never a 500."""

from __future__ import annotations

import html

import pytest

from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.oidc import ERR_EXPIRED, ERR_NONCE, ERR_PROVIDER_SAID, ERR_STATE
from tests.accounts.oidc_flow import (
    point_at,
    provider_for_test_client,
    start,
    with_query,
)
from tests.oidc_provider import OidcBrowser

pytestmark = pytest.mark.django_db
NAME = "Test SSO"


def _refused(response, message: str, reason: str) -> None:
    assert response.status_code == 400
    assert html.escape(message.format(name=NAME)) in response.content.decode()
    assert not response.wsgi_request.user.is_authenticated
    assert "_auth_user_id" not in response.wsgi_request.session
    denied = AuthEvent.objects.get(kind=AuthEvent.KIND_DENIED)
    assert (denied.source, denied.detail) == ("oidc", reason)
    assert not AuthEvent.objects.filter(kind=AuthEvent.KIND_SIGN_IN).exists()


def test_a_tampered_state_is_refused(client, oidc_on):
    callback = OidcBrowser(oidc_on.issuer).authorize(start(client), login="alice")

    response = client.get(with_query(callback, state="forged-state"))

    _refused(response, ERR_STATE, "state-mismatch")


def test_an_answer_for_another_browser_is_refused(client, oidc_on):
    from django.test import Client

    callback = OidcBrowser(oidc_on.issuer).authorize(start(Client()), login="alice")

    response = client.get(callback)

    _refused(response, ERR_STATE, "state-mismatch")


def test_a_tampered_nonce_is_refused(client, oidc_on):
    # The authorization request is changed on its way to the provider: the ID token it issues
    # carries another nonce than the one this session keeps.
    url = with_query(start(client), nonce="forged-nonce")
    callback = OidcBrowser(oidc_on.issuer).authorize(url, login="alice")

    response = client.get(callback)

    _refused(response, ERR_NONCE, "nonce-mismatch")


def test_a_request_without_pkce_is_refused_by_the_provider(client, oidc_on):
    sent = start(client)
    parts = sent.split("&")
    url = "&".join(part for part in parts if not part.startswith("code_challenge"))
    callback = OidcBrowser(oidc_on.issuer).authorize(url, login="alice")

    response = client.get(callback)

    assert response.status_code == 400
    said = ERR_PROVIDER_SAID.format(name=NAME, why="")
    assert html.escape(said.split(":")[0]) in response.content.decode()
    assert "requires PKCE" in response.content.decode()
    assert not response.wsgi_request.user.is_authenticated
    assert AuthEvent.objects.get(kind=AuthEvent.KIND_DENIED).detail == "provider:invalid_request"


def test_an_expired_id_token_is_refused(client, settings):
    # The provider's clock is ten minutes behind and its ID tokens live a minute: each one has
    # expired nine minutes before it arrives, well past the allowed clock skew.
    with provider_for_test_client(id_token_ttl=60, clock_offset=-600).running() as provider:
        point_at(settings, provider)
        callback = OidcBrowser(provider.issuer).authorize(start(client), login="alice")

        response = client.get(callback)

    _refused(response, ERR_EXPIRED, "id-token-expired")


def test_the_same_answer_cannot_sign_in_twice(client, oidc_on):
    callback = OidcBrowser(oidc_on.issuer).authorize(start(client), login="mia")
    assert client.get(callback).status_code == 302
    client.logout()

    response = client.get(callback)

    assert response.status_code == 400
    assert html.escape(ERR_STATE.format(name=NAME)) in response.content.decode()


def test_an_id_token_with_a_forged_signature_is_refused(client, oidc_on, monkeypatch):
    from quotaweb.accounts.oidc import ERR_ID_TOKEN, oidc_client

    app = oidc_client()
    exchange = app.fetch_access_token

    def forged(**kwargs):
        token = exchange(**kwargs)
        header, claims, signature = token["id_token"].split(".")
        # Another signature of the right length: what a token altered in transit carries.
        flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
        return {**token, "id_token": f"{header}.{claims}.{flipped}"}

    monkeypatch.setattr(app, "fetch_access_token", forged)
    callback = OidcBrowser(oidc_on.issuer).authorize(start(client), login="alice")

    response = client.get(callback)

    assert response.status_code == 400
    assert html.escape(ERR_ID_TOKEN.format(name=NAME, why="bad signature")) in (
        response.content.decode()
    )
    assert not response.wsgi_request.user.is_authenticated
    assert AuthEvent.objects.get(kind=AuthEvent.KIND_DENIED).detail == "id-token-invalid"


def test_an_error_answer_of_no_sign_in_of_this_browser_shows_none_of_its_text(client, oidc_on):
    start(client)

    response = client.get(
        "/accounts/oidc/callback/?error=access_denied&state=forged-state"
        "&error_description=Call+555-0100+to+restore+your+account"
    )

    assert "555-0100" not in response.content.decode()
    _refused(response, ERR_STATE, "state-mismatch")
