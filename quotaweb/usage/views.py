"""Live usage pages: a partition's queues, its users and groups, one queue, the activity feed;
and from the samples, who sits above a limit and trends over time (with a CSV export).

Read-only for everyone logged in. Each view calls one selector of ``page_selectors`` and renders
the first state on the server (so a page works without scripts); ``static/js/live.js`` then
follows the live socket (the sampled pages are not live: they say when the last sample was).
Partition, selection and filters are in the URL. Something unknown answers 404 with the
selector's message, a parameter out of range 400; engines not loaded yet answer 503 "starting".
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from quotaweb.accounts.decorators import viewer_required
from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition
from quotaweb.engine.owners import NOT_OWNER_HEADER, NotOwner
from quotaweb.usage import page_selectors, tree_window
from quotaweb.usage.accounting import AccountingInvalid
from quotaweb.usage.accounting_page import accounting_page
from quotaweb.usage.forms import FitForm

TITLE_NOT_FOUND = "Not found"
TITLE_BAD_REQUEST = "Cannot show this"
TITLE_STARTING = "Starting"
ERR_STARTING = (
    "The quota engines are still starting in this server, so there is no usage to show yet. "
    "Reload this page in a moment."
)
ERR_FORMAT = (
    "format can only be csv (the samples as a download); leave it out for the chart, not {value!r}."
)


def _guarded(request: HttpRequest, answer: Callable[[], HttpResponse]) -> HttpResponse:
    """``answer()``, or the problem page it ran into."""
    try:
        return answer()
    except (page_selectors.UsageNotFound, UnknownPartition) as error:
        # UnknownPartition: a configuration switch dropped the partition while the page read it.
        return _problem(request, status=404, title=TITLE_NOT_FOUND, message=str(error))
    except page_selectors.UsageBadRequest as error:
        return _problem(request, status=400, title=TITLE_BAD_REQUEST, message=str(error))
    except EngineNotLoaded as error:
        response = _problem(request, status=503, title=TITLE_STARTING, message=ERR_STARTING)
        response["Retry-After"] = "5"
        if isinstance(error, NotOwner):
            response[NOT_OWNER_HEADER] = "1"
        return response


def _page(
    request: HttpRequest, template: str, read: Callable[..., dict[str, Any]], **kwargs: Any
) -> HttpResponse:
    return _guarded(request, lambda: render(request, template, read(**kwargs)))


def _problem(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request, "usage/problem.html", {"title": title, "message": message}, status=status
    )


@require_safe
@viewer_required
def index(request: HttpRequest) -> HttpResponse:
    """``/usage/``: the first partition's overview."""
    return _guarded(
        request,
        lambda: redirect("usage:overview", partition=page_selectors.first_partition()),
    )


@require_safe
@viewer_required
def overview(request: HttpRequest, partition: str) -> HttpResponse:
    params = request.GET
    return _page(
        request, "usage/overview.html", tree_window.overview_window, partition=partition,
        focus=params.get("focus", "").strip(), page=params.get("page"),
        query=params.get("q", "").strip(),
    )


@require_safe
@viewer_required
def users(request: HttpRequest, partition: str) -> HttpResponse:
    params = request.GET
    return _page(
        request, "usage/users.html", page_selectors.user_list, partition=partition,
        q=params.get("q", "").strip(), queue=params.get("queue", "").strip(),
        group=params.get("group", "").strip(), sort=params.get("sort", "name"),
        page=params.get("page"),
    )


@require_safe
@viewer_required
def user(request: HttpRequest, partition: str, name: str) -> HttpResponse:
    # Any query parameter means the "will it fit?" form was sent.
    form = FitForm(request.GET or None)
    question = form.question() if form.is_bound and form.is_valid() else None
    return _page(
        request, "usage/user.html", _with_form(page_selectors.user_detail, form),
        partition=partition, name=name, fit=question,
    )


