"""A provider that cannot be reached, or does not answer, costs the sign-in through it at most
QUOTAWEB_OIDC_TIMEOUT_SECONDS and answers 503 with Retry-After and the login page saying so;
local accounts sign in as before. Never a 500, never a hang."""

from __future__ import annotations

import socket
import time

import pytest

from quotaweb.accounts.models import AuthEvent
from tests.oidc_provider import CLIENT_ID, CLIENT_SECRET
from tests.personas import PERSONA_PASSWORD
from tests.server_process import free_port

pytestmark = pytest.mark.django_db


def _point_at(settings, issuer: str) -> None:
    settings.QUOTAWEB_OIDC_ISSUER = issuer
    settings.QUOTAWEB_OIDC_CLIENT_ID = CLIENT_ID
    settings.QUOTAWEB_OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.QUOTAWEB_OIDC_NAME = "Campus SSO"
    settings.QUOTAWEB_OIDC_TIMEOUT_SECONDS = 1


def _says_unavailable(response, why: str) -> None:
    page = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    assert f"Campus SSO is not available right now ({why})" in page
    assert "local accounts can still sign in here" in page
    assert 'name="password"' in page
    assert AuthEvent.objects.get(kind=AuthEvent.KIND_DENIED).detail == "unavailable"


def test_an_unreachable_provider_is_named_and_local_login_still_works(
    client, settings, viewer
):
    _point_at(settings, f"http://127.0.0.1:{free_port()}")

    _says_unavailable(client.get("/accounts/oidc/login/"), "it cannot be reached")

    login_page = client.get("/accounts/login/")
    assert login_page.status_code == 200
    assert "Sign in with Campus SSO" in login_page.content.decode()
    response = client.post(
        "/accounts/login/", {"username": viewer.username, "password": PERSONA_PASSWORD}
    )
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(viewer.pk)


def test_a_provider_that_never_answers_costs_the_timeout_only(client, settings):
    with socket.socket() as silent:
        # Accepts connections (the kernel's backlog) and never says a word.
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        _point_at(settings, f"http://127.0.0.1:{silent.getsockname()[1]}")
        began = time.monotonic()

        response = client.get("/accounts/oidc/login/")

        took = time.monotonic() - began
    _says_unavailable(response, "no answer within 1 s")
    # The bound is 1 s; the rest is slack for a loaded machine, far below any hang.
    assert took < 10


def test_without_a_provider_there_is_no_button_and_no_flow(client, settings):
    settings.QUOTAWEB_OIDC_ISSUER = None

    assert "Sign in with" not in client.get("/accounts/login/").content.decode()
    response = client.get("/accounts/oidc/login/")
    assert response.status_code == 503
    assert "Single sign-on is not configured on this site" in response.content.decode()
