"""Read-only configuration pages: the queue tree, one queue, the version history, YAML and diffs.

Every page is behind ``viewer_required`` and answers GET (and HEAD) only; editing comes later and
will add its forms for ``can_edit`` users. Each view calls one selector. A partition, queue or
version that does not exist gets a 404 page saying which; a malformed ``against`` gets a 400.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from quotaweb.accounts.decorators import viewer_required
from quotaweb.config import selectors
from quotaweb.config.models import ConfigVersion

ERR_AGAINST = (
    "The version to compare with must be a version number, like ?against=3; got {value!r}."
)
FIRST_VERSION = "Version {number} is the first version: there is no earlier version to compare."


def _problem(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request, "config/problem.html", {"title": title, "message": message}, status=status
    )


def _not_found(request: HttpRequest, message: str) -> HttpResponse:
    return _problem(request, status=404, title="Not found", message=message)


@viewer_required
@require_safe
def tree(request: HttpRequest) -> HttpResponse:
    context = selectors.config_tree(query=request.GET.get("q", ""))
    return render(request, "config/tree.html", context)


@viewer_required
@require_safe
def queue(request: HttpRequest, partition: str, queue_path: str) -> HttpResponse:
    try:
        context = selectors.queue_detail(partition=partition, queue_path=queue_path)
    except selectors.ConfigNotFound as error:
        return _not_found(request, str(error))
    return render(request, "config/queue.html", context)


@viewer_required
@require_safe
def versions(request: HttpRequest) -> HttpResponse:
    context = selectors.versions_history(page=request.GET.get("page"))
    return render(request, "config/versions.html", context)


@viewer_required
@require_safe
def version(request: HttpRequest, number: int) -> HttpResponse:
    try:
        found = selectors.version_get(number=number)
    except ConfigVersion.DoesNotExist:
        return _not_found(request, selectors.ERR_NO_VERSION.format(number=number))
    if request.GET.get("download"):
        response = HttpResponse(found.yaml, content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="quotaweb-config-v{found.number}.yaml"'
        )
        return response
    context = {"version": found, "active": selectors.active_version_number()}
    return render(request, "config/version.html", context)


@viewer_required
@require_safe
def version_diff(request: HttpRequest, number: int) -> HttpResponse:
    raw = request.GET.get("against", "").strip()
    if not raw:
        if number <= 1:
            return _problem(
                request, status=400, title="Nothing to compare",
                message=FIRST_VERSION.format(number=number),
            )
        raw = str(number - 1)
    if not raw.isdigit():
        return _problem(
            request, status=400, title="Bad comparison", message=ERR_AGAINST.format(value=raw)
        )
    try:
        context = selectors.version_diff(number=number, against=int(raw))
    except selectors.ConfigNotFound as error:
        return _not_found(request, str(error))
    return render(request, "config/diff.html", context)
