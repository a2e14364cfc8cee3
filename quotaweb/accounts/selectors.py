"""Reads of credentials: which team link a token is."""

from __future__ import annotations

from quotaweb.accounts.models import TeamLink


def team_link_active(*, token: str) -> TeamLink | None:
    """The link with this token if it exists and is not revoked."""
    if not token:
        return None
    return TeamLink.objects.filter(token=token, revoked__isnull=True).first()
