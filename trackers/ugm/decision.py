"""The answer to an increase: allowed, or denied with the rule that denied it."""

from __future__ import annotations

MAX_APPLICATIONS = "maxApplications"
USER_QUOTA = "userQuota"
GROUP_QUOTA = "groupQuota"
QUEUE_QUOTA = "queueQuota"
QUEUE_MAX_APPLICATIONS = "queueMaxApplications"
REASONS = (MAX_APPLICATIONS, USER_QUOTA, GROUP_QUOTA, QUEUE_QUOTA, QUEUE_MAX_APPLICATIONS)


class Decision:
    """``allowed``, ``reason`` (None or one of REASONS), ``group`` the app counts against, and a
    ``message`` naming who, where and the numbers compared.

    ``headroom`` is computed on first access: the hot path only keeps the per-tracker parts. For an
    allowed increase it is what is left after it; for a denial, what was left before.
    """

    __slots__ = ("_headroom", "_parts", "_spent", "allowed", "group", "message", "reason")

    def __init__(self, allowed, reason, group, message, parts, spent) -> None:
        self.allowed: bool = allowed
        self.reason: str | None = reason
        self.group: str | None = group
        self.message: str = message
        self._parts = parts
        self._spent = spent
        self._headroom = False

    @property
    def headroom(self) -> dict[str, int] | None:
        if self._headroom is False:
            combined = None
            for part in self._parts:
                if part is None:
                    continue
                if combined is None:
                    combined = dict(part)
                    continue
                for kind, left in part.items():
                    current = combined.get(kind)
                    if current is None or left < current:
                        combined[kind] = left
            if combined is not None and self._spent:
                for kind, amount in self._spent:
                    if kind in combined:
                        combined[kind] -= amount
            self._headroom = combined
        return self._headroom

    def __bool__(self) -> bool:
        return self.allowed

    def __repr__(self) -> str:
        if self.allowed:
            return f"Decision(allowed, group={self.group!r})"
        return f"Decision(denied {self.reason}: {self.message})"
