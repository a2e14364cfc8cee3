"""Logging in and out through our pages."""

import pytest
from django.conf import settings
from django.test import Client

from quotaweb.accounts.forms import (
    ERR_INVALID_LOGIN,
    ERR_PASSWORD_REQUIRED,
    ERR_USERNAME_REQUIRED,
)
from quotaweb.accounts.views import MSG_LOGGED_OUT
from tests.personas import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
LOGOUT = "/accounts/logout/"


def test_the_login_page_has_labelled_fields_and_extends_the_site_layout(outsider):
    response = outsider.get(LOGIN)

    html = response.content.decode()
    assert response.status_code == 200
    assert "<title>Log in · quotaweb</title>" in html
    assert '<label for="id_username">Username</label>' in html
    assert '<label for="id_password">Password</label>' in html
    assert 'autocomplete="current-password"' in html
    assert 'class="topbar"' in html  # base.html
    assert ">Log in</a>" not in html  # no "Log in" link on the login page itself


def test_a_correct_login_goes_to_the_overview(outsider, viewer):
    response = outsider.post(LOGIN, {"username": "vera", "password": PERSONA_PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert outsider.session["_auth_user_id"] == str(viewer.pk)


def test_login_returns_to_the_page_asked_for(outsider, admin):
    response = outsider.get("/")
    assert response["Location"] == "/accounts/login/?next=/"
    next_field = '<input type="hidden" name="next" value="/">'
    assert next_field in outsider.get(response["Location"]).content.decode()

    response = outsider.post(
        LOGIN, {"username": "ada", "password": PERSONA_PASSWORD, "next": "/?partition=gpu"}
    )

    assert response["Location"] == "/?partition=gpu"


def test_login_never_redirects_to_another_site(outsider, admin):
    response = outsider.post(
        LOGIN, {"username": "ada", "password": PERSONA_PASSWORD, "next": "https://evil.example/"}
    )

    assert response["Location"] == "/"


@pytest.mark.parametrize(
    ("username", "password"),
    [("vera", "wrong-password"), ("nobody", PERSONA_PASSWORD), ("VERA", PERSONA_PASSWORD)],
)
def test_a_wrong_login_says_what_is_wrong_and_keeps_the_username(
    outsider, viewer, username, password
):
    response = outsider.post(LOGIN, {"username": username, "password": password})

    html = response.content.decode()
    assert response.status_code == 200
    assert ERR_INVALID_LOGIN in html
    assert 'role="alert"' in html
    assert f'value="{username}"' in html
    assert "_auth_user_id" not in outsider.session


def test_empty_fields_are_named(outsider):
    html = outsider.post(LOGIN, {"username": "", "password": ""}).content.decode()

    assert ERR_USERNAME_REQUIRED in html
    assert ERR_PASSWORD_REQUIRED in html


def test_a_disabled_account_cannot_log_in(outsider, staff_admin):
    staff_admin.is_active = False
    staff_admin.save()

    response = outsider.post(LOGIN, {"username": "stan", "password": PERSONA_PASSWORD})

    assert ERR_INVALID_LOGIN in response.content.decode()
    assert "_auth_user_id" not in outsider.session


def test_the_login_form_needs_a_csrf_token(viewer):
    client = Client(enforce_csrf_checks=True)

    response = client.post(LOGIN, {"username": "vera", "password": PERSONA_PASSWORD})

    assert response.status_code == 403


def test_logout_is_a_post_that_ends_the_session(viewer_client):
    response = viewer_client.post(LOGOUT)

    assert response.status_code == 302
    assert response["Location"] == LOGIN
    assert "_auth_user_id" not in viewer_client.session
    assert viewer_client.get("/")["Location"] == "/accounts/login/?next=/"


def test_the_login_page_after_logout_says_so(viewer_client):
    html = viewer_client.post(LOGOUT, follow=True).content.decode()

    assert MSG_LOGGED_OUT in html


def test_a_logout_link_cannot_log_anyone_out(viewer_client):
    # A GET could come from an <img> on another site; Django's LogoutView takes POST only.
    assert viewer_client.get(LOGOUT).status_code == 405
    assert "_auth_user_id" in viewer_client.session


def test_logout_needs_the_csrf_token(viewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)

    assert client.post(LOGOUT).status_code == 403
    assert "_auth_user_id" in client.session

    client.get("/")
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    assert client.post(LOGOUT, {"csrfmiddlewaretoken": token}).status_code == 302
    assert "_auth_user_id" not in client.session
