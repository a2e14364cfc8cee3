"""Token authentication remembers a key's user for a few seconds: a deleted token or an
inactive user stops working once that time has passed, and an unknown key is never remembered."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from quotaweb.api import authentication

pytestmark = pytest.mark.django_db

URL = "/api/v1/config/versions"


def test_a_deleted_token_stops_working_after_the_cache_time(admin, client, monkeypatch):
    token = Token.objects.create(user=admin)
    headers = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    clock = [1000.0]
    monkeypatch.setattr(authentication.time, "monotonic", lambda: clock[0])
    assert client.get(URL, **headers).status_code == 200
    token.delete()
    assert client.get(URL, **headers).status_code == 200  # remembered
    clock[0] += authentication.TOKEN_CACHE_SECONDS
    assert client.get(URL, **headers).status_code == 401


def test_an_inactive_user_is_refused_once_the_cache_time_passed(admin, client, monkeypatch):
    token = Token.objects.create(user=admin)
    headers = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    clock = [1000.0]
    monkeypatch.setattr(authentication.time, "monotonic", lambda: clock[0])
    assert client.get(URL, **headers).status_code == 200
    admin.is_active = False
    admin.save()
    clock[0] += authentication.TOKEN_CACHE_SECONDS + 1
    assert client.get(URL, **headers).status_code == 401


def test_an_unknown_key_is_refused_every_time(client):
    for _ in range(2):
        response = client.get(URL, HTTP_AUTHORIZATION="Token nope")
        assert response.status_code == 401
