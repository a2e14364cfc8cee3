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
