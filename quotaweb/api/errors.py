"""Error bodies of the API, in the two shapes the contract fixes.

``/api/v1/``: ``{"error": "<code>", "message": "<text>", "details": [...]}``.
``/ws/v1/``: YuniKorn's ``{"status_code": <int>, "message": "<text>", "description": "<text>"}``.
Every exception a view lets out (DRF's own, Django's 404 and 403, and ``ApiError``) is answered in
the shape of the path it came from, so no caller ever gets an HTML page or a bare 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

logger = logging.getLogger(__name__)

ERR_INTERNAL = "the server failed to answer this request; nothing of it was applied"
ERR_TOO_LARGE = "the request body is over {limit} bytes; nothing was read or changed"

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


class ApiError(exceptions.APIException):
    """An answer of the contract: ``status``, ``code``, human ``message`` and ``details``."""

    def __init__(
        self, *, status_code: int, code: str, message: str, details: list[Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details = details or []
        self.extra = extra or {}


def bad_request(message: str, details: list[Any] | None = None) -> ApiError:
    return ApiError(status_code=400, code="bad_request", message=message, details=details)


def not_found(message: str) -> ApiError:
    return ApiError(status_code=404, code="not_found", message=message)


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


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    request = context.get("request")
    yunikorn = request is not None and request.path.startswith("/ws/v1/")
    if isinstance(exc, RequestDataTooBig):
        # Django's own cap, met before a parser could answer (a form body read for CSRF).
        exc = ApiError(
            status_code=413, code="too_large",
            message=ERR_TOO_LARGE.format(limit=settings.DATA_UPLOAD_MAX_MEMORY_SIZE),
        )
    elif isinstance(exc, Http404):
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
