"""The admin's latest replay, for the draft page to show beside the impact preview (read only
when a template asks for it: most pages never do)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpRequest

from quotaweb.accounts.roles import is_quota_admin
from quotaweb.whatif import selectors, services
from quotaweb.whatif.models import Replay


def _latest(request: HttpRequest) -> dict[str, Any] | None:
    run = selectors.replay_latest(author=request.user)
    if run is None:
        return None
    state = services.replay_state(run)
    result = run.result or {}
    return {
        "pk": run.pk, "state": state, "partition": run.partition,
        "active": state in (Replay.QUEUED, Replay.RUNNING),
        "denied": (result.get("newlyDenied") or {}).get("count"),
        "admitted": (result.get("newlyAdmitted") or {}).get("count"),
        "stale": run.digest != services.draft_digest(author=request.user),
    }


def replay(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not is_quota_admin(user):
        return {}
    # A callable: the template calls it only where it names it.
    return {"replay_latest": partial(_latest, request)}
