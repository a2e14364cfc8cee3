"""Reads of team-dashboard links."""

from __future__ import annotations

from django.db.models import QuerySet

from quotaweb.teams.models import TeamLink


def team_link_active(*, token: str) -> TeamLink | None:
    """The link with this token if it exists and is not revoked."""
    if not token:
        return None
    return TeamLink.objects.filter(token=token, revoked__isnull=True).first()


def team_links_list() -> QuerySet[TeamLink]:
    return TeamLink.objects.select_related("created_by").all()
