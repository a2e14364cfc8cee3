"""The gateway's reads of usage: each holds one partition's lock for as long as the engine's
answer takes (``Gateway.engine``), and changes nothing. Kept apart from the gateway's writes
(``quotaweb.engine.gateway``), which take the same locks."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from trackers import Changes, Engine
from trackers.config.model import Partition


class EngineReads:
    """Reads of the partitions' engines, mixed into ``Gateway``, which provides ``engine``."""

    def engine(self, partition: str) -> AbstractContextManager[Engine]:
        raise NotImplementedError

    def summary(self, partition: str) -> dict[str, Any]:
        """``{version, users, groups, queues, seq}`` for health checks and overviews."""
        with self.engine(partition) as engine:
            return engine.summary()

    def over_limits(
        self, partition: str, *, limits: Partition | None = None,
        users: list[dict[str, Any]] | None = None, groups: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """Who uses more than ``limits`` (a partition's config; default the one in force) allow
        (``Engine.over_limits``: usage now, or the ``users`` and ``groups`` snapshots given)."""
        with self.engine(partition) as engine:
            return engine.over_limits(limits, users=users, groups=groups)

    def queues_usage(self, partition: str) -> dict[str, Any]:
        with self.engine(partition) as engine:
            return engine.queues_usage()

    def users_usage(self, partition: str) -> list[dict[str, Any]]:
        with self.engine(partition) as engine:
            return engine.users_usage()

    def groups_usage(self, partition: str) -> list[dict[str, Any]]:
        with self.engine(partition) as engine:
            return engine.groups_usage()

    def seq(self, partition: str) -> int:
        """The partition engine's change counter (see ``changes_since``)."""
        with self.engine(partition) as engine:
            return engine.seq

    def changes_since(self, partition: str, seq: int) -> Changes:
        """Users, groups and queues changed after ``seq`` (``trackers.Changes``)."""
        with self.engine(partition) as engine:
            return engine.changes_since(seq)

    def user_usage(self, partition: str, name: str) -> dict[str, Any] | None:
        """One user object (None when the user has no tracker)."""
        with self.engine(partition) as engine:
            return engine.user_usage(name)

    def users_usage_of(
        self, partition: str, names: Iterable[str]
    ) -> dict[str, dict[str, Any] | None]:
        """User objects of several users under one hold of the lock (None: no tracker)."""
        with self.engine(partition) as engine:
            return {name: engine.user_usage(name) for name in names}

    def groups_usage_of(
        self, partition: str, names: Iterable[str]
    ) -> dict[str, dict[str, Any] | None]:
        with self.engine(partition) as engine:
            return {name: engine.group_usage(name) for name in names}

    def group_usage(self, partition: str, name: str) -> dict[str, Any] | None:
        with self.engine(partition) as engine:
            return engine.group_usage(name)
