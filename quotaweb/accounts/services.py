"""Writes for accounts: the ``quota-admins`` group, the demo's two logins and the sign-in audit."""

from __future__ import annotations

import dataclasses

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.roles import QUOTA_ADMINS_GROUP, ROLE_ADMIN, ROLE_VIEWER, Role
from quotaweb.env import env_str

DEMO_ADMIN_USERNAME = "admin"
DEMO_VIEWER_USERNAME = "viewer"
DEMO_ADMIN_PASSWORD_ENV = "QUOTAWEB_DEMO_ADMIN_PASSWORD"
DEMO_VIEWER_PASSWORD_ENV = "QUOTAWEB_DEMO_VIEWER_PASSWORD"
# Documented in docs/demo.md; anyone can read them, so they are for a machine of one's own only.
DEMO_ADMIN_PASSWORD_DEFAULT = "quota-admin-demo"
DEMO_VIEWER_PASSWORD_DEFAULT = "quota-viewer-demo"
# Staff alone opens /admin/ but shows nothing in it; membership of quota-admins is edited on a
# user's page, so the demo admin needs the user permissions and to see the groups.
DEMO_ADMIN_PERMISSIONS = ("add_user", "change_user", "view_user", "view_group")


@dataclasses.dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: Role
    password_env: str
    password_from_env: bool


def quota_admins_group_ensure() -> Group:
    """The ``quota-admins`` group, created if missing.

    The migration creates it too; this covers databases flushed since (transactional tests) and
    a group someone deleted in the Django admin.
    """
    group, _ = Group.objects.get_or_create(name=QUOTA_ADMINS_GROUP)
    return group


def _demo_password(*, env: str, default: str) -> tuple[str, bool]:
    value = env_str(env, None)
    return (default, False) if value is None else (value, True)


@transaction.atomic
def accounts_demo_ensure() -> list[DemoLogin]:
    """Make sure the demo's ``admin`` and ``viewer`` logins exist with their current passwords.

    Idempotent: running it again changes nothing unless a password variable changed. The admin
    is staff, in ``quota-admins`` and may manage that group's members in the Django admin; the
    viewer is made a plain viewer even if someone promoted it, so the demo always shows both
    roles. Other accounts are never touched.
    """
    group = quota_admins_group_ensure()
    admin_password, admin_from_env = _demo_password(
        env=DEMO_ADMIN_PASSWORD_ENV, default=DEMO_ADMIN_PASSWORD_DEFAULT
    )
    viewer_password, viewer_from_env = _demo_password(
        env=DEMO_VIEWER_PASSWORD_ENV, default=DEMO_VIEWER_PASSWORD_DEFAULT
    )

    admin = _demo_user_ensure(
        username=DEMO_ADMIN_USERNAME, password=admin_password, is_staff=True
    )
    admin.groups.add(group)
    admin.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="auth", codename__in=DEMO_ADMIN_PERMISSIONS
        )
    )
    viewer = _demo_user_ensure(
        username=DEMO_VIEWER_USERNAME, password=viewer_password, is_staff=False
    )
    viewer.groups.remove(group)

    return [
        DemoLogin(
            username=admin.get_username(), password=admin_password, role=ROLE_ADMIN,
            password_env=DEMO_ADMIN_PASSWORD_ENV, password_from_env=admin_from_env,
        ),
        DemoLogin(
            username=viewer.get_username(), password=viewer_password, role=ROLE_VIEWER,
            password_env=DEMO_VIEWER_PASSWORD_ENV, password_from_env=viewer_from_env,
        ),
    ]


def _demo_user_ensure(*, username: str, password: str, is_staff: bool):
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        **{user_model.USERNAME_FIELD: username},
        defaults={"is_staff": is_staff, "is_active": True},
    )
    changed = created
    # A demo viewer must not keep superuser powers (they bypass every permission check);
    # the demo admin keeps them if someone made it a superuser with createsuperuser.
    wanted = {"is_staff": is_staff, "is_active": True}
    if not is_staff:
        wanted["is_superuser"] = False
    for field, value in wanted.items():
        if getattr(user, field) != value:
            setattr(user, field, value)
            changed = True
    # check_password first, so an unchanged password is not rehashed with a fresh salt each run.
    if created or not user.check_password(password):
        user.set_password(password)
        changed = True
    if changed:
        user.save()
    return user


def auth_event_record(
    *, kind: str, username: str, source: str, detail: str = "", address: str | None = None,
) -> AuthEvent:
    """One line of the sign-in audit (``AuthEvent``); names are cut to their columns."""
    return AuthEvent.objects.create(
        kind=kind, username=username[:255], source=source[:8], detail=detail[:300],
        address=address or None,
    )


ERR_TOKEN_LOCAL = (
    "{username} is a local account: its API tokens are made by an admin, for service accounts. "
    "Personal tokens are for people who sign in through the directory."
)


class PersonalTokenRefused(ValueError):
    pass


def personal_token_create(*, user) -> str:
    """A new personal API token for a directory user (any earlier one stops working); it acts
    with the role their directory groups give them at each request. Returns the key, shown once.
    """
    # Imported here: DRF's token model needs the apps loaded, and only this service uses it.
    from rest_framework.authtoken.models import Token

    if not DirectoryIdentity.objects.filter(user=user).exists():
        raise PersonalTokenRefused(ERR_TOKEN_LOCAL.format(username=user.get_username()))
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user).key


def personal_token_revoke(*, user) -> bool:
    """Delete the directory user's token; False when they had none."""
    from rest_framework.authtoken.models import Token

    if not DirectoryIdentity.objects.filter(user=user).exists():
        raise PersonalTokenRefused(ERR_TOKEN_LOCAL.format(username=user.get_username()))
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
