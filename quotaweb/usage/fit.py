"""The "will it fit?" question of a user's page: would a request be admitted for the user in a
queue now, and if not, how much is missing. The engine answers from its headroom; nothing
changes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from quotaweb.allocations.selectors import headroom_for
from trackers.resources import fits_headroom, format_resource

# An application id no scheduler uses: "will a new application fit?" asks with it.
NEW_APPLICATION = "quotaweb:will-it-fit"


@dataclass(frozen=True, slots=True)
class Fit:
    """The answer to "will this request fit?", computed without changing anything."""

    queue: str
    application: str
    resource: Mapping[str, int]
    headroom: Mapping[str, int] | None
    can_run: bool

    @property
    def short(self) -> dict[str, int]:
        """Per requested type, how much is missing (the fit test of spec 2.5)."""
        if self.headroom is None:
            return {}
        return {
            kind: amount - max(0, self.headroom[kind])
            for kind, amount in sorted(self.resource.items())
            if kind in self.headroom and amount > max(0, self.headroom[kind])
        }

    @property
    def fits(self) -> bool:
        return self.can_run and fits_headroom(self.resource, self.headroom)

    @property
    def short_text(self) -> str:
        return format_resource(self.short)

    @property
    def headroom_text(self) -> str:
        if self.headroom is None:
            return "unlimited"
        return format_resource({kind: max(0, room) for kind, room in self.headroom.items()})

    @property
    def resource_text(self) -> str:
        return format_resource(self.resource)


def user_fit_check(
    *, partition: str, user: str, queue: str, resources: Mapping[str, int],
    application: str = "", groups: list[str] | None = None,
) -> Fit:
    """Would ``resources`` in ``queue`` be admitted for ``user`` now? A ``TrackersError`` for a
    question the engine cannot answer (a malformed queue path)."""
    application = application or NEW_APPLICATION
    headroom, can_run = headroom_for(
        partition=partition, queue_path=queue, user=user, groups=list(groups or ()),
        application_id=application,
    )
    return Fit(queue, application, dict(resources), headroom, can_run)
