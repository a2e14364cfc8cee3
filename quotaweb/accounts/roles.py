"""The three roles: quota admins change the configuration, viewers read every page, members read
only their own usage and their groups' usage.

A role is derived from the user on every call, never stored: removing someone from the group or
unticking "staff" in the Django admin takes effect on their next request.

- Local accounts (made in Django): staff or the ``quota-admins`` group is an admin, anyone else
  active a viewer. They are never members.
- Directory users (LDAP, OpenID Connect: ``quotaweb.accounts.directory``): their directory
  groups decide, from ``QUOTAWEB_ADMIN_GROUPS`` and ``QUOTAWEB_VIEWER_GROUPS``; anyone in neither
  gets ``QUOTAWEB_DEFAULT_ROLE``. Staff and Django groups do not count for them, so a directory
  change is the only way their role changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Literal

from django.conf import settings

from quotaweb.accounts.identity import directory_identity_current

# Named in the API spec; admins manage membership in the Django admin like any other group.
QUOTA_ADMINS_GROUP = "quota-admins"

ROLE_ADMIN = "admin"
ROLE_VIEWER = "viewer"
ROLE_MEMBER = "member"
Role = Literal["admin", "viewer", "member"]

ROLE_LABELS: dict[str, str] = {
    ROLE_ADMIN: "quota admin", ROLE_VIEWER: "viewer", ROLE_MEMBER: "member",
}

# Kept on the user object, which lives for one request (or a token's few cached seconds).
_ROLE_ATTR = "_quotaweb_role"
_NO_ROLE = "none"


def is_signed_in(user: Any) -> bool:
    """An active, authenticated user, whatever their role."""
    # Inactive users are checked explicitly: a custom auth backend may still hand them out.
    return bool(user is not None and user.is_authenticated and user.is_active)


def role_from_groups(groups: Iterable[str]) -> Role:
    """A directory user's role from their directory groups (admin wins over viewer)."""
    names = set(groups)
    if names.intersection(settings.QUOTAWEB_ADMIN_GROUPS):
        return ROLE_ADMIN
    if names.intersection(settings.QUOTAWEB_VIEWER_GROUPS):
        return ROLE_VIEWER
    return ROLE_MEMBER if settings.QUOTAWEB_DEFAULT_ROLE == ROLE_MEMBER else ROLE_VIEWER


def _role_computed(user: Any) -> Role | None:
    if not is_signed_in(user):
        return None
    identity = directory_identity_current(user)
    if identity is not None:
        return role_from_groups(identity.groups) if identity.present else None
    if user.is_staff or user.groups.filter(name=QUOTA_ADMINS_GROUP).exists():
        return ROLE_ADMIN
    return ROLE_VIEWER


def user_role(user: Any) -> Role | None:
    """``"admin"``, ``"viewer"``, ``"member"``, or None for anonymous and inactive users and
    directory users the directory no longer has."""
    if not is_signed_in(user):
        return None
    known = getattr(user, _ROLE_ATTR, None)
    if known is None:
        # Asked several times per request (decorator, context processors): computed once per
        # user object, so a change still counts from the next request on.
        computed = _role_computed(user)
        known = _NO_ROLE if computed is None else computed
        setattr(user, _ROLE_ATTR, known)
    return None if known == _NO_ROLE else known


def role_known(user: Any) -> Role | bool | None:
    """``user_role`` when the answer needs no database or directory query, else False."""
    if not is_signed_in(user):
        return None
    known = getattr(user, _ROLE_ATTR, None)
    if known is None:
        return False
    return None if known == _NO_ROLE else known


def is_viewer(user: Any) -> bool:
    """May read every page: admins and viewers (members read only their own scope)."""
    return user_role(user) in (ROLE_ADMIN, ROLE_VIEWER)


def is_member(user: Any) -> bool:
    return user_role(user) == ROLE_MEMBER


def is_quota_admin(user: Any) -> bool:
    """May write: a local account that is staff or in ``quota-admins``, or a directory user in
    one of ``QUOTAWEB_ADMIN_GROUPS``."""
    return user_role(user) == ROLE_ADMIN


def quota_admin_known(user: Any) -> bool | None:
    """``is_quota_admin`` when the answer needs no database query, else None."""
    known = role_known(user)
    return None if known is False else known == ROLE_ADMIN


def viewer_known(user: Any) -> bool | None:
    """``is_viewer`` when the answer needs no database query, else None."""
    known = role_known(user)
    return None if known is False else known in (ROLE_ADMIN, ROLE_VIEWER)


@dataclasses.dataclass(frozen=True)
class OwnScope:
    """What a person's own usage is: their user name and their directory groups, which are the
    quota engine's names (``user:alice``, ``group:ml-researchers``). All a member may read."""

    user: str
    groups: tuple[str, ...]

    def allows(self, *, kind: str, name: str) -> bool:
        if kind == "user":
            return name == self.user
        return kind == "group" and name in self.groups

    @property
    def scope_texts(self) -> frozenset[str]:
        return frozenset([f"user:{self.user}", *(f"group:{name}" for name in self.groups)])


def own_scope(user: Any) -> OwnScope | None:
    """The signed-in person's own scope (a local account has no directory groups), or None for
    anonymous and inactive users."""
    if user_role(user) is None:
        return None
    identity = directory_identity_current(user)
    groups = tuple(identity.groups) if identity is not None else ()
    return OwnScope(user=user.get_username(), groups=groups)
