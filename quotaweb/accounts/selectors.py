"""Reads of credentials: which team link a token is, personal tokens, the sign-in audit."""

from __future__ import annotations

from quotaweb.accounts.models import AuthEvent, TeamLink


def team_link_active(*, token: str) -> TeamLink | None:
    """The link with this token if it exists and is not revoked."""
    if not token:
        return None
    return TeamLink.objects.filter(token=token, revoked__isnull=True).first()


AUDIT_SHOWN = 200


def auth_events_recent(*, kind: str = "") -> list[AuthEvent]:
    """The newest sign-in audit lines (of one kind, when given)."""
    events = AuthEvent.objects.all()
    if kind:
        events = events.filter(kind=kind)
    return list(events[:AUDIT_SHOWN])


def personal_token_exists(*, user) -> bool:
    from rest_framework.authtoken.models import Token

    return Token.objects.filter(user=user).exists()
