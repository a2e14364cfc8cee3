"""The cast every test folder shares: who acts in a test, and clients logged in as them.

Registered for the whole suite by ``tests/conftest.py`` (``pytest_plugins``); test modules that
need a persona's password or a token client import them from here, never from a conftest.

Personas (each a user in the test database; all share ``PERSONA_PASSWORD``):

- ``admin``: Ada (``ada``), a quota admin through the ``quota-admins`` group (not staff);
- ``staff_admin``: Stan (``stan``), a quota admin because he is staff (in no group);
- ``viewer``: Vera (``vera``), a plain active account that reads but changes nothing;
- ``outsider``: a client nobody is logged into;
- ``member``: Alice (``alice``), a directory user in the ``ml`` group only, so a member: she reads
  her own usage and ml's, nothing else (``member_client`` is logged in as her).

Clients, by how they authenticate:

- session (the pages): ``quota_admin_client``, ``staff_admin_client``, ``viewer_client``;
- DRF's ``APIClient`` with forced authentication: ``admin_api``, ``viewer_api``;
- an API token in the ``Authorization`` header, as scripts call: ``admin_token``,
  ``viewer_token`` (``token_client(user)`` for anyone else).

pytest-django's own ``admin_client`` and ``admin_user`` are a superuser, not a persona.
"""

from __future__ import annotations

import pytest
from django.test import Client

PERSONA_PASSWORD = "persona-pass-1"


def password_signs_in(username: str, password: str):
    """The user that ``username`` and ``password`` sign in as, or None: Django's authenticate,
    with the request that sign-in throttling (django-axes) needs, as the login page passes."""
    from django.contrib.auth import authenticate
    from django.http import HttpRequest

    return authenticate(HttpRequest(), username=username, password=password)


@pytest.fixture
def quota_admins_group(db):
    from quotaweb.accounts.services import quota_admins_group_ensure

    return quota_admins_group_ensure()


@pytest.fixture
def admin(django_user_model, quota_admins_group):
    user = django_user_model.objects.create_user("ada", password=PERSONA_PASSWORD)
    user.groups.add(quota_admins_group)
    return user


@pytest.fixture
def staff_admin(django_user_model):
    return django_user_model.objects.create_user(
        "stan", password=PERSONA_PASSWORD, is_staff=True
    )


@pytest.fixture
def viewer(django_user_model):
    return django_user_model.objects.create_user("vera", password=PERSONA_PASSWORD)


@pytest.fixture
def outsider(db) -> Client:
    return Client()


# -- session clients (the pages) ----------------------------------------------------------------


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def quota_admin_client(admin) -> Client:
    return _logged_in(admin)


@pytest.fixture
def staff_admin_client(staff_admin) -> Client:
    return _logged_in(staff_admin)


@pytest.fixture
def viewer_client(viewer) -> Client:
    return _logged_in(viewer)


# -- API clients (DRF's APIClient, authenticated as a persona) --------------------------------


def _api_as(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def admin_api(admin):
    return _api_as(admin)


@pytest.fixture
def viewer_api(viewer):
    return _api_as(viewer)


# -- token clients (an API token in the header, as scripts call) --------------------------------


def token_client(user) -> Client:
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Token {token.key}")


@pytest.fixture
def admin_token(admin) -> Client:
    """A quota admin (through the quota-admins group) calling with an API token."""
    return token_client(admin)


@pytest.fixture
def viewer_token(viewer) -> Client:
    return token_client(viewer)


# -- directory people (LDAP / OpenID Connect users, without a directory) -------------------------


@pytest.fixture
def member(db):
    """Alice as a directory user in the ``ml`` group only: a member (her own and ml's usage).
    The name and group are the engine's, as in ``tests/configs.py``'s limits."""
    from quotaweb.accounts.directory import directory_user_sync

    return directory_user_sync(username="alice", groups=["ml"], source="ldap")


@pytest.fixture
def member_client(member) -> Client:
    return _logged_in(member)
