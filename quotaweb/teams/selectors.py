"""Reads of team-dashboard links (the credential lookup itself is ``accounts.selectors``)."""

from __future__ import annotations

import dataclasses

from django.db.models import QuerySet

from quotaweb.accounts.models import TeamLink
from quotaweb.engine.gateway import EngineNotLoaded, engines_get
from trackers.names import is_group_name, is_user_name


@dataclasses.dataclass(frozen=True)
class TeamNames:
    """The group and user names a partition knows: named in its limits or tracked by its
    engine (they ran something). The wildcards are no team."""

    groups: list[str]
    users: list[str]

    def knows(self, *, kind: str, name: str) -> bool:
        return name in (self.groups if kind == TeamLink.KIND_GROUP else self.users)


def team_links_list() -> QuerySet[TeamLink]:
    return TeamLink.objects.select_related("created_by").all()


def team_link_same_scope(*, partition: str, kind: str, name: str) -> TeamLink | None:
    """The newest active link that shows this team, if there is one."""
    return TeamLink.objects.filter(
        partition=partition, kind=kind, name=name, revoked__isnull=True
    ).first()


def team_names_known(*, partition: str) -> TeamNames:
    """Empty while the engines start or for a partition that is gone."""
    try:
        gateway = engines_get()
        if partition not in gateway.partitions():
            return TeamNames(groups=[], users=[])
        groups = [obj["groupName"] for obj in gateway.groups_usage(partition)]
        users = [obj["userName"] for obj in gateway.users_usage(partition)]
    except EngineNotLoaded:
        return TeamNames(groups=[], users=[])
    return TeamNames(
        groups=[name for name in groups if is_group_name(name)],
        users=[name for name in users if is_user_name(name)],
    )
