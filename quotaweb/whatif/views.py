"""The replay of an admin's draft against history: start it, watch it, read what it found."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from quotaweb.accounts.decorators import admin_required
from quotaweb.config.selectors import draft_records
from quotaweb.config.services import ConfigRejected, draft_candidate
from quotaweb.whatif import selectors, services
from quotaweb.whatif.forms import ReplayForm
from quotaweb.whatif.models import Replay

STARTED = "Replay {pk} started: it runs in the background, and this page follows it."
CANCEL_ASKED = "Replay {pk} stops at its next step."
# What the page says plainly about what a replay cannot know (issue 30).
LIMITS = (
    "A replay asks the candidate the very requests that came, in the order they came. It "
    "cannot know what the schedulers would have done instead: a denied request is usually "
    "retried and runs later, and work admitted here would have changed what came after it. "
    "Read the figures as \"which of the requests that really came would this configuration "
    "have refused\", not as what the cluster would have done."
)
FIELD_OF = {"from": "start", "to": "end", "partition": "partition"}


def _partitions(request: HttpRequest) -> list[str]:
    records = draft_records(author=request.user)
    if not records:
        return []
    try:
        model, _ = draft_candidate(records=records)
    except ConfigRejected:
        return []
    return [partition.name for partition in model.partitions]


@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def draft_replay(request: HttpRequest) -> HttpResponse:
    partitions = _partitions(request)
    form = ReplayForm(request.POST if request.method == "POST" else None,
                      partitions=partitions)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            run = services.replay_start(author=request.user, params=form.params())
        except services.ReplayInvalid as invalid:
            form.add_error(FIELD_OF.get(invalid.parameter), str(invalid))
            status = 400
        except services.ReplayBusy as busy:
            form.add_error(None, str(busy))
            status = 409
        else:
            messages.success(request, STARTED.format(pk=run.pk))
            return redirect("whatif:draft")
    elif request.method == "POST":
        status = 400
    latest = selectors.replay_latest(author=request.user)
    context: dict[str, Any] = {
        "form": form, "partitions": partitions, "limits": LIMITS,
        "run": latest and _run_view(latest),
        "stale": bool(latest and latest.digest != services.draft_digest(author=request.user)),
    }
    return render(request, "whatif/replay.html", context, status=status)


def _run_view(run: Replay) -> dict[str, Any]:
    state = services.replay_state(run)
    return {
        "pk": run.pk, "state": state, "partition": run.partition, "since": run.since,
        "until": run.until, "total": run.total, "done": run.done, "result": run.result,
        "error": services.ERR_STOPPED if state != run.state else run.error,
        "active": state in (Replay.QUEUED, Replay.RUNNING),
        "status_url": reverse("api-replay", args=[run.pk]),
        "source": run.source,
    }


@admin_required
@require_POST
def replay_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.replay_get(pk=pk)
    if run is not None and run.author_id == request.user.pk:
        try:
            services.replay_cancel(run=run)
        except services.ReplayInvalid as invalid:
            messages.info(request, str(invalid))
        else:
            messages.info(request, CANCEL_ASKED.format(pk=pk))
    return redirect("whatif:draft")
