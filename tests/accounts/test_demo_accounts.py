"""``accounts_demo_ensure``: the demo's admin and viewer logins, and the demo command's listing."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from quotaweb.accounts.roles import QUOTA_ADMINS_GROUP, user_role
from quotaweb.accounts.services import (
    DEMO_ADMIN_PASSWORD_DEFAULT,
    DEMO_ADMIN_PASSWORD_ENV,
    DEMO_VIEWER_PASSWORD_DEFAULT,
    DEMO_VIEWER_PASSWORD_ENV,
    accounts_demo_ensure,
)
from tests.personas import password_signs_in
from tests.server_process import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_password_variables(monkeypatch):
    # A developer's shell may set them; each test says what it wants.
    monkeypatch.delenv(DEMO_ADMIN_PASSWORD_ENV, raising=False)
    monkeypatch.delenv(DEMO_VIEWER_PASSWORD_ENV, raising=False)


def test_creates_an_admin_and_a_viewer_with_the_documented_passwords():
    logins = accounts_demo_ensure()

    assert [(login.username, login.role, login.password_from_env) for login in logins] == [
        ("admin", "admin", False),
        ("viewer", "viewer", False),
    ]
    admin = password_signs_in("admin", DEMO_ADMIN_PASSWORD_DEFAULT)
    viewer = password_signs_in("viewer", DEMO_VIEWER_PASSWORD_DEFAULT)
    assert admin.is_staff
    assert list(admin.groups.values_list("name", flat=True)) == [QUOTA_ADMINS_GROUP]
    assert user_role(admin) == "admin"
    assert not viewer.is_staff
    assert not viewer.is_superuser
    assert not viewer.groups.exists()
    assert user_role(viewer) == "viewer"


def test_passwords_come_from_the_environment(monkeypatch):
    monkeypatch.setenv(DEMO_ADMIN_PASSWORD_ENV, "admin-secret-1")
    monkeypatch.setenv(DEMO_VIEWER_PASSWORD_ENV, "viewer-secret-1")

    logins = accounts_demo_ensure()

    assert [(login.password, login.password_from_env) for login in logins] == [
        ("admin-secret-1", True),
        ("viewer-secret-1", True),
    ]
    assert password_signs_in("admin", "admin-secret-1")
    assert password_signs_in("viewer", "viewer-secret-1")
    assert password_signs_in("admin", DEMO_ADMIN_PASSWORD_DEFAULT) is None


def test_an_empty_variable_means_the_default(monkeypatch):
    monkeypatch.setenv(DEMO_ADMIN_PASSWORD_ENV, "")

    accounts_demo_ensure()

    assert password_signs_in("admin", DEMO_ADMIN_PASSWORD_DEFAULT)


def test_running_again_changes_nothing():
    accounts_demo_ensure()
    before = {u.username: (u.pk, u.password) for u in get_user_model().objects.all()}

    accounts_demo_ensure()

    after = {u.username: (u.pk, u.password) for u in get_user_model().objects.all()}
    assert after == before  # same rows, and the password hashes were not even re-salted
    assert get_user_model().objects.get(username="admin").groups.count() == 1


def test_a_changed_variable_changes_the_password_on_the_next_run(monkeypatch):
    accounts_demo_ensure()
    monkeypatch.setenv(DEMO_VIEWER_PASSWORD_ENV, "rotated-viewer-2")

    accounts_demo_ensure()

    assert password_signs_in("viewer", "rotated-viewer-2")
    assert password_signs_in("viewer", DEMO_VIEWER_PASSWORD_DEFAULT) is None


def test_a_promoted_demo_viewer_becomes_a_viewer_again(quota_admins_group):
    user_model = get_user_model()
    promoted = user_model.objects.create_user("viewer", is_staff=True, is_superuser=True)
    promoted.groups.add(quota_admins_group)

    accounts_demo_ensure()

    promoted.refresh_from_db()
    assert user_role(promoted) == "viewer"
    assert not promoted.is_superuser


def test_an_existing_superuser_named_admin_keeps_its_powers(django_user_model):
    django_user_model.objects.create_superuser("admin", password="chosen-by-hand")

    accounts_demo_ensure()

    admin = django_user_model.objects.get(username="admin")
    assert admin.is_superuser
    assert user_role(admin) == "admin"


def test_other_accounts_are_left_alone(admin, viewer):
    accounts_demo_ensure()

    assert get_user_model().objects.count() == 4
    assert user_role(admin) == "admin"
    assert user_role(viewer) == "viewer"


# -- the demo command lists the logins -----------------------------------------------------------


def run_demo(monkeypatch, capsys, port: int) -> tuple[str, str]:
    from quotaweb.core.management.commands import demo

    monkeypatch.setattr(demo, "serve", lambda **kw: None)
    call_command("demo", "--port", str(port))
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_the_demo_command_prints_the_login_page_and_both_logins(monkeypatch, capsys):
    port = free_port()
    out, err = run_demo(monkeypatch, capsys, port)

    assert f"Logins at http://127.0.0.1:{port}/accounts/login/:" in out
    assert f"  admin  / {DEMO_ADMIN_PASSWORD_DEFAULT}  (quota admin:" in out
    assert f"  viewer / {DEMO_VIEWER_PASSWORD_DEFAULT}  (viewer:" in out
    # The test settings run with debug off, where a published password deserves a warning.
    assert "QUOTAWEB_DEMO_ADMIN_PASSWORD" in err
    assert password_signs_in("admin", DEMO_ADMIN_PASSWORD_DEFAULT)


def test_the_demo_command_does_not_echo_passwords_from_the_environment(monkeypatch, capsys):
    monkeypatch.setenv(DEMO_ADMIN_PASSWORD_ENV, "admin-secret-3")
    monkeypatch.setenv(DEMO_VIEWER_PASSWORD_ENV, "viewer-secret-3")

    out, err = run_demo(monkeypatch, capsys, free_port())

    assert "admin-secret-3" not in out + err
    assert "viewer-secret-3" not in out + err
    assert f"  admin  / password from ${DEMO_ADMIN_PASSWORD_ENV}" in out
    assert f"  viewer / password from ${DEMO_VIEWER_PASSWORD_ENV}" in out
    assert err == ""
