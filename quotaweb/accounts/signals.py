"""The sign-in audit from Django's own signals: every sign-in (whatever the backend) and every
refused password. Role changes are recorded where they are seen (``directory_user_sync``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_login_failed

from quotaweb.accounts.identity import directory_identity_current
from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.roles import ROLE_LABELS, user_role
from quotaweb.accounts.services import auth_event_record

SIGNED_IN = "as {role}"
REFUSED = "wrong password, or no such person"
SOURCE_LOCAL = "local"
# A refused password cannot say which backend would have had the person.
SOURCE_PASSWORD = "password"


def _address(request: Any) -> str | None:
    return request.META.get("REMOTE_ADDR") if request is not None else None


def _signed_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    identity = directory_identity_current(user)
    role = user_role(user)
    auth_event_record(
        kind=AuthEvent.KIND_SIGN_IN, username=user.get_username(),
        source=identity.source if identity is not None else SOURCE_LOCAL,
        detail=SIGNED_IN.format(role=ROLE_LABELS[role] if role else "no role"),
        address=_address(request),
    )


def _refused(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    username = str(credentials.get("username") or "")
    if not username:
        return
    auth_event_record(
        kind=AuthEvent.KIND_DENIED, username=username, source=SOURCE_PASSWORD, detail=REFUSED,
        address=_address(request),
    )


def sign_in_audit_connect() -> None:
    user_logged_in.connect(_signed_in, dispatch_uid="quotaweb-sign-in-audit")
    user_login_failed.connect(_refused, dispatch_uid="quotaweb-sign-in-refused-audit")
