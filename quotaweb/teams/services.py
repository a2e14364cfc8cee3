"""Creating and revoking team-dashboard links."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from quotaweb.accounts.models import TeamLink
from quotaweb.engine.gateway import ERR_PARTITION, engines_get
from quotaweb.teams.selectors import team_link_same_scope, team_names_known
from trackers.names import is_group_name, is_user_name

ERR_KIND = "a team link shows a group or a user, not {kind!r}"
ERR_NAME = "{name!r} is not a valid {kind} name"
ERR_UNKNOWN_NAME = (
    "partition {partition} knows no {kind} {name!r}: no limit names it and it has run nothing "
    "there. Check the spelling, or confirm below to make the link anyway."
)
ERR_EXISTS = (
    "{kind} {name} in partition {partition} already has a link (created {created:%Y-%m-%d "
    "%H:%M}): copy that one from the list, or ask below for another."
)


class TeamLinkInvalid(ValueError):
    pass


class TeamNameUnknown(TeamLinkInvalid):
    """The name is valid but the partition has never heard of it: most likely a typo, which
    would make a working link to an empty dashboard."""


class TeamLinkExists(TeamLinkInvalid):
    def __init__(self, message: str, *, link: TeamLink) -> None:
        super().__init__(message)
        self.link = link


def team_link_create(
    *, partition: str, kind: str, name: str, label: str = "", author: AbstractBaseUser | None,
    confirm_unknown: bool = False, another: bool = False,
) -> TeamLink:
    """A new link; ``TeamNameUnknown`` for a name the partition does not know unless
    ``confirm_unknown``, ``TeamLinkExists`` when the team already has an active link unless
    ``another``."""
    if kind not in (TeamLink.KIND_GROUP, TeamLink.KIND_USER):
        raise TeamLinkInvalid(ERR_KIND.format(kind=kind))
    valid = is_group_name(name) if kind == TeamLink.KIND_GROUP else is_user_name(name)
    if not valid:
        raise TeamLinkInvalid(ERR_NAME.format(name=name, kind=kind))
    if partition not in engines_get().partitions():
        raise TeamLinkInvalid(ERR_PARTITION.format(partition=partition))
    if not another:
        existing = team_link_same_scope(partition=partition, kind=kind, name=name)
        if existing is not None:
            raise TeamLinkExists(ERR_EXISTS.format(
                kind=kind, name=name, partition=partition,
                created=timezone.localtime(existing.created),
            ), link=existing)
    if not confirm_unknown and not team_names_known(partition=partition).knows(
        kind=kind, name=name
    ):
        raise TeamNameUnknown(ERR_UNKNOWN_NAME.format(partition=partition, kind=kind, name=name))
    return TeamLink.objects.create(
        token=secrets.token_urlsafe(32), partition=partition, kind=kind, name=name,
        label=label, created_by=author,
    )


def team_link_revoke(*, link_id: int) -> TeamLink:
    """Revoke a link (``TeamLink.DoesNotExist`` when there is none); sockets using it close at
    their next check. Revoking twice keeps the first time."""
    link = TeamLink.objects.get(pk=link_id)
    if link.revoked is None:
        link.revoked = timezone.now()
        link.save(update_fields=["revoked"])
    return link
