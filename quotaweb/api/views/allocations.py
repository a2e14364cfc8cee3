"""The allocation API: how a scheduler reports usage and asks for admission (``/api/v1/partitions/
{p}/...``). Each view reads the request, calls one service or selector, and answers in the
contract's shapes; the serializers here describe bodies for the OpenAPI schema, while the hot
paths read bodies with ``allocation_request`` (a batch holds up to 10,000 operations).
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.urls import path
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.allocations import selectors, services
from quotaweb.api.errors import api_error_for
from quotaweb.api.names import (
    GROUP_NAME_PATTERN,
    GROUP_NAMES_PATTERN,
    QUEUE_PATH_PATTERN,
    USER_NAME_PATTERN,
    pattern_string,
)
from quotaweb.api.problems import ApiError, bad_request
from quotaweb.api.serializers import StrictSerializer
from quotaweb.compression import uncompressed
from quotaweb.engine.live import LiveAllocation
from quotaweb.engine.outcomes import Admission
from trackers.gcpause import paused_gc

ERR_AFTER = "after must be a whole number (the last seq you have), not {value!r}"
ERR_PAGE = "{name} must be a whole number from {low} to {high}, not {value!r}"
ERR_HEADROOM_PARAMS = "queuePath, user and applicationId are required; groups is optional"


class ResourceField(serializers.DictField):
    """{type: integer} in base units."""

    child = serializers.IntegerField(min_value=0)


@extend_schema_field({
    "type": "object", "maxProperties": services.MAX_RESOURCE_TYPES,
    "propertyNames": {"minLength": 1, "maxLength": services.MAX_TEXT},
    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": services.MAX_QUANTITY},
})
class AllocationResourceField(ResourceField):
    """An allocation's resource: the limits ``services.allocation_request`` checks."""


class AllocationIn(StrictSerializer):
    """An allocate body, for the schema: its keys and no others (``services.ALLOCATION_FIELDS``)."""

    allocationKey = serializers.CharField(max_length=services.MAX_TEXT)
    applicationId = serializers.CharField(max_length=services.MAX_TEXT)
    queuePath = serializers.RegexField(QUEUE_PATH_PATTERN, max_length=1024)
    user = serializers.RegexField(USER_NAME_PATTERN, max_length=services.MAX_TEXT)
    groups = serializers.ListField(
        child=serializers.RegexField(GROUP_NAME_PATTERN, max_length=services.MAX_TEXT),
        required=False,
        max_length=services.MAX_GROUPS,
    )
    resource = AllocationResourceField()
    priority = serializers.IntegerField(
        required=False, min_value=services.MIN_PRIORITY, max_value=services.MAX_PRIORITY,
        help_text="YuniKorn's allocation priority, shown in the /ws/v1 reads (0 when left out); "
        "not used for admission",
    )
    nodeId = serializers.CharField(
        required=False, max_length=services.MAX_TEXT,
        help_text="the node the scheduler placed the allocation on, shown in the /ws/v1 reads "
        "(the allocation's nodeId, the node's allocated and allocations); not used for admission",
    )


class AllocationOut(serializers.Serializer):
    allowed = serializers.BooleanField()
    allocationKey = serializers.CharField()
    group = serializers.CharField(allow_null=True)


class DeniedOut(serializers.Serializer):
    """409: a denial (``error`` "denied", with ``allowed``, ``reason`` and ``headroom``), or an
    allocation key already live with another request (``error`` "allocation_key_conflict", the
    plain error body)."""

    error = serializers.CharField()
    message = serializers.CharField()
    details = serializers.ListField(child=serializers.JSONField())
    allowed = serializers.BooleanField(required=False)
    reason = serializers.CharField(required=False)
    headroom = ResourceField(allow_null=True, required=False)


