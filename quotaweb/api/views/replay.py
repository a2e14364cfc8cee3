"""What-if replays over HTTP (``/api/v1/config/replay``): start one against the caller's draft
or a document, read its progress and result, cancel it. The work is
``quotaweb.whatif.services``'; this only speaks HTTP. Quota admins only: a replay reads a
draft and the whole history of a partition."""

from __future__ import annotations

from typing import Any

from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.accounts.roles import is_quota_admin
from quotaweb.api.problems import ApiError
from quotaweb.whatif import selectors, services
from quotaweb.whatif.models import Replay

ERR_ADMINS_ONLY = "only quota admins may replay history against a configuration"
ERR_NOT_FOUND = "there is no replay {pk}"
ERR_BODY = "the body must be a JSON object"
ERR_FIELD = "must be a string"
ERR_UNKNOWN_KEY = "not a field of a replay request (fields: {fields})"
FIELDS = ("partition", "from", "to", "document")


class QuotaAdminsOnly(BasePermission):
    def has_permission(self, request: Any, view: Any) -> bool:
        self.message = ERR_ADMINS_ONLY
        return bool(is_quota_admin(request.user))


def _bad(field: str, message: str, details: list[Any] | None = None) -> ApiError:
    return ApiError(status_code=400, code="bad_request", message=f"{field}: {message}",
                    details=details or [{"field": field, "message": message}])


def replay_view(run: Replay) -> dict[str, Any]:
    state = services.replay_state(run)
    return {
        "id": run.pk, "state": state, "source": run.source, "partition": run.partition,
        "from": run.since, "to": run.until, "events": run.total, "done": run.done,
        "created": run.created, "finished": run.finished,
        "error": services.ERR_STOPPED if state != run.state else run.error,
        "result": run.result,
        "url": reverse("api-replay", args=[run.pk]),
    }


def _body(request: Request) -> dict[str, str]:
    data = request.data
    if not isinstance(data, dict):
        raise _bad("body", ERR_BODY)
    for key, value in data.items():
        if key not in FIELDS:
            raise _bad(key, ERR_UNKNOWN_KEY.format(fields=", ".join(FIELDS)))
        if not isinstance(value, str):
            raise _bad(key, ERR_FIELD)
    return data


class ReplayStartView(APIView):
    permission_classes = [QuotaAdminsOnly]

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        responses={202: OpenApiResponse(OpenApiTypes.OBJECT, description="the replay, started"),
                   400: OpenApiResponse(description="a field names what is wrong"),
                   409: OpenApiResponse(description="a replay of yours is still running")},
        summary="Replay a period of history against your draft or a document",
    )
    def post(self, request: Request) -> Response:
        body = _body(request)
        try:
            run = services.replay_start(author=request.user, params=body,
                                        document=body.get("document"))
        except services.ReplayInvalid as invalid:
            raise _bad(invalid.parameter, str(invalid), invalid.errors or None) from None
        except services.ReplayBusy as busy:
            raise ApiError(status_code=409, code="replay_running", message=str(busy)) from None
        answer = Response(replay_view(run), status=202)
        answer["Location"] = reverse("api-replay", args=[run.pk])
        return answer


class ReplayView(APIView):
    permission_classes = [QuotaAdminsOnly]

    def _run(self, pk: int) -> Replay:
        run = selectors.replay_get(pk=pk)
        if run is None:
            raise ApiError(status_code=404, code="not_found", message=ERR_NOT_FOUND.format(pk=pk))
        return run

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="A replay's progress and result")
    def get(self, request: Request, pk: int) -> Response:
        return Response(replay_view(self._run(pk)))

    @extend_schema(responses={202: OpenApiTypes.OBJECT}, summary="Cancel a replay")
    def delete(self, request: Request, pk: int) -> Response:
        try:
            run = services.replay_cancel(run=self._run(pk))
        except services.ReplayInvalid as invalid:
            raise ApiError(status_code=409, code="replay_ended", message=str(invalid)) from None
        return Response(replay_view(run), status=202)


urlpatterns = [
    path("config/replay", ReplayStartView.as_view(), name="api-replay-start"),
    path("config/replay/<int:pk>", ReplayView.as_view(), name="api-replay"),
]
