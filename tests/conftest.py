"""Fixtures shared by every quotaweb test.

Each test starts without engines (``engines_reset`` runs before and after it), so nothing leaks
between tests or into forked live servers. Ask for ``gateway`` to get fresh engines loaded from the
sample configuration.

Personas (each a user in the test database; all share ``PERSONA_PASSWORD``):

- ``admin``: Ada, a quota admin through the ``quota-admins`` group (not staff);
- ``staff_admin``: Stan, a quota admin because he is staff (in no group);
- ``viewer``: Vera, a plain active account that reads but changes nothing;
- ``outsider``: a client nobody is logged into.

``quota_admin_client``, ``staff_admin_client`` and ``viewer_client`` are clients logged in as
those personas. (pytest-django's own ``admin_client`` and ``admin_user`` are a superuser, not a
persona; ``tests/config`` overrides ``admin`` with its own staff user.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

SAMPLE_CONFIG = Path(__file__).resolve().parent.parent / "quotaweb" / "samples" / "queues.yaml"


def pytest_report_header(config):
    """Say which database and channel layer this run uses (``.ci/run`` runs several)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    where = database.get("HOST") or "file"
    return f"quotaweb: database {database['ENGINE'].rsplit('.', 1)[-1]} ({where}), layer {layer}"


@pytest.fixture(autouse=True)
def _no_engines_between_tests():
    from quotaweb.api.authentication import token_cache_clear
    from quotaweb.engine.gateway import engines_reset

    # Token keys are random, but a test that deletes a token must not find it remembered.
    token_cache_clear()
    engines_reset()
    yield
    engines_reset()


@pytest.fixture
def sample_yaml() -> str:
    return SAMPLE_CONFIG.read_text(encoding="utf-8")


@pytest.fixture
def gateway(sample_yaml):
    """Fresh engines for every partition of the sample configuration, owned by this test."""
    from quotaweb.engine.gateway import engines_load

    return engines_load(yaml_text=sample_yaml)


# -- personas ----------------------------------------------------------------------------------

PERSONA_PASSWORD = "persona-pass-1"


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


@pytest.fixture
def capped_engines(db):
    """The allocation tests' small capped config as version 1, engines started from it."""
    from tests.api.allocation_support import engines_capped

    return engines_capped()
