"""Password guessing is throttled per account and per address: after the allowed failures every
sign-in there, the right password too, is refused with 429, Retry-After and a page that says
why, until the cool-off passes. API tokens never sign in, so they are never locked out."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils.html import escape

from quotaweb.accounts.views import ERR_LOCKED_OUT, lockout_wait
from tests.personas import PERSONA_PASSWORD, token_client

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
FAILURES = 3
COOLOFF_SECONDS = 1


@pytest.fixture(autouse=True)
def _throttle(settings):
    settings.AXES_FAILURE_LIMIT = FAILURES
    settings.AXES_COOLOFF_TIME = timedelta(seconds=COOLOFF_SECONDS)


def _log_in(username: str, password: str, *, address: str = "127.0.0.1"):
    return Client().post(
        LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address
    )


def _locked_out(response) -> bool:
    if response.status_code != 429:
        return False
    assert response["Retry-After"] == str(COOLOFF_SECONDS)
    assert escape(ERR_LOCKED_OUT.format(wait=lockout_wait(COOLOFF_SECONDS))) in (
        response.content.decode()
    )
    return True


def test_the_failures_allowed_get_the_usual_error_then_the_account_is_locked(viewer):
    for attempt in range(FAILURES - 1):
        assert _log_in("vera", "wrong", address=f"10.0.0.{attempt}").status_code == 200
    # The last allowed failure already answers the lockout.
    assert _locked_out(_log_in("vera", "wrong", address="10.0.1.1"))
    # From any address, with the right password too.
    assert _locked_out(_log_in("vera", PERSONA_PASSWORD, address="10.0.2.2"))


def test_an_address_guessing_many_accounts_is_locked_for_every_account(viewer, admin):
    for name in ("nobody", "someone", "anyone")[:FAILURES]:
        _log_in(name, "wrong", address="10.9.9.9")
    assert _locked_out(_log_in("vera", PERSONA_PASSWORD, address="10.9.9.9"))
    assert _locked_out(_log_in("ada", PERSONA_PASSWORD, address="10.9.9.9"))
    # The accounts themselves are not locked: from another address they sign in.
    assert _log_in("vera", PERSONA_PASSWORD, address="10.8.8.8").status_code == 302


def test_after_the_cool_off_the_right_password_signs_in(viewer):
    for _ in range(FAILURES):
        _log_in("vera", "wrong")
    assert _locked_out(_log_in("vera", PERSONA_PASSWORD))
    time.sleep(COOLOFF_SECONDS + 0.2)
    assert _log_in("vera", PERSONA_PASSWORD).status_code == 302


def test_a_success_before_the_limit_clears_the_failures(viewer):
    for _ in range(FAILURES - 1):
        _log_in("vera", "wrong")
    assert _log_in("vera", PERSONA_PASSWORD).status_code == 302
    for _ in range(FAILURES - 1):
        assert _log_in("vera", "wrong").status_code == 200


def test_api_tokens_work_while_their_account_is_locked(admin):
    for _ in range(FAILURES):
        _log_in("ada", "wrong")
    assert _locked_out(_log_in("ada", PERSONA_PASSWORD))
    response = token_client(admin).get("/api/v1/config/versions/")
    assert response.status_code == 200, response.content


def test_the_limit_and_cool_off_come_from_the_environment_and_bad_values_stop_the_start():
    from tests.core.test_settings_env import load_settings

    result = load_settings(QUOTAWEB_SECRET_KEY="k", QUOTAWEB_LOGIN_COOLOFF_SECONDS="soon")
    assert result.returncode != 0
    assert "QUOTAWEB_LOGIN_COOLOFF_SECONDS='soon' is not a whole number" in result.stderr
    result = load_settings(QUOTAWEB_SECRET_KEY="k", QUOTAWEB_LOGIN_FAILURES="0")
    assert result.returncode != 0
    assert "QUOTAWEB_LOGIN_FAILURES=0 is below the minimum of 1" in result.stderr