@extend_schema_serializer(component_name="ApiError")
class ErrorOut(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    details = serializers.ListField(child=serializers.JSONField())


def _admission_body(admission: Admission) -> tuple[int, dict[str, Any]]:
    allocation = admission.allocation
    if admission.allowed:
        return (
            status.HTTP_200_OK if admission.replayed else status.HTTP_201_CREATED,
            {"allowed": True, "allocationKey": allocation.key, "group": allocation.group},
        )
    return status.HTTP_409_CONFLICT, {
        "allowed": False, "error": "denied", "reason": admission.reason,
        "message": admission.message, "headroom": admission.headroom, "details": [],
    }


class AllocationsView(APIView):
    @extend_schema(
        request=AllocationIn,
        responses={201: AllocationOut, 200: AllocationOut, 409: DeniedOut, 400: ErrorOut,
                   404: ErrorOut},
        summary="Admit and record an allocation (idempotent by allocationKey)",
    )
    def post(self, request: Request, partition: str) -> Response:
        code, body = allocation_answer(partition=partition, data=request.data)
        return Response(body, status=code)

    @extend_schema(
        parameters=[
            *(OpenApiParameter(name, str, required=False, description=text)
              for name, text in (
                  ("user", "only this user's allocations"),
                  ("group", "only allocations counted against this group"),
                  ("queue", "only allocations in this queue or below it"),
                  ("application", "only this application's allocations"),
              )),
            OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": 10**9},
                             required=False, description="page number, from 1"),
            OpenApiParameter("per_page", {"type": "integer", "minimum": 1, "maximum": 1000},
                             required=False,
                             description="allocations per page, 1 to 1000 (default 100)"),
        ],
        responses={200: inline_serializer("AllocationPage", {
            "count": serializers.IntegerField(), "page": serializers.IntegerField(),
            "pages": serializers.IntegerField(),
            "results": serializers.ListField(child=serializers.JSONField()),
        })},
        summary="Live allocations, filtered and paginated",
    )
    def get(self, request: Request, partition: str) -> Response:
        page = _whole(request, "page", default=1, low=1, high=10**9)
        per_page = _whole(request, "per_page", default=100, low=1, high=1000)
        return Response(selectors.allocations_list(
            partition=partition,
            user=request.query_params.get("user") or None,
            group=request.query_params.get("group") or None,
            queue=request.query_params.get("queue") or None,
            application=request.query_params.get("application") or None,
            page=page, per_page=per_page,
        ))


