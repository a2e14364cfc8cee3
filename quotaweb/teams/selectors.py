"""Reads of team-dashboard links (the credential lookup itself is ``accounts.selectors``), and
of a person's own usage for "My usage", which shows them what a link to their own user and each
of their groups would."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet

from quotaweb.accounts.models import TeamLink
from quotaweb.engine.gateway import EngineNotLoaded, engines_get
from quotaweb.usage import page_selectors
from quotaweb.usage.fit import Fit, user_fit_check
from quotaweb.usage.limits import Bar, path_segments
from trackers import TrackersError
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


# -- "My usage": a signed-in person's own scope, like a team link of their own -----------------

# The queues "room left" is asked for, at most: a person's trees are a few queues deep.
ROOM_QUEUES = 40


@dataclasses.dataclass(frozen=True)
class UsageSection:
    """One live part of the page: a user or group and what its dashboard shows."""

    kind: str
    name: str
    context: dict[str, Any]
    # Unique on the page, for the ids of its headings.
    anchor: str = ""

    @property
    def scope_text(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclasses.dataclass(frozen=True)
class Room:
    """At one queue, what the person may still add (the API's headroom: their user limits and
    every group's, along the path), and whether a new application may start."""

    queue: str
    fit: Fit


@dataclasses.dataclass(frozen=True)
class Binding:
    """The limit used the most, of the person's own and their groups': it binds them first."""

    kind: str
    name: str
    bar: Bar


@dataclasses.dataclass(frozen=True)
class PartitionUsage:
    partition: str
    sections: list[UsageSection]
    rooms: list[Room]
    binding: Binding | None


def _section(*, partition: str, kind: str, name: str, anchor: str) -> UsageSection:
    read = page_selectors.user_detail if kind == TeamLink.KIND_USER else (
        page_selectors.group_detail
    )
    try:
        return UsageSection(kind, name, read(partition=partition, name=name), anchor)
    except page_selectors.UsageNotFound:
        return UsageSection(kind, name, {"empty": True}, anchor)


def my_usage(*, user: str, groups: Sequence[str]) -> list[PartitionUsage]:
    """Per partition: the user's and each group's usage against their limits, the limit that
    binds first, and the room left at each of their queues. ``EngineNotLoaded`` while starting."""
    found = []
    for number, partition in enumerate(engines_get().partitions()):
        wanted = [(TeamLink.KIND_USER, user)] + [
            (TeamLink.KIND_GROUP, name) for name in groups if is_group_name(name)
        ]
        sections = [
            _section(partition=partition, kind=kind, name=name, anchor=f"p{number}-{index}-")
            for index, (kind, name) in enumerate(wanted)
        ]
        candidates = [
            Binding(section.kind, section.name, section.context["constrained"])
            for section in sections if section.context.get("constrained") is not None
        ]
        binding = max(candidates, key=lambda found: found.bar.ratio, default=None)
        queues = sorted(
            {row.path for section in sections for row in section.context.get("rows", ())},
            key=path_segments,
        )[:ROOM_QUEUES]
        rooms = []
        for queue in queues:
            try:
                fit = user_fit_check(
                    partition=partition, user=user, queue=queue, resources={},
                    groups=list(groups),
                )
            except TrackersError:
                continue
            rooms.append(Room(queue, fit))
        found.append(PartitionUsage(partition, sections, rooms, binding))
    return found
