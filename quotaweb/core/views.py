import sys

from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template import loader
from django.views.decorators.http import require_GET
from django.views.defaults import server_error as django_server_error

from quotaweb.accounts.decorators import admin_required, member_allowed
from quotaweb.accounts.roles import is_viewer
from quotaweb.api.problems import Unavailable
from quotaweb.config.selectors import active_version_number
from quotaweb.core import selectors
from quotaweb.leases.selectors import owners_read
from quotaweb.postgresql.waits import unavailable_reason


@require_GET
@member_allowed
def home(request):
    # Members read only their own usage: their page is their home.
    if not is_viewer(request.user):
        return redirect("my-usage")
    return render(request, "home.html", {"partitions": selectors.partition_overviews()})


@require_GET
@admin_required
def owners(request):
    """Who owns what among the peers (the admins' view of ``GET /api/v1/owners``)."""
    return render(request, "core/owners.html", {
        "owners": owners_read(),
        "active_version": active_version_number(),
        "one_process": connection.vendor != "postgresql",
    })


@require_GET
def healthz(request):
    sockets = selectors.sockets_health()
    if sockets is not None:
        return JsonResponse(sockets, status=200 if sockets["status"] == "ok" else 503)
    engine = selectors.engine_health()
    if engine is None:
        return JsonResponse({"status": "starting", "engine": {}}, status=503)
    database = selectors.database_health()
    if database is not None:
        # 200 still: the process is alive and serves every read from its engines; a restart
        # (liveness) or leaving the service (readiness) would help nothing until the database
        # is back.
        return JsonResponse({"status": "degraded", "engine": engine, "database": database,
                             **selectors.node_health()})
    return JsonResponse({"status": "ok", "engine": engine, **selectors.node_health()})


@require_GET
def metrics(request):
    """Prometheus text format; open like /healthz, since scrapers do not log in."""
    return HttpResponse(
        selectors.metrics_text(), content_type="text/plain; version=0.0.4; charset=utf-8"
    )


ERR_NO_ROUTE = "there is no {method} {path} in the API; see /api/docs/"


def not_found(request, exception=None):
    """404 for a URL no route matches: the API's JSON error bodies under /api/ and /ws/v1/
    (callers parse JSON), the site's page elsewhere."""
    path = request.path
    message = ERR_NO_ROUTE.format(method=request.method, path=path)
    if path.startswith("/ws/v1/"):
        return JsonResponse(
            {"status_code": 404, "message": message, "description": message}, status=404
        )
    if path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "message": message, "details": []}, status=404)
    return render(request, "404.html", {"request_path": path}, status=404)


def server_error(request):
    """An error no view answered (raised by a page, a middleware or a view outside DRF): 503 with
    Retry-After when the database is away or slow, as JSON under the API's paths and as a page
    that needs no database elsewhere; Django's 500 page for anything else (a bug)."""
    exc = sys.exc_info()[1]
    reason = unavailable_reason(exc) if exc is not None else None
    if reason is None:
        return django_server_error(request)
    error = Unavailable(reason)
    path = request.path
    if path.startswith("/ws/v1/"):
        response = JsonResponse(
            {"status_code": 503, "message": error.message, "description": error.message},
            status=503,
        )
    elif path.startswith("/api/"):
        response = JsonResponse(
            {"error": error.code, "message": error.message, "details": []}, status=503
        )
    else:
        response = HttpResponse(
            loader.render_to_string("503.html", {"message": error.message, "request_path": path}),
            status=503,
        )
    response["Retry-After"] = str(Unavailable.RETRY_AFTER)
    return response
