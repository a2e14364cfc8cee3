"""Creating and revoking team-dashboard links."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from quotaweb.accounts.models import TeamLink
from quotaweb.engine.gateway import ERR_PARTITION, engines_get
from trackers.names import is_group_name, is_user_name

ERR_KIND = "a team link shows a group or a user, not {kind!r}"
ERR_NAME = "{name!r} is not a valid {kind} name"


class TeamLinkInvalid(ValueError):
    pass


def team_link_create(
    *, partition: str, kind: str, name: str, label: str = "", author: AbstractBaseUser | None
) -> TeamLink:
    if kind not in (TeamLink.KIND_GROUP, TeamLink.KIND_USER):
        raise TeamLinkInvalid(ERR_KIND.format(kind=kind))
    valid = is_group_name(name) if kind == TeamLink.KIND_GROUP else is_user_name(name)
    if not valid:
        raise TeamLinkInvalid(ERR_NAME.format(name=name, kind=kind))
    if partition not in engines_get().partitions():
        raise TeamLinkInvalid(ERR_PARTITION.format(partition=partition))
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
