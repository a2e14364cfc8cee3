"""Template flags from the user's role, so pages can leave out controls a viewer cannot use."""

from __future__ import annotations

from django.http import HttpRequest

from quotaweb.accounts.roles import ROLE_ADMIN, ROLE_LABELS, user_role


def roles(request: HttpRequest) -> dict[str, object]:
    # Hiding controls is a courtesy; the decorators are what refuse a viewer's write.
    role = user_role(getattr(request, "user", None))
    return {
        "can_edit": role == ROLE_ADMIN,
        "user_role": role,
        "user_role_label": ROLE_LABELS[role] if role else "",
    }
