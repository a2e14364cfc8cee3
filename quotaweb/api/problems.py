"""The contract's error answer as an exception (``ApiError``) and its common cases.

Apart from ``quotaweb.api.errors`` (which answers every exception) so that the request parsers
can raise them: ``errors`` imports DRF's views, whose settings import the parsers.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions

from quotaweb.postgresql.waits import RETRY_AFTER_SECONDS

ERR_TOO_LARGE = "the request body is over {limit} bytes; nothing was read or changed"
ERR_BODY_OBJECT = "the body must be a JSON object, not {kind}"
ERR_FIELD_MISSING = "{field} is required"
ERR_DATABASE_UNAVAILABLE = (
    "the database is unavailable ({reason}); nothing of this request was carried out, try again "
    "in {seconds} s"
)


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


class Unavailable(ApiError):
    """503 with ``Retry-After``: the database is away, slow or busy (``unavailable_reason``)."""

    RETRY_AFTER = RETRY_AFTER_SECONDS

    def __init__(self, reason: str) -> None:
        super().__init__(
            status_code=503, code="database_unavailable",
            message=ERR_DATABASE_UNAVAILABLE.format(reason=reason, seconds=RETRY_AFTER_SECONDS),
        )
        # DRF's handler turns ``wait`` into the Retry-After header.
        self.wait = RETRY_AFTER_SECONDS


class NotServedHere(ApiError):
    """503 with ``Retry-After``: the partition is owned by another peer (named in ``owner`` and
    ``address``, "" while it moves) or this peer's lease on it has just ended."""

    def __init__(self, message: str, *, owner: str = "", address: str = "") -> None:
        super().__init__(
            status_code=503, code="not_owner", message=message,
            extra={"owner": owner, "address": address},
        )
        self.wait = RETRY_AFTER_SECONDS


class ConfigChanged(ApiError):
    """503 with ``Retry-After``: rows admitted under a configuration version that stopped being
    the active one while they were written (another peer applied a new one); nothing stored."""

    def __init__(self, message: str) -> None:
        super().__init__(status_code=503, code="config_changed", message=message)
        self.wait = RETRY_AFTER_SECONDS


def too_large(limit: int) -> ApiError:
    return ApiError(
        status_code=413, code="too_large", message=ERR_TOO_LARGE.format(limit=limit)
    )


def bad_request(message: str, details: list[Any] | None = None) -> ApiError:
    return ApiError(status_code=400, code="bad_request", message=message, details=details)


def not_found(message: str) -> ApiError:
    return ApiError(status_code=404, code="not_found", message=message)


def body_with(data: Any, *fields: str) -> dict[str, Any]:
    """A request body that must be a JSON object holding ``fields``; a 400 naming what is
    wrong otherwise."""
    if not isinstance(data, dict):
        raise bad_request(ERR_BODY_OBJECT.format(kind=type(data).__name__))
    for field in fields:
        if field not in data:
            raise bad_request(ERR_FIELD_MISSING.format(field=field))
    return data
