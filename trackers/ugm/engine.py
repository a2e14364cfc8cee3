"""The user and group quota engine of one partition (spec section 2).

All state changes happen under one lock per engine: an increase takes its admission decision and
applies it in the same critical section, so two requests can never both pass on the same remaining
headroom, and user, group and queue trackers always move together (spec 2.6).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from trackers.config.model import Partition
from trackers.errors import InvalidRequest, NotTracked
from trackers.gcpause import paused_gc
from trackers.names import QUEUE_NAME_RE, USER_NAME_RE
from trackers.resources import format_resource
from trackers.ugm.changes import ChangeLog, Changes
from trackers.ugm.decision import (
    GROUP_QUOTA,
    MAX_APPLICATIONS,
    QUEUE_MAX_APPLICATIONS,
    QUEUE_QUOTA,
    USER_QUOTA,
    Decision,
)
from trackers.ugm.limits import Chain, LimitTable
from trackers.ugm.snapshot import group_object, queue_tree, user_object
from trackers.ugm.tracker import Node, Tracker

MAX_QUEUE_DEPTH = 64

ERR_QUEUE_PATH = "queue path {path!r} must be 'root' or start with 'root.'"
ERR_QUEUE_SEGMENT = "queue path {path!r} has an invalid queue name {segment!r}"
ERR_QUEUE_DEPTH = f"queue path {{path!r}} is deeper than {MAX_QUEUE_DEPTH} levels"
ERR_APP_ID = "application id must be a non-empty string"
ERR_USER = "user name {user!r} is not a valid user name"
ERR_GROUPS = "groups must be a list of group names"
ERR_RESOURCE = "resource must be a map of resource type to a non-negative integer"
ERR_RESOURCE_VALUE = "resource {kind!r} must be a non-negative integer, not {value!r}"
ERR_PARTITION = "this engine serves partition {mine!r}, not {theirs!r}"
ERR_NO_USER = "user {user!r} has no tracked usage"
ERR_NO_PATH = "user {user!r} has no tracked usage in queue {path}"
ERR_NO_GROUP_PATH = "group {group!r} of application {app!r} has no tracked usage in queue {path}"

_NO_NODE = Node()
_PREFIX_CACHE_LIMIT = 100_000


class Engine:
    def __init__(self, partition: Partition, *, version: int | None = None) -> None:
        self.partition = partition.name
        self._lock = threading.Lock()
        self._apply_lock = threading.Lock()
        self._config = partition
        self._table = LimitTable(partition)
        self.version = version
        self._users: dict[str, Tracker] = {}
        self._groups: dict[str, Tracker] = {}
        self._queues = Tracker("")
        self._log = ChangeLog()
        self._prefixes: dict[str, tuple[str, ...]] = {}

    # -- configuration -----------------------------------------------------------------------

    @property
    def config(self) -> Partition:
        return self._config

    def apply_config(self, partition: Partition, *, version: int | None = None) -> None:
        """Switch to new limits in one step; usage, running apps and group links stay as is."""
        if partition.name != self.partition:
            raise InvalidRequest(ERR_PARTITION.format(mine=self.partition, theirs=partition.name))
        # Compile outside the engine lock so allocations go on while a large config is read;
        # the apply lock keeps two concurrent applies from finishing in the wrong order.
        with self._apply_lock:
            table = LimitTable(partition)
            with self._lock:
                self._table = table
                self._config = partition
                self.version = version
                self._log.record_reset()

    # -- input checks ------------------------------------------------------------------------

    def _path(self, queue_path: str) -> tuple[str, ...]:
        prefixes = self._prefixes.get(queue_path)
        if prefixes is not None:
            return prefixes
        if not isinstance(queue_path, str) or not queue_path:
            raise InvalidRequest(ERR_QUEUE_PATH.format(path=queue_path))
        segments = queue_path.lower().split(".")
        if segments[0] != "root":
            raise InvalidRequest(ERR_QUEUE_PATH.format(path=queue_path))
        if len(segments) > MAX_QUEUE_DEPTH:
            raise InvalidRequest(ERR_QUEUE_DEPTH.format(path=queue_path))
        for segment in segments[1:]:
            if not QUEUE_NAME_RE.fullmatch(segment):
                raise InvalidRequest(ERR_QUEUE_SEGMENT.format(path=queue_path, segment=segment))
        prefixes = tuple(".".join(segments[: i + 1]) for i in range(len(segments)))
        if len(self._prefixes) >= _PREFIX_CACHE_LIMIT:
            self._prefixes.clear()
        self._prefixes[queue_path] = prefixes
        return prefixes

    def _check_identity(self, app_id: str, user: str) -> None:
        if not isinstance(app_id, str) or not app_id:
            raise InvalidRequest(ERR_APP_ID)
        if user not in self._users and (
            not isinstance(user, str) or not USER_NAME_RE.fullmatch(user)
        ):
            raise InvalidRequest(ERR_USER.format(user=user))

    @staticmethod
    def _group_list(groups: Sequence[str] | None) -> tuple[str, ...]:
        if groups is None:
            return ()
        if type(groups) is tuple:
            names = groups
        elif isinstance(groups, list | tuple):
            names = tuple(groups)
        else:
            raise InvalidRequest(ERR_GROUPS)
        for name in names:
            if type(name) is not str:
                raise InvalidRequest(ERR_GROUPS)
        return names

    @staticmethod
    def _amounts(resource: dict[str, int]) -> list[tuple[str, int]]:
        if type(resource) is not dict:
            raise InvalidRequest(ERR_RESOURCE)
        amounts = []
        for kind, value in resource.items():
            if type(value) is not int or value < 0 or type(kind) is not str or not kind:
                raise InvalidRequest(ERR_RESOURCE_VALUE.format(kind=kind, value=value))
            if value:
                amounts.append((kind, value))
        return amounts

    # -- admission ---------------------------------------------------------------------------

    def _assess(self, prefixes, app_id, user, groups):
        """Everything a decision needs, computed without changing anything.

        Returns (group, linked, app-count failure or None, user, group and queue headroom).
        """
        table = self._table
        user_tracker = self._users.get(user)
        if user_tracker is not None and app_id in user_tracker.links:
            group = user_tracker.links[app_id]
            linked = True
        else:
            group = table.resolve_group(prefixes, groups)
            linked = False
        failure = None
        user_room, failed_at = _walk(table.user_chain(user, prefixes), user_tracker, app_id)
        if failed_at is not None:
            failure = (MAX_APPLICATIONS, "user", user, failed_at)
        group_room = None
        if group is not None:
            group_tracker = self._groups.get(group)
            group_room, failed_at = _walk(table.group_chain(group, prefixes), group_tracker, app_id)
            if failure is None and failed_at is not None:
                failure = (MAX_APPLICATIONS, "group", group, failed_at)
        queue_room, failed_at = _walk(table.queue_chain(prefixes), self._queues, app_id)
        if failure is None and failed_at is not None:
            failure = (QUEUE_MAX_APPLICATIONS, "queue", prefixes[-1], failed_at)
        return group, linked, failure, user_room, group_room, queue_room

    def increase(
        self,
        queue_path: str,
        app_id: str,
        user: str,
        groups: Sequence[str] | None,
        resource: dict[str, int],
    ) -> Decision:
        """Admit and apply ``resource`` for the app in one step, or deny and change nothing."""
        amounts = self._amounts(resource)
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            group, linked, failure, user_room, group_room, queue_room = self._assess(
                prefixes, app_id, user, group_names
            )
            if failure is not None:
                return self._denied_apps(
                    failure, prefixes, group, user_room, group_room, queue_room
                )
            if _breaks(user_room, amounts):
                reason = USER_QUOTA
            elif _breaks(group_room, amounts):
                reason = GROUP_QUOTA
            elif _breaks(queue_room, amounts):
                reason = QUEUE_QUOTA
            else:
                reason = None
            if reason is not None:
                return self._denied_quota(
                    reason, prefixes, user, group, amounts, user_room, group_room, queue_room
                )

            user_tracker = self._users.get(user)
            if user_tracker is None:
                user_tracker = self._users[user] = Tracker(user)
            user_tracker.add(prefixes, app_id, amounts)
            if not linked:
                user_tracker.links[app_id] = group
            if group is not None:
                group_tracker = self._groups.get(group)
                if group_tracker is None:
                    group_tracker = self._groups[group] = Tracker(group)
                group_tracker.add(prefixes, app_id, amounts)
                group_tracker.links[app_id] = user
            self._queues.add(prefixes, app_id, amounts)
            self._log.record(user, group, prefixes)
            return Decision(True, None, group, "", (user_room, group_room, queue_room), amounts)

    def _denied_apps(self, failure, prefixes, group, user_room, group_room, queue_room):
        reason, kind, name, (path, running, limit) = failure
        who = f"queue {path}" if kind == "queue" else f"{kind} {name} in queue {path}"
        message = (
            f"{who} already runs {running} of at most {limit} applications; "
            f"a new application in {prefixes[-1]} would exceed that"
        )
        return Decision(False, reason, group, message, (user_room, group_room, queue_room), None)

    def _denied_quota(
        self, reason, prefixes, user, group, amounts, user_room, group_room, queue_room
    ):
        table = self._table
        if reason == USER_QUOTA:
            who, chain, tracker = (
                f"user {user}",
                table.user_chain(user, prefixes),
                self._users.get(user),
            )
        elif reason == GROUP_QUOTA:
            who, chain, tracker = (
                f"group {group}",
                table.group_chain(group, prefixes),
                self._groups.get(group),
            )
        else:
            who, chain, tracker = "queue", table.queue_chain(prefixes), self._queues
        nodes = tracker.nodes if tracker is not None else {}
        # Name the first level whose cap the request does not fit, with the numbers compared.
        for path, maximum, _ in chain:
            if not maximum:
                continue
            usage = nodes.get(path, _NO_NODE)
            for kind, amount in amounts:
                if kind in maximum and amount > maximum[kind] - usage.get(kind, 0):
                    where = f"{who} in queue {path}" if who != "queue" else f"queue {path}"
                    message = (
                        f"{where} uses {format_resource({kind: usage.get(kind, 0)})} of "
                        f"{format_resource({kind: maximum[kind]})}; the request for "
                        f"{format_resource({kind: amount})} in {prefixes[-1]} does not fit"
                    )
                    return Decision(
                        False, reason, group, message, (user_room, group_room, queue_room), None
                    )
        raise AssertionError("a quota denial without a cap it breaks")  # pragma: no cover

    def headroom(
        self, queue_path: str, app_id: str, user: str, groups: Sequence[str] | None
    ) -> dict[str, int] | None:
        """What the user may still add in the queue: a resource map, or None for unlimited."""
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            _, _, _, *rooms = self._assess(prefixes, app_id, user, group_names)
        return Decision(True, None, None, "", tuple(rooms), None).headroom

    def can_run_app(
        self, queue_path: str, app_id: str, user: str, groups: Sequence[str] | None
    ) -> bool:
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            failure = self._assess(prefixes, app_id, user, group_names)[2]
        return failure is None

    # -- release -----------------------------------------------------------------------------

    def decrease(
        self,
        queue_path: str,
        app_id: str,
        user: str,
        resource: dict[str, int],
        remove_app: bool = False,
    ) -> None:
        """Take usage back, exactly (usage may go negative); ``remove_app`` stops the app running.

        Raises NotTracked, changing nothing, when the user has no usage node at the path (D8).
        """
        amounts = self._amounts(resource)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            leaf = prefixes[-1]
            user_tracker = self._users.get(user)
            if user_tracker is None:
                raise NotTracked(ERR_NO_USER.format(user=user))
            if leaf not in user_tracker.nodes:
                raise NotTracked(ERR_NO_PATH.format(user=user, path=leaf))
            group = user_tracker.links.get(app_id)
            group_tracker = self._groups.get(group) if group is not None else None
            if group is not None and (group_tracker is None or leaf not in group_tracker.nodes):
                raise NotTracked(ERR_NO_GROUP_PATH.format(group=group, app=app_id, path=leaf))

            user_tracker.subtract(prefixes, app_id, amounts, remove_app)
            if group_tracker is not None:
                group_tracker.subtract(prefixes, app_id, amounts, remove_app)
            self._queues.subtract(prefixes, app_id, amounts, remove_app)
            if remove_app:
                user_tracker.links.pop(app_id, None)
                if group_tracker is not None:
                    group_tracker.links.pop(app_id, None)
            if user_tracker.empty:
                del self._users[user]
            if group_tracker is not None and group_tracker.empty:
                del self._groups[group]
            self._log.record(user, group, prefixes)

    # -- reads -------------------------------------------------------------------------------

    def users_usage(self) -> list[dict]:
        with self._lock, paused_gc():
            table = self._table
            names = sorted(self._users.keys() | table.named_user_paths.keys())
            return [user_object(name, self._users.get(name), table) for name in names]

    def user_usage(self, name: str) -> dict | None:
        with self._lock:
            tracker = self._users.get(name)
            if tracker is None and name not in self._table.named_user_paths:
                return None
            return user_object(name, tracker, self._table)

    def groups_usage(self) -> list[dict]:
        with self._lock, paused_gc():
            table = self._table
            names = sorted(self._groups.keys() | table.named_group_paths.keys())
            return [group_object(name, self._groups.get(name), table) for name in names]

    def group_usage(self, name: str) -> dict | None:
        with self._lock:
            tracker = self._groups.get(name)
            if tracker is None and name not in self._table.named_group_paths:
                return None
            return group_object(name, tracker, self._table)

    def queues_usage(self) -> dict:
        with self._lock, paused_gc():
            return queue_tree(self._queues, self._table)

    def summary(self) -> dict:
        """Counts for health checks and overviews."""
        with self._lock:
            table = self._table
            return {
                "version": self.version,
                "users": len(self._users.keys() | table.named_user_paths.keys()),
                "groups": len(self._groups.keys() | table.named_group_paths.keys()),
                "queues": len(table.queues),
                "seq": self._log.seq,
            }

    # -- change log --------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        return self._log.seq

    def changes_since(self, seq: int) -> Changes:
        with self._lock:
            return self._log.since(seq)


def _breaks(room: dict[str, int] | None, amounts: list[tuple[str, int]]) -> bool:
    """Whether a request does not fit a headroom (spec 2.5: negative headroom counts as 0)."""
    if room is not None:
        for kind, amount in amounts:
            left = room.get(kind)
            if left is not None and amount > left:
                return True
    return False


def _walk(chain: Chain, tracker: Tracker | None, app_id: str):
    """Headroom of one tracker along a chain of caps, and the first app-count cap the app breaks.

    Returns (headroom or None for unlimited, None or (level, running, max apps)).
    """
    nodes = tracker.nodes if tracker is not None else None
    room = None
    failed = None
    for path, maximum, max_apps in chain:
        node = nodes.get(path, _NO_NODE) if nodes is not None else _NO_NODE
        if max_apps and failed is None and app_id not in node.apps and len(node.apps) >= max_apps:
            failed = (path, len(node.apps), max_apps)
        if maximum:
            if room is None:
                # A plain loop: a comprehension costs a frame of its own on this hot path.
                room = {}
                for kind, cap in maximum.items():
                    room[kind] = cap - node.get(kind, 0)
            else:
                for kind, cap in maximum.items():
                    left = cap - node.get(kind, 0)
                    current = room.get(kind)
                    if current is None or left < current:
                        room[kind] = left
    return room, failed
