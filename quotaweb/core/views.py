from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from quotaweb.accounts.decorators import viewer_required
from quotaweb.core import selectors


@require_GET
@viewer_required
def home(request):
    return render(request, "home.html", {"partitions": selectors.partition_overviews()})


@require_GET
def healthz(request):
    sockets = selectors.sockets_health()
    if sockets is not None:
        return JsonResponse(sockets, status=200 if sockets["status"] == "ok" else 503)
    engine = selectors.engine_health()
    if engine is None:
        return JsonResponse({"status": "starting", "engine": {}}, status=503)
    return JsonResponse({"status": "ok", "engine": engine})


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
