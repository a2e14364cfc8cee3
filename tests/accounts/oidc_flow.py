"""Shared by the OpenID Connect tests that drive the flow over HTTP: the Django test client is
the browser on quotaweb's side, ``OidcBrowser`` the same person at the provider."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.oidc_provider import OidcBrowser, OidcProvider

CALLBACK = "http://testserver/accounts/oidc/callback/"
AFTER_LOGOUT = "http://testserver/accounts/login/"
ROLE_GROUPS = {"QUOTAWEB_ADMIN_GROUPS": ["hpc-admins"], "QUOTAWEB_VIEWER_GROUPS": ["auditors"]}


def provider_for_test_client(**options) -> OidcProvider:
    return OidcProvider(redirect_uris=[CALLBACK], post_logout_uris=[AFTER_LOGOUT], **options)


def point_at(settings, provider: OidcProvider) -> None:
    for name, value in provider.settings(**ROLE_GROUPS).items():
        setattr(settings, name, value)


def start(client, path: str = "/accounts/oidc/login/") -> str:
    """Press "Sign in with ...": the provider's authorization URL quotaweb redirects to."""
    response = client.get(path)
    assert response.status_code == 302, response.content[:500]
    return response["Location"]


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def with_query(url: str, **changes: str) -> str:
    from urllib.parse import urlencode

    parts = urlsplit(url)
    return parts._replace(query=urlencode({**query(url), **changes})).geturl()


def sign_in(client, issuer: str, login: str, *, person: OidcBrowser | None = None):
    """The whole code flow: quotaweb's answer to the provider's redirect back."""
    person = person or OidcBrowser(issuer)
    callback = person.authorize(start(client), login=login)
    assert callback.startswith(CALLBACK), callback
    return client.get(callback)


@pytest.fixture(scope="module")
def oidc_provider():
    with provider_for_test_client().running() as provider:
        yield provider


@pytest.fixture
def oidc_on(settings, oidc_provider) -> OidcProvider:
    point_at(settings, oidc_provider)
    return oidc_provider
