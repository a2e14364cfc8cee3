"""``createsuperuser`` keeps working, and its user is a quota admin."""

import pytest
from django.core.management import call_command

from quotaweb.accounts.roles import user_role
from tests.personas import password_signs_in

pytestmark = pytest.mark.django_db


def test_createsuperuser_makes_a_quota_admin(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "root-pass-9")

    call_command("createsuperuser", "--noinput", "--username", "root", "--email", "r@x.org")

    root = password_signs_in("root", "root-pass-9")
    assert root.is_superuser
    assert user_role(root) == "admin"


def test_a_superuser_can_log_in_on_our_page(monkeypatch, client):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "root-pass-9")
    call_command("createsuperuser", "--noinput", "--username", "root", "--email", "r@x.org")

    response = client.post("/accounts/login/", {"username": "root", "password": "root-pass-9"})

    assert response.status_code == 302
    assert 'data-role="admin"' in client.get("/").content.decode()
