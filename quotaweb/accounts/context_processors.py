"""Template flags from the user's role, so pages can leave out controls a viewer cannot use."""

from __future__ import annotations

from django.http import HttpRequest

from quotaweb.accounts.identity import directory_identity_current
from quotaweb.accounts.roles import ROLE_ADMIN, ROLE_LABELS, user_role


def roles(request: HttpRequest) -> dict[str, object]:
    # Hiding controls is a courtesy; the decorators are what refuse a viewer's write.
    role = user_role(getattr(request, "user", None))
    return {
        "can_edit": role == ROLE_ADMIN,
        "user_role": role,
        "user_role_label": ROLE_LABELS[role] if role else "",
    }


def directory(request: HttpRequest) -> dict[str, object]:
    """``directory_user``: the person signed in through the directory (their own API token)."""
    user = getattr(request, "user", None)
    return {
        "directory_user": user_role(user) is not None and directory_identity_current(user)
        is not None,
    }