def _whole(request: Request, name: str, *, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise bad_request(ERR_PAGE.format(name=name, low=low, high=high, value=raw))
    return int(raw)


class BatchView(APIView):
    @extend_schema(
        request=inline_serializer("Batch", {"operations": serializers.ListField(
            child=serializers.JSONField(), min_length=1, max_length=services.MAX_BATCH)}),
        responses={200: inline_serializer("BatchResults", {
            "results": serializers.ListField(child=serializers.JSONField())})},
        summary="Up to 10,000 allocate and release operations, in order, stored together",
    )
    def post(self, request: Request, partition: str) -> Response:
        return Response(batch_answer(partition=partition, data=request.data))


def allocation_answer(*, partition: str, data: Any) -> tuple[int, dict[str, Any]]:
    """Status and body for an allocate request's parsed body (the view's and the lean path's)."""
    allocation = services.allocation_request(data)
    return _admission_body(services.allocation_create(partition=partition, request=allocation))


async def allocation_answer_on_loop(
    *, partition: str, data: Any, ledger: services.LoopLedger
) -> tuple[int, dict[str, Any]] | None:
    """``allocation_answer`` on the server's event loop (the lean path's); None
    when the allocation must be made in a thread instead."""
    allocation = services.allocation_request(data)
    admission = await services.allocation_create_on_loop(
        partition=partition, request=allocation, ledger=ledger
    )
    return None if admission is None else _admission_body(admission)


def batch_answer(*, partition: str, data: Any) -> dict[str, Any]:
    """The body for a batch request's parsed body (the view's and the lean path's).

    Without the cyclic collector: a batch makes thousands of containers that live until its
    answer is written, each counting towards the collector's next pass over every live
    allocation; reference counting frees them all afterwards."""
    with paused_gc():
        operations = services.batch_request(data)
        results = services.allocations_batch(partition=partition, operations=operations)
        return {"results": [_batch_result(result) for result in results]}


def _batch_result(result: Any) -> dict[str, Any]:
    """One operation's answer, in the shape and status a request of its own would get."""
    if isinstance(result, Admission):
        code, body = _admission_body(result)
        return {"status": code, **body}
    if isinstance(result, LiveAllocation):
        return {"status": 204, "allocationKey": result.key}
    error = api_error_for(result)
    if not isinstance(error, ApiError):
        raise error  # not an answer of the contract: a bug, answered by the handler
    return {"status": error.status_code, "error": error.code, "message": error.message,
            "details": error.details}


class AllocationView(APIView):
    @extend_schema(responses={204: None, 404: ErrorOut}, summary="Release an allocation")
    def delete(self, request: Request, partition: str, key: str) -> Response:
        services.allocation_release(partition=partition, key=key)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ApplicationView(APIView):
    @extend_schema(responses={200: inline_serializer("Released", {
        "released": serializers.ListField(child=serializers.CharField())}), 404: ErrorOut},
        summary="Release every allocation of an application")
    def delete(self, request: Request, partition: str, application_id: str) -> Response:
        released = services.application_release(
            partition=partition, application_id=application_id
        )
        return Response({"released": [allocation.key for allocation in released]})


class HeadroomView(APIView):
    @staticmethod
    def member_scope(request: Request, kwargs: dict[str, Any]) -> list[tuple[str, str]]:
        """A member may ask what they themselves may still add, as themselves in their groups."""
        params = request.query_params
        groups = [name for name in params.get("groups", "").split(",") if name]
        return [("user", params.get("user", "")), *(("group", name) for name in groups)]

    @extend_schema(
        parameters=[
            OpenApiParameter("queuePath", pattern_string(QUEUE_PATH_PATTERN), required=True),
            OpenApiParameter("user", pattern_string(USER_NAME_PATTERN), required=True),
            OpenApiParameter("applicationId", {"type": "string", "minLength": 1}, required=True),
            OpenApiParameter("groups", pattern_string(GROUP_NAMES_PATTERN), required=False,
                             description="group names, comma separated"),
        ],
        responses={200: inline_serializer("Headroom", {
            "headroom": ResourceField(allow_null=True), "canRunApp": serializers.BooleanField(),
        }), 400: ErrorOut, 404: ErrorOut},
        summary="Will it fit? What the user may still add, changing nothing",
    )
    def get(self, request: Request, partition: str) -> Response:
        return Response(headroom_answer(partition=partition, params=request.query_params))


def headroom_answer(*, partition: str, params: QueryDict) -> dict[str, Any]:
    """The headroom body for a query; the lean path (``quotaweb.api.lean``) answers with it too."""
    queue_path, user = params.get("queuePath"), params.get("user")
    application = params.get("applicationId")
    if not queue_path or not user or not application:
        raise bad_request(ERR_HEADROOM_PARAMS)
    groups = [name for name in params.get("groups", "").split(",") if name]
    headroom, can_run = selectors.headroom_for(
        partition=partition, queue_path=queue_path, user=user, groups=groups,
        application_id=application,
    )
    return {"headroom": headroom, "canRunApp": can_run}


class EventsView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("after", {"type": "integer", "minimum": 0}, required=False,
                                     description="the last seq you have; 0 for all kept")],
        responses={200: inline_serializer("Events", {
            "events": serializers.ListField(child=serializers.JSONField()),
            "last": serializers.IntegerField(), "oldest": serializers.IntegerField(),
        })},
        summary="Recent allocated, released and denied events",
    )
    def get(self, request: Request, partition: str) -> Response:
        raw = request.query_params.get("after", "0")
        if not (raw.isascii() and raw.isdigit()):
            raise bad_request(ERR_AFTER.format(value=raw))
        return Response(selectors.events_after(partition=partition, after=int(raw)))


# The lean path (``quotaweb.api.lean``) answers these four uncompressed, so the views do too:
# an answer is the same whichever of the two gives it.
urlpatterns = [
    path("partitions/<str:partition>/allocations", uncompressed(AllocationsView.as_view()),
         name="api-allocations"),
    path("partitions/<str:partition>/allocations/batch", uncompressed(BatchView.as_view()),
         name="api-allocations-batch"),
    path("partitions/<str:partition>/allocations/<path:key>",
         uncompressed(AllocationView.as_view()), name="api-allocation"),
    path("partitions/<str:partition>/applications/<path:application_id>",
         ApplicationView.as_view(), name="api-application"),
    path("partitions/<str:partition>/headroom", uncompressed(HeadroomView.as_view()),
         name="api-headroom"),
    path("partitions/<str:partition>/events", EventsView.as_view(), name="api-events"),
]
