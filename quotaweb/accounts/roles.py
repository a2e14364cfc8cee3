"""The two roles: quota admins change the configuration, viewers read every page.

A role is derived from the user on every call, never stored: removing someone from the group or
unticking "staff" in the Django admin takes effect on their next request.
"""

from __future__ import annotations

from typing import Any, Literal

# Named in the API spec; admins manage membership in the Django admin like any other group.
QUOTA_ADMINS_GROUP = "quota-admins"

ROLE_ADMIN = "admin"
ROLE_VIEWER = "viewer"
Role = Literal["admin", "viewer"]

ROLE_LABELS: dict[str, str] = {ROLE_ADMIN: "quota admin", ROLE_VIEWER: "viewer"}


def is_viewer(user: Any) -> bool:
    """Any active, authenticated user may read."""
    # Inactive users are checked explicitly: a custom auth backend may still hand them out.
    return bool(user is not None and user.is_authenticated and user.is_active)


def is_quota_admin(user: Any) -> bool:
    """An active user who is staff or a member of the ``quota-admins`` group may write."""
    known = quota_admin_known(user)
    if known is not None:
        return known
    # Asked several times per request (decorator, context processors); the user object lives for
    # one request, so a group change still counts from the next request on.
    user._quota_admin = user.groups.filter(name=QUOTA_ADMINS_GROUP).exists()
    return bool(user._quota_admin)


def quota_admin_known(user: Any) -> bool | None:
    """``is_quota_admin`` when the answer needs no database query, else None."""
    if not is_viewer(user):
        return False
    if user.is_staff:
        return True
    return getattr(user, "_quota_admin", None)


def user_role(user: Any) -> Role | None:
    """``"admin"``, ``"viewer"``, or None for anonymous and inactive users."""
    if is_quota_admin(user):
        return ROLE_ADMIN
    if is_viewer(user):
        return ROLE_VIEWER
    return None
