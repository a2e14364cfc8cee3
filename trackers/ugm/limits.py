"""The limits of one config, compiled for the engine's hot path.

A ``LimitTable`` is built off to the side from a partition's config and swapped in whole, so the
engine never sees half of an old config and half of a new one. It answers, per queue level, which
cap applies to a user or group (spec 2.3) and which group an application counts against (2.4),
and memoises both per table, so a config switch also drops every cached answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from trackers.config.localised import Changes, Locator
from trackers.config.model import Limit, Partition, Queue
from trackers.names import WILDCARD
from trackers.resources import parse_resource_map


class Cap(NamedTuple):
    """One limit entry as it applies at one level. Built when a config is compiled, never on the
    hot path, so it can afford a name for each field."""

    max_resources: dict[str, int] | None  # None: no resource cap
    max_applications: int  # 0: no application cap


# One level of a chain: (level path, max resources or None, max applications or 0).
# A plain tuple on purpose: ``_check`` unpacks every link of up to three chains on each increase,
# and CPython 3.11 unpacks an exact tuple on a specialised fast path that a NamedTuple misses
# (about twice the cost per link, a few per cent of an increase, measured).
ChainLink = tuple[str, dict[str, int] | None, int]
# The levels of a queue path where a cap applies, root first.
Chain = tuple[ChainLink, ...]

_CACHE_LIMIT = 200_000

_K = TypeVar("_K")
_V = TypeVar("_V")


def _cap_of(limit: Limit) -> Cap:
    resources = parse_resource_map(limit.max_resources) if limit.max_resources else {}
    # An all-zero map caps nothing (spec 2.5); validation refuses one, but the engine must not
    # turn it into a "deny everything" cap if a caller skips validation.
    return Cap(resources if any(resources.values()) else None, limit.max_applications)


@dataclass(slots=True)
class Level:
    """The user and group caps configured at one queue."""

    users: dict[str, Cap] = field(default_factory=dict)
    user_wildcard: Cap | None = None
    groups: dict[str, Cap] = field(default_factory=dict)
    group_wildcard: Cap | None = None

    def add(self, limit: Limit) -> None:
        cap = _cap_of(limit)
        for user in limit.users:
            if user == WILDCARD:
                self.user_wildcard = cap
            else:
                self.users.setdefault(user, cap)
        for group in limit.groups:
            if group == WILDCARD:
                self.group_wildcard = cap
            else:
                self.groups.setdefault(group, cap)

    def user_cap(self, user: str) -> Cap | None:
        return self.users.get(user) or self.user_wildcard

    def group_cap(self, group: str) -> Cap | None:
        if group == WILDCARD:
            return self.group_wildcard
        return self.groups.get(group)


@dataclass(slots=True, frozen=True)
class QueueSettings:
    """What the config says about a queue itself, for queue quotas and the queue snapshot."""

    max_resources: dict[str, int]
    guaranteed: dict[str, int]
    max_applications: int
    properties: dict[str, str]


def _settings(queue: Queue) -> QueueSettings:
    return QueueSettings(
        max_resources=parse_resource_map(queue.max),
        guaranteed=parse_resource_map(queue.guaranteed),
        max_applications=queue.max_applications,
        properties=dict(queue.properties),
    )


def _level(queue: Queue) -> Level:
    level = Level()
    for limit in queue.limits:
        level.add(limit)
    return level


class LimitTable:
    def __init__(self, partition: Partition, previous: LimitTable | None = None,
                 changes: Changes | None = None) -> None:
        """The table of ``partition``; with ``previous`` (the table of the partition before)
        and ``changes`` (``trackers.config.localised.queue_changes`` from that partition to
        this one) only the changed queues are compiled again and the rest taken from
        ``previous``, giving the same table."""
        self.levels: dict[str, Level] = {}
        self.queues: dict[str, QueueSettings] = {}
        # Paths where each name has a limit of its own: their trackers are shown even without usage
        # (spec 2.8). The group wildcard counts as a name, the user wildcard does not.
        self.named_user_paths: dict[str, list[str]] = {}
        self.named_group_paths: dict[str, list[str]] = {}
        self._user_chains: dict[tuple[str, str], Chain] = {}
        self._group_chains: dict[tuple[str, str], Chain] = {}
        self._queue_chains: dict[str, Chain] = {}
        self._resolved_groups: dict[tuple[str, tuple[str, ...]], str | None] = {}
        if previous is not None and changes is not None:
            self._update(partition, previous, changes)
            return
        for queue in partition.queues():
            self.queues[queue.path] = _settings(queue)
            if queue.limits:
                self.levels[queue.path] = _level(queue)
        self._name_paths()

    def _name_paths(self) -> None:
        # ``levels`` is in document order, so each name's paths are too.
        for path, level in self.levels.items():
            for user in level.users:
                self.named_user_paths.setdefault(user, []).append(path)
            for group in level.groups:
                self.named_group_paths.setdefault(group, []).append(path)
            if level.group_wildcard is not None:
                self.named_group_paths.setdefault(WILDCARD, []).append(path)

    def _update(self, partition: Partition, previous: LimitTable, changes: Changes) -> None:
        fresh: dict[str, Queue] = {}
        locator = Locator(partition.root)
        for path in changes.own | changes.limits:
            found = locator.chain(path)
            assert found is not None, path
            fresh[path] = found[-1]
        for top in changes.added:
            found = locator.chain(top)
            assert found is not None, top
            fresh.update((queue.path, queue) for queue in found[-1].walk())
        levels_moved = bool(changes.added or changes.removed or changes.parents or changes.limits)
        if changes.added or changes.removed or changes.parents:
            # Paths come and go or move: both maps are laid out in document order again.
            old_queues = previous.queues
            for queue in partition.queues():
                path = queue.path
                settings = None if path in fresh else old_queues.get(path)
                self.queues[path] = settings if settings is not None else _settings(queue)
                if queue.limits:
                    kept = None if path in fresh else previous.levels.get(path)
                    self.levels[path] = kept if kept is not None else _level(queue)
        else:
            self.queues = dict(previous.queues)
            self.levels = dict(previous.levels)
            for path, queue in fresh.items():
                self.queues[path] = _settings(queue)
            if any(
                bool(fresh[path].limits) != (path in previous.levels) for path in changes.limits
            ):
                # A queue's first limits or its last: its place among the levels changes.
                self.levels = {
                    queue.path: _level(queue) if queue.path in changes.limits
                    else previous.levels[queue.path]
                    for queue in partition.queues() if queue.limits
                }
            else:
                for path in changes.limits:
                    self.levels[path] = _level(fresh[path])
        if levels_moved:
            self._name_paths()
        else:
            self.named_user_paths = previous.named_user_paths
            self.named_group_paths = previous.named_group_paths

    # -- caps along a path ------------------------------------------------------------------

    def user_chain(self, user: str, prefixes: Sequence[str]) -> Chain:
        # Users without a named limit all share the wildcard chain of the path.
        key = (user if user in self.named_user_paths else WILDCARD, prefixes[-1])
        chain = self._user_chains.get(key)
        if chain is None:
            chain = self._chain(prefixes, lambda level: level.user_cap(key[0]))
            _remember(self._user_chains, key, chain)
        return chain

    def group_chain(self, group: str, prefixes: Sequence[str]) -> Chain:
        key = (group, prefixes[-1])
        chain = self._group_chains.get(key)
        if chain is None:
            chain = self._chain(prefixes, lambda level: level.group_cap(group))
            _remember(self._group_chains, key, chain)
        return chain

    def queue_chain(self, prefixes: Sequence[str]) -> Chain:
        leaf = prefixes[-1]
        chain = self._queue_chains.get(leaf)
        if chain is None:
            links: list[ChainLink] = []
            for path in prefixes:
                settings = self.queues.get(path)
                if settings and (settings.max_resources or settings.max_applications):
                    links.append((path, settings.max_resources or None, settings.max_applications))
            chain = tuple(links)
            _remember(self._queue_chains, leaf, chain)
        return chain

    def _chain(self, prefixes: Iterable[str], cap_at: Callable[[Level], Cap | None]) -> Chain:
        links: list[ChainLink] = []
        for path in prefixes:
            level = self.levels.get(path)
            if level is None:
                continue
            cap = cap_at(level)
            if cap is not None:
                links.append((path, cap.max_resources, cap.max_applications))
        return tuple(links)

    def user_cap(self, user: str, path: str) -> Cap | None:
        level = self.levels.get(path)
        return level.user_cap(user) if level else None

    def group_cap(self, group: str, path: str) -> Cap | None:
        level = self.levels.get(path)
        return level.group_cap(group) if level else None

    # -- group resolution (spec 2.4) ---------------------------------------------------------

    def resolve_group(self, prefixes: Sequence[str], groups: tuple[str, ...]) -> str | None:
        if not groups:
            return None
        key = (prefixes[-1], groups)
        if key in self._resolved_groups:
            return self._resolved_groups[key]
        member_of = set(groups)
        resolved: str | None = None
        for path in reversed(prefixes):
            level = self.levels.get(path)
            if level is None:
                continue
            # Config order decides, not the order of the user's groups.
            resolved = next((g for g in level.groups if g in member_of), None)
            if resolved is None and level.group_wildcard is not None:
                resolved = WILDCARD
            if resolved is not None:
                break
        _remember(self._resolved_groups, key, resolved)
        return resolved


def _remember(cache: dict[_K, _V], key: _K, value: _V) -> None:
    # Callers may send any number of distinct paths and group lists; keep memory bounded.
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
