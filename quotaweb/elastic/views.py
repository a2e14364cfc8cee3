"""The elastic quota pages under ``/elastic/``: a partition's runtimes per queue and resource
(live), one runtime explained, and the admin's switch and cluster total.

Everyone logged in reads; the two forms post to URLs of their own that only quota admins may
use (a viewer's POST is refused with 403 and changes nothing). Each view calls one page
selector or one service; a refused change shows the page again with the errors on its form, a
successful one redirects back with a message (POST, redirect, GET).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from quotaweb.accounts.decorators import viewer_required
from quotaweb.elastic import page_selectors, services
from quotaweb.elastic.forms import SwitchForm, TotalForm
from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition
from quotaweb.engine.owners import NOT_OWNER_HEADER, NotOwner
from trackers import InvalidRequest
from trackers.resources import format_resource

TITLE_NOT_FOUND = "Not found"
TITLE_BAD_REQUEST = "Cannot show this"
TITLE_STARTING = "Starting"
ERR_STARTING = (
    "The quota engines are still starting in this server, so there is no elastic quota to show "
    "yet. Reload this page in a moment."
)
DONE_ON = (
    "Elastic quota is on in partition {partition}: allocations must now also fit their leaf "
    "queue's runtime."
)
DONE_OFF = (
    "Elastic quota is off in partition {partition}: runtimes are still computed and shown, "
    "but no longer enforced."
)
DONE_TOTAL = "The cluster total of partition {partition} is now {total}."
DONE_TOTAL_EMPTY = "Partition {partition} has no cluster total now: there is nothing to share."


def _guarded(request: HttpRequest, answer: Callable[[], HttpResponse]) -> HttpResponse:
    try:
        return answer()
    except (page_selectors.ElasticNotFound, UnknownPartition) as error:
        return _problem(request, status=404, title=TITLE_NOT_FOUND, message=str(error))
    except page_selectors.ElasticBadRequest as error:
        return _problem(request, status=400, title=TITLE_BAD_REQUEST, message=str(error))
    except EngineNotLoaded as error:
        response = _problem(request, status=503, title=TITLE_STARTING, message=ERR_STARTING)
        response["Retry-After"] = "5"
        if isinstance(error, NotOwner):
            response[NOT_OWNER_HEADER] = "1"
        return response


def _problem(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request, "elastic/problem.html", {"title": title, "message": message}, status=status
    )


def _page(
    request: HttpRequest, partition: str, *, status: int = 200, **forms: Any
) -> HttpResponse:
    """The partition's page, with the admin's forms (bound ones when a change was refused)."""
    params = request.GET
    context = page_selectors.elastic_page(
        partition=partition, show_picks=params.get("revocation") == "1",
        focus=params.get("focus", "").strip(), page=params.get("page"),
        query=params.get("q", "").strip(),
    )
    context["switch_form"] = forms.get("switch_form") or SwitchForm()
    context["total_form"] = forms.get("total_form") or TotalForm(current=context["cluster_total"])
    context["rejected"] = forms.get("rejected", [])
    return render(request, "elastic/page.html", context, status=status)


@require_safe
@viewer_required
def index(request: HttpRequest) -> HttpResponse:
    """``/elastic/``: the first partition's page."""
    return _guarded(
        request, lambda: redirect("elastic:page", partition=page_selectors.first_partition())
    )


@require_safe
@viewer_required
def page(request: HttpRequest, partition: str) -> HttpResponse:
    return _guarded(request, lambda: _page(request, partition))


@require_safe
@viewer_required
def explain(request: HttpRequest, partition: str) -> HttpResponse:
    """``?queue=<path>&resource=<type>``: how that runtime came about."""
    return _guarded(request, lambda: render(
        request, "elastic/explain.html", page_selectors.elastic_explain_page(
            partition=partition, queue=request.GET.get("queue", ""),
            resource=request.GET.get("resource", ""),
        ),
    ))


@require_POST
@viewer_required
def switch(request: HttpRequest, partition: str) -> HttpResponse:
    """Turn elastic quota on or off; turning it on over a configuration that breaks the elastic
    rules is refused with each rule's error listed."""
    form = SwitchForm(request.POST)

    def answer() -> HttpResponse:
        if not form.is_valid():
            return _page(request, partition, status=400, switch_form=form)
        try:
            services.elastic_settings_update(
                partition=partition, enabled=form.value(), author=request.user
            )
        except services.ElasticRejected as rejected:
            form.add_error(None, str(rejected))
            return _page(
                request, partition, status=409, switch_form=form, rejected=rejected.errors
            )
        except InvalidRequest as error:
            form.add_error(None, str(error))
            return _page(request, partition, status=400, switch_form=form)
        done = DONE_ON if form.value() else DONE_OFF
        messages.success(request, done.format(partition=partition))
        return redirect("elastic:page", partition=partition)

    return _guarded(request, answer)


@require_POST
@viewer_required
def total(request: HttpRequest, partition: str) -> HttpResponse:
    """Set the cluster total: what the partition's queues share."""
    form = TotalForm(request.POST)

    def answer() -> HttpResponse:
        if not form.is_valid():
            return _page(request, partition, status=400, total_form=form)
        value = form.cleaned_data["total"]
        try:
            services.elastic_total_set(partition=partition, total=value, author=request.user)
        except InvalidRequest as error:
            form.add_error("total", str(error))
            return _page(request, partition, status=400, total_form=form)
        if value:
            text = DONE_TOTAL.format(partition=partition, total=format_resource(value))
        else:
            text = DONE_TOTAL_EMPTY.format(partition=partition)
        messages.success(request, text)
        return redirect("elastic:page", partition=partition)

    return _guarded(request, answer)
