"""Directory users: people who sign in through the site's directory (LDAP, OpenID Connect).

Each sign-in backend calls ``directory_user_sync`` with what the directory says about the person;
it keeps the Django user and their current directory groups (``DirectoryIdentity``), from which
``quotaweb.accounts.roles`` computes the role on every request. Between sign-ins a source may
read the groups again when they are older than its cache time (``quotaweb.accounts.identity``:
LDAP does), so a change in the directory counts from the next request after that time.

A directory name is the quota engine's name: user ``alice`` is ``user:alice`` in the limits, and a
member of ``ml-researchers`` reads ``group:ml-researchers``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction
from django.utils import timezone

from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.roles import ROLE_LABELS, role_from_groups
from quotaweb.accounts.services import auth_event_record

SOURCES = (DirectoryIdentity.SOURCE_LDAP, DirectoryIdentity.SOURCE_OIDC)

ERR_SOURCE = "a directory user comes from one of {sources}, not {source!r}"
ERR_USERNAME = "the directory gave no user name"
ERR_LOCAL_ACCOUNT = (
    "{username} is a local account of this site; a directory person of the same name cannot sign "
    "in as it. Rename one of them (docs/authentication.md, \"Local accounts\")."
)
ROLE_CHANGE = "{before} -> {after} (directory groups: {groups})"


class DirectoryUserRefused(ValueError):
    """The directory person cannot be a user of this site (the message says why)."""


def _groups_clean(groups: Iterable[str]) -> list[str]:
    return sorted({str(name).strip() for name in groups if str(name).strip()})


def _role_text(identity: DirectoryIdentity | None) -> str:
    if identity is None or not identity.present:
        return "no role"
    return ROLE_LABELS[role_from_groups(identity.groups)]


def is_local_account(user: Any) -> bool:
    """A user made on this site rather than by a sign-in backend a moment ago: one with a
    password, staff or superuser rights, Django groups or an API token (a service account)."""
    from rest_framework.authtoken.models import Token

    if DirectoryIdentity.objects.filter(user=user).exists():
        return False
    return bool(
        user.has_usable_password() or user.is_staff or user.is_superuser
        or user.groups.exists() or Token.objects.filter(user=user).exists()
    )


@transaction.atomic
def directory_user_sync(
    *, username: str, groups: Iterable[str], source: str, email: str = "", full_name: str = "",
) -> AbstractUser:
    """Create or update the Django user of a directory person and store their current groups.

    Raises ``DirectoryUserRefused`` for an unknown source, an empty name, or a name that is a
    local account (a directory must not take over the break-glass admin). A role different from
    the one their stored groups gave is recorded in the audit.
    """
    if source not in SOURCES:
        raise DirectoryUserRefused(ERR_SOURCE.format(sources=", ".join(SOURCES), source=source))
    username = username.strip()
    if not username:
        raise DirectoryUserRefused(ERR_USERNAME)
    user_model = get_user_model()
    user, created = user_model.objects.select_for_update().get_or_create(
        **{user_model.USERNAME_FIELD: username}, defaults={"is_active": True},
    )
    identity = DirectoryIdentity.objects.filter(user=user).first()
    if identity is None and not created and is_local_account(user):
        raise DirectoryUserRefused(ERR_LOCAL_ACCOUNT.format(username=username))
    if created or user.has_usable_password():
        user.set_unusable_password()
    first, _, last = full_name.strip().partition(" ")
    user.email = email.strip()[:254]
    user.first_name = first[:150]
    user.last_name = last.strip()[:150]
    # A person the directory has again (or still) is active: the directory decides, not us.
    user.is_active = True
    user.save()

    before = _role_text(identity) if identity is not None else None
    clean = _groups_clean(groups)
    if identity is None:
        identity = DirectoryIdentity(user=user)
    identity.source = source
    identity.groups = clean
    identity.synced_at = timezone.now()
    identity.present = True
    identity.save()
    after = _role_text(identity)
    if before is not None and before != after:
        _role_change_record(username=username, source=source, before=before, after=after,
                            groups=clean)
    user.__dict__.pop("_quotaweb_role", None)
    return user


def directory_user_gone(*, identity: DirectoryIdentity) -> None:
    """The directory no longer has this person: no role from now on (their sessions and tokens
    stop working), recorded in the audit. A later sign-in, if the entry comes back, restores it."""
    if not identity.present:
        return
    before = _role_text(identity)
    identity.present = False
    identity.groups = []
    identity.synced_at = timezone.now()
    identity.save(update_fields=["present", "groups", "synced_at"])
    _role_change_record(
        username=identity.user.get_username(), source=identity.source, before=before,
        after="no role (not in the directory any more)", groups=[],
    )


def _role_change_record(
    *, username: str, source: str, before: str, after: str, groups: list[str]
) -> None:
    detail = ROLE_CHANGE.format(before=before, after=after, groups=", ".join(groups) or "none")
    auth_event_record(
        kind=AuthEvent.KIND_ROLE_CHANGE, username=username, source=source, detail=detail,
    )


def directory_name(user: Any) -> str:
    """How the audit and the version history name a user: ``alice (ldap)`` for a directory
    user, the user name for a local account."""
    if user is None:
        return ""
    try:
        source = user.directory_identity.source
    except DirectoryIdentity.DoesNotExist:
        return user.get_username()
    return f"{user.get_username()} ({source})"
