"""The answer to an increase: allowed, or denied with the rule that denied it."""

from __future__ import annotations

from collections.abc import Callable

MAX_APPLICATIONS = "maxApplications"
USER_QUOTA = "userQuota"
GROUP_QUOTA = "groupQuota"
QUEUE_QUOTA = "queueQuota"
QUEUE_MAX_APPLICATIONS = "queueMaxApplications"
ELASTIC_QUOTA = "elasticQuota"
# Usage is summed in 64 bits (as YuniKorn's): a request whose sum would pass that is denied.
RESOURCE_OVERFLOW = "resourceOverflow"
REASONS = (
    MAX_APPLICATIONS, QUEUE_MAX_APPLICATIONS, USER_QUOTA, GROUP_QUOTA, QUEUE_QUOTA, ELASTIC_QUOTA,
    RESOURCE_OVERFLOW,
)

Headroom = dict[str, int] | None


class Decision:
    """``allowed``, ``reason`` (None or one of REASONS), ``group`` the app counts against, and a
    ``message`` naming who, where and the numbers compared.

    ``headroom`` (a resource map, None for unlimited): for a denial, what was left when it was
    denied; for an allowed increase it is read from the engine on first access, so the hot path
    does not pay for it when nobody asks (right after the increase, that is what is left).
    """

    __slots__ = ("_headroom", "_later", "allowed", "group", "message", "reason")

    _headroom: Headroom
    _later: Callable[[], Headroom] | None

    def __init__(
        self,
        allowed: bool,
        reason: str | None,
        group: str | None,
        message: str,
        headroom: Headroom | Callable[[], Headroom],
    ) -> None:
        self.allowed = allowed
        self.reason = reason
        self.group = group
        self.message = message
        if callable(headroom):
            self._headroom, self._later = None, headroom
        else:
            self._headroom, self._later = headroom, None

    @property
    def headroom(self) -> Headroom:
        if self._later is not None:
            self._headroom, self._later = self._later(), None
        return self._headroom

    def __repr__(self) -> str:
        if self.allowed:
            return f"Decision(allowed, group={self.group!r})"
        return f"Decision(denied {self.reason}: {self.message})"