def _with_form(read: Callable[..., dict[str, Any]], form: FitForm) -> Callable[..., dict]:
    """``read`` with the form in its context, and the engine's refusal placed on the form."""

    def reading(**kwargs: Any) -> dict[str, Any]:
        context = read(**kwargs)
        problem = context.pop("fit_problem", None)
        if problem is not None:
            form.add_error(*problem)
        form.offer_queues(context["queue_picker"])
        context["form"] = form
        return context

    return reading


@require_safe
@viewer_required
def groups(request: HttpRequest, partition: str) -> HttpResponse:
    params = request.GET
    return _page(
        request, "usage/groups.html", page_selectors.group_list, partition=partition,
        q=params.get("q", "").strip(), queue=params.get("queue", "").strip(),
        sort=params.get("sort", "name"), page=params.get("page"),
    )


@require_safe
@viewer_required
def group(request: HttpRequest, partition: str, name: str) -> HttpResponse:
    return _page(
        request, "usage/group.html", page_selectors.group_detail, partition=partition, name=name
    )


@require_safe
@viewer_required
def queue(request: HttpRequest, partition: str, queue_path: str) -> HttpResponse:
    return _page(
        request, "usage/queue.html", page_selectors.queue_detail, partition=partition,
        queue_path=queue_path,
    )


@require_safe
@viewer_required
def activity(request: HttpRequest, partition: str) -> HttpResponse:
    params = request.GET
    return _page(
        request, "usage/activity.html", page_selectors.event_list, partition=partition,
        kind=params.get("type", ""), user=params.get("user", "").strip(),
        group=params.get("group", "").strip(), queue=params.get("queue", "").strip(),
        reason=params.get("reason", "").strip(), within=params.get("within", "").strip(),
        before=params.get("before", "").strip(),
    )


@require_safe
@viewer_required
def over_limit(request: HttpRequest, partition: str) -> HttpResponse:
    return _page(
        request, "usage/over_limit.html", page_selectors.over_limit_page, partition=partition
    )


@require_safe
@viewer_required
def trends(request: HttpRequest, partition: str, kind: str, name: str) -> HttpResponse:
    """A chart per resource over ``?days=`` (1 by default); ``?format=csv`` the samples."""
    days, fmt = request.GET.get("days"), request.GET.get("format", "")

    def answer() -> HttpResponse:
        if fmt == "csv":
            return _csv(*page_selectors.trend_csv(
                partition=partition, kind=kind, name=name, days=days
            ))
        if fmt:
            raise page_selectors.UsageBadRequest(ERR_FORMAT.format(value=fmt))
        return render(request, "usage/trends.html", page_selectors.trend_detail(
            partition=partition, kind=kind, name=name, days=days
        ))

    return _guarded(request, answer)


@require_safe
@viewer_required
def accounting(request: HttpRequest, partition: str) -> HttpResponse:
    """Resource-time over a period: a stacked chart, a sortable table, the CSV (the API's)."""

    def answer() -> HttpResponse:
        # An unknown partition in the path is a page that does not exist (404), as elsewhere.
        page = page_selectors.page_of(partition, section="accounting")
        try:
            context = accounting_page(partition=partition, params=request.GET)
        except AccountingInvalid as invalid:
            raise page_selectors.UsageBadRequest(f"{invalid.parameter}: {invalid}") from None
        return render(request, "usage/accounting.html", {**page, **context})

    return _guarded(request, answer)


def _csv(filename: str, rows: list[list[str]]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    csv.writer(response).writerows(rows)
    return response


@require_safe
@viewer_required
def tree_fragment(request: HttpRequest, partition: str, queue_path: str) -> HttpResponse:
    """The rows of one page of a queue's children, for a tree page that opens it in place
    (``static/js/usage-tree.js``); without scripts the same link opens the overview on it."""
    return _page(
        request, "usage/_tree_fragment.html", lambda **kwargs: {
            "partition": partition, "window": tree_window.queue_fragment(**kwargs)},
        partition=partition, path=queue_path, page=request.GET.get("page"),
    )
