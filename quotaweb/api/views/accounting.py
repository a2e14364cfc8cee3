"""Accounting over a period (``GET /api/v1/partitions/{p}/accounting``): resource-time by user,
group, queue or partition, as JSON or CSV (``format=csv`` or ``Accept: text/csv``, the units in
the header). The figures are ``quotaweb.usage.accounting``'s; this only speaks HTTP."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.api.problems import ApiError
from quotaweb.usage import accounting

ERR_PARAMETER = "{parameter}: {message}"


class AccountingCsvRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(accounting.accounting_csv_rows(data))
        return out.getvalue().encode()


def _parameter(name: str, description: str, **kwargs: Any) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.STR, description=description, **kwargs)


_PARAMETERS = [
    _parameter("by", "what the rows are (default user)", enum=list(accounting.BYS)),
    _parameter("from", "the period's start, a date or an ISO 8601 time (rounded down to the "
               "hour; default: 7 days before to)"),
    _parameter("to", "the period's end, a date or an ISO 8601 time (rounded up to the hour; "
               "default: the end of the current hour)"),
    _parameter("step", "the buckets of the series (default day)", enum=list(accounting.STEPS)),
    OpenApiParameter("top", OpenApiTypes.INT, description="rows kept, by use of the ranking "
                     "resource; the rest are summed as (others) (default 10, at most "
                     f"{accounting.TOP_MOST})"),
    _parameter("user", "only this user's allocations"),
    _parameter("group", "only allocations counted against this group"),
    _parameter("queue", "only this queue's subtree (default root); with by=queue, the rows are "
               "its children, each with its subtree"),
    _parameter("resource", "the resource type rows are ranked by (default memory)"),
    _parameter("format", "json (default) or csv", enum=list(accounting.FORMATS)),
]


def _invalid(parameter: str, message: str) -> ApiError:
    """400 naming the parameter, in the message and in ``details``."""
    return ApiError(
        status_code=400, code="bad_request",
        message=ERR_PARAMETER.format(parameter=parameter, message=message),
        details=[{"field": parameter, "message": message}],
    )


class AccountingView(APIView):
    renderer_classes = [JSONRenderer, AccountingCsvRenderer]

    @extend_schema(
        parameters=_PARAMETERS,
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="the report (docs/api.md, Accounting)"
            ),
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="a row per key and bucket, units in the header"
            ),
        },
        summary="Resource-time used over a period, by user, group, queue or partition",
    )
    def get(self, request: Request, partition: str) -> Response:
        try:
            query = accounting.accounting_query(partition=partition, params=request.query_params)
            report = accounting.accounting_report(query=query)
        except accounting.AccountingInvalid as invalid:
            raise _invalid(invalid.parameter, str(invalid)) from None
        response = Response(report)
        if request.accepted_renderer.format == "csv":
            response["Content-Disposition"] = (
                f'attachment; filename="accounting-{query.partition}-{query.by}.csv"'
            )
        return response

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        wanted = request.query_params.get("format")
        if wanted is not None and wanted not in accounting.FORMATS:
            # DRF would answer an unknown ?format= 404; it is a bad parameter.
            raise _invalid("format", accounting.ERR_FORMAT.format(value=wanted))
        return super().perform_content_negotiation(request, force)

    def finalize_response(self, request: Request, response: Any, *args: Any,
                          **kwargs: Any) -> Any:
        # Errors (and OPTIONS' description) are JSON whatever was asked for: CSV is only ever
        # the report.
        if isinstance(response, Response) and (
            response.status_code >= 400 or request.method not in ("GET", "HEAD")
        ):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


urlpatterns = [
    path("partitions/<str:partition>/accounting", AccountingView.as_view(),
         name="api-accounting"),
]
