"""Reads of team-dashboard links (the credential lookup itself is ``accounts.selectors``)."""

from __future__ import annotations

from django.db.models import QuerySet

from quotaweb.accounts.models import TeamLink


def team_links_list() -> QuerySet[TeamLink]:
    return TeamLink.objects.select_related("created_by").all()
