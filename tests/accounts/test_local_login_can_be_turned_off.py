"""QUOTAWEB_LOCAL_LOGIN=0: the login page offers the provider only, and a local account's
password is refused everywhere (the login form, the Django admin's), except for the break-glass
accounts of QUOTAWEB_BREAK_GLASS_USERS through /accounts/login/?break-glass=1."""

from __future__ import annotations

import html

import pytest

from quotaweb.accounts.forms import ERR_LOCAL_LOGIN_OFF
from tests.oidc_provider import CLIENT_ID, CLIENT_SECRET
from tests.personas import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def local_login_off(settings):
    settings.QUOTAWEB_OIDC_ISSUER = "http://127.0.0.1:9"
    settings.QUOTAWEB_OIDC_CLIENT_ID = CLIENT_ID
    settings.QUOTAWEB_OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.QUOTAWEB_LOCAL_LOGIN = False
    settings.QUOTAWEB_BREAK_GLASS_USERS = ["stan"]


def _password(client, path: str, username: str):
    return client.post(path, {"username": username, "password": PERSONA_PASSWORD})


def test_the_login_page_offers_the_provider_only(client, local_login_off):
    page = client.get("/accounts/login/").content.decode()

    assert "Sign in with single sign-on" in page
    assert 'name="password"' not in page


def test_a_local_password_is_refused_with_a_reason(client, local_login_off, viewer):
    response = _password(client, "/accounts/login/", viewer.username)

    assert response.status_code == 200
    assert html.escape(ERR_LOCAL_LOGIN_OFF) in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_django_admin_login_refuses_it_too(client, local_login_off, admin):
    admin.is_staff = True
    admin.save()

    _password(client, "/admin/login/", admin.username)

    assert "_auth_user_id" not in client.session


def test_a_break_glass_account_signs_in_through_the_break_glass_page(
    client, local_login_off, staff_admin
):
    page = client.get("/accounts/login/?break-glass=1").content.decode()
    assert 'name="password"' in page
    assert "Sign in with" not in page

    response = _password(client, "/accounts/login/?break-glass=1", staff_admin.username)

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(staff_admin.pk)


def test_with_local_login_on_every_local_account_signs_in(client, settings, viewer):
    settings.QUOTAWEB_LOCAL_LOGIN = True
    settings.QUOTAWEB_BREAK_GLASS_USERS = []

    assert _password(client, "/accounts/login/", viewer.username).status_code == 302
