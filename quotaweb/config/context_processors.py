"""The admin's draft on every page, so staged changes are never forgotten."""

from __future__ import annotations

from django.http import HttpRequest

from quotaweb.accounts.roles import is_quota_admin
from quotaweb.config.models import Draft


def draft(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not is_quota_admin(user):
        return {}
    found = Draft.objects.filter(author=user).values("base_version", "edits").first()
    if not found or not found["edits"]:
        return {}
    return {"draft_count": len(found["edits"]), "draft_base": found["base_version"]}
