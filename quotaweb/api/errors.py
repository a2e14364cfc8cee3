"""Error bodies of the API, in the two shapes the contract fixes: the one error path.

``/api/v1/``: ``{"error": "<code>", "message": "<text>", "details": [...]}``.
``/ws/v1/``: YuniKorn's ``{"status_code": <int>, "message": "<text>", "description": "<text>"}``.
Views raise; they never build an error body. Every exception a view lets out (the services' and
the gateway's domain exceptions, DRF's own, Django's 404 and 403, and ``ApiError``) is answered
here, in the shape of the path it came from, with the status the contract names for it, so no
caller ever gets an HTML page or a bare 500. The texts are the raisers' own (``str(exc)``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from quotaweb.allocations.services import AllocationInvalid
from quotaweb.api.problems import ApiError, ConfigChanged, NotServedHere, Unavailable, too_large
from quotaweb.config import edits, selectors
from quotaweb.config.services import ConfigConflict, ConfigRejected, VersionNotFound
from quotaweb.elastic.services import ElasticRejected
from quotaweb.engine.elastic import NotALeaf, UnknownQueue
from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition
from quotaweb.engine.outcomes import AllocationNotFound, KeyConflict, PartitionBusy
from quotaweb.engine.owners import (
    ERR_FENCED,
    ERR_SUPERSEDED,
    NOT_OWNER_HEADER,
    LeaseUnconfirmed,
    NotOwner,
    fence_refused,
    version_superseded,
)
from quotaweb.engine.quotatrees import TreesNotLoaded
from quotaweb.postgresql.waits import unavailable_reason
from quotaweb.quotatrees.services import TreeRejected
from trackers import InvalidRequest, NotTracked
from trackers.quotatree import CONFLICT, INVALID, NOT_FOUND, QuotaTreeError

logger = logging.getLogger(__name__)

ERR_INTERNAL = "the server failed to answer this request; nothing of it was applied"
ERR_INVALID = (
    "the configuration is not valid ({count} problem(s), listed in details); nothing was "
    "stored or applied"
)
ERR_PRECONDITION = (
    "version {base} is no longer the active configuration: version {active} is; details list "
    "what changed since, nothing was stored or applied"
)
ERR_CONFLICT = (
    "another change became active while this one was being applied (version {active}); details "
    "list what it changed, nothing was stored or applied"
)
# YuniKorn's own text, which its web UI and clients know.
ERR_YUNIKORN_PARTITION = "Partition not found"

# QuotaTreeError codes -> (status, error code).
_TREE_STATUS = {
    NOT_FOUND: (404, "not_found"), CONFLICT: (409, "conflict"), INVALID: (400, "bad_request"),
}

# DRF exception classes -> the contract's error codes.
_CODES = {
    exceptions.ParseError: "bad_request",
    exceptions.ValidationError: "invalid",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


class PreconditionFailed(Exception):
    """A write named its base version (``If-Match`` or ``base_version``), and another version is
    active now; ``changes`` lists what changed since (``config.selectors`` change views)."""

    def __init__(self, *, base: int | None, active: int | None, changes: list[dict]) -> None:
        super().__init__(ERR_PRECONDITION.format(base=base, active=active))
        self.base, self.active, self.changes = base, active, changes


def _message_of(detail: Any) -> tuple[str, list[Any]]:
    """A DRF ``detail`` (text, list or dict of field errors) as one sentence plus details."""
    if isinstance(detail, dict):
        details = [
            {"field": field, "message": " ".join(str(m) for m in messages)}
            if isinstance(messages, list) else {"field": field, "message": str(messages)}
            for field, messages in detail.items()
        ]
        text = "; ".join(f"{item['field']}: {item['message']}" for item in details)
        return text, details
    if isinstance(detail, list):
        return "; ".join(str(item) for item in detail), [str(item) for item in detail]
    return str(detail), []


def _change_details(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # The change views of ``config.selectors`` with their one-line label, without form fields.
    return [{key: value for key, value in view.items() if key != "fields"} for view in changes]


def _conflict(exc: ConfigConflict, yunikorn: bool) -> ApiError:
    return ApiError(
        status_code=409, code="conflict", message=ERR_CONFLICT.format(active=exc.active_version),
        details=_change_details(selectors.conflict_view(exc.changes)),
        extra={"base_version": exc.base_version, "active_version": exc.active_version},
    )


def _precondition(exc: PreconditionFailed, yunikorn: bool) -> ApiError:
    return ApiError(
        status_code=412, code="precondition_failed", message=str(exc),
        details=_change_details(exc.changes),
        extra={"base_version": exc.base, "active_version": exc.active},
    )


def _simple(status_code: int, code: str) -> Callable[[Exception, bool], ApiError]:
    def answer(exc: Exception, yunikorn: bool) -> ApiError:
        return ApiError(status_code=status_code, code=code, message=str(exc),
                        details=getattr(exc, "errors", None))
    return answer


# The domain's exceptions -> the contract's answers; the first match wins (subclasses first).
_DOMAIN: tuple[tuple[type[Exception] | tuple[type[Exception], ...],
                     Callable[[Any, bool], ApiError]], ...] = (
    (RequestDataTooBig, lambda exc, yunikorn: too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)),
    (LeaseUnconfirmed, lambda exc, yunikorn: Unavailable(str(exc))),
    (NotOwner, lambda exc, yunikorn: NotServedHere(
        str(exc), owner=exc.owner, address=exc.address)),
    ((EngineNotLoaded, TreesNotLoaded), _simple(503, "starting")),
    (PartitionBusy, lambda exc, yunikorn: Unavailable(str(exc))),
    (UnknownPartition, lambda exc, yunikorn: ApiError(
        status_code=404, code="not_found",
        message=ERR_YUNIKORN_PARTITION if yunikorn else str(exc))),
    (KeyConflict, _simple(409, "allocation_key_conflict")),
    (QuotaTreeError, lambda exc, yunikorn: ApiError(
        status_code=_TREE_STATUS[exc.code][0], code=_TREE_STATUS[exc.code][1],
        message=str(exc))),
    (TreeRejected, lambda exc, yunikorn: ApiError(
        status_code=400, code="invalid", message=str(exc), details=exc.errors)),
    (AllocationNotFound, _simple(404, "not_found")),
    (AllocationInvalid, _simple(400, "bad_request")),
    (UnknownQueue, _simple(404, "not_found")),
    (NotALeaf, _simple(409, "conflict")),
    ((InvalidRequest, NotTracked), _simple(400, "bad_request")),
    (ConfigRejected, lambda exc, yunikorn: ApiError(
        status_code=400, code="invalid", message=ERR_INVALID.format(count=len(exc.errors)),
        details=exc.errors)),
    ((edits.NotFound, selectors.ConfigNotFound, VersionNotFound), _simple(404, "not_found")),
    (edits.RootQueueRefused, _simple(409, "refused")),
    (edits.EditRefused, _simple(400, "refused")),
    (ConfigConflict, _conflict),
    (ElasticRejected, _simple(409, "elastic_rules")),
    (PreconditionFailed, _precondition),
)


def api_error_for(exc: Exception, *, yunikorn: bool = False) -> Exception:
    """The contract's answer (an ``ApiError``) for a domain exception; any other exception as
    it is. Batch results use it for the error of each operation. The database away (a lost
    connection, a timeout, SQLite locked) is a 503 with Retry-After, never a 500."""
    reason = unavailable_reason(exc)
    if reason is not None:
        return Unavailable(reason)
    if fence_refused(exc):
        return NotServedHere(ERR_FENCED)
    if version_superseded(exc):
        return ConfigChanged(ERR_SUPERSEDED)
    for kinds, answer in _DOMAIN:
        if isinstance(exc, kinds):
            return answer(exc, yunikorn)
    return exc


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    request = context.get("request")
    yunikorn = request is not None and request.path.startswith("/ws/v1/")
    exc = api_error_for(exc, yunikorn=yunikorn)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "not found")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or "forbidden")
    response = exception_handler(exc, context)
    if response is None:
        # Not an API exception: a bug. Logged with its traceback; the caller gets the JSON shape.
        logger.exception("unhandled error in %s", request.path if request else "the API")
        response = Response(status=status.HTTP_500_INTERNAL_SERVER_ERROR)
        code, message, details, extra = "internal", ERR_INTERNAL, [], {}
    elif isinstance(exc, ApiError):
        code, message, details, extra = exc.code, exc.message, exc.details, exc.extra
        if isinstance(exc, NotServedHere):
            response[NOT_OWNER_HEADER] = "1"
    else:
        code = _CODES.get(type(exc), getattr(exc, "default_code", "error"))
        message, details = _message_of(getattr(exc, "detail", str(exc)))
        extra = {}
    if yunikorn:
        response.data = {
            "status_code": response.status_code, "message": message, "description": message,
        }
    else:
        response.data = {"error": code, "message": message, "details": details, **extra}
    return response
