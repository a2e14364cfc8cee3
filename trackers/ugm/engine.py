"""The user and group quota engine of one partition (spec section 2).

All state changes happen under one lock per engine: an increase takes its admission decision and
applies it in the same critical section, so two requests can never both pass on the same remaining
headroom, and user, group and queue trackers always move together (spec 2.6).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from trackers.config.localised import queue_changes
from trackers.config.model import Partition
from trackers.errors import InvalidRequest, NotTracked
from trackers.gcpause import paused_gc
from trackers.names import GROUP_NAME_RE, QUEUE_NAME_RE, USER_NAME_RE
from trackers.resources import INT64_MAX, format_resource
from trackers.ugm.caps import (
    AnyTracker,
    AppsFailure,
    Failures,
    QuotaFailure,
    Runtimes,
    caps_check,
    elastic_check,
    elastic_message,
    elastic_room,
    least_room,
    room_of,
)
from trackers.ugm.changes import ChangeLog, Changes
from trackers.ugm.decision import (
    ELASTIC_QUOTA,
    GROUP_QUOTA,
    MAX_APPLICATIONS,
    QUEUE_MAX_APPLICATIONS,
    QUEUE_QUOTA,
    RESOURCE_OVERFLOW,
    USER_QUOTA,
    Decision,
    Headroom,
)
from trackers.ugm.impact import judged, judged_trackers
from trackers.ugm.limits import Chain, LimitTable
from trackers.ugm.snapshot import (
    UsageRows,
    detached,
    group_object,
    queue_row,
    queue_tree,
    usage_tree,
    user_object,
)
from trackers.ugm.tracker import Amounts, Tracker, UserTracker

MAX_QUEUE_DEPTH = 64
# Rows (users, groups or queue levels) read per hold of the engine's lock by the reads of
# everyone that need no single instant (``over_limits``, ``usage_rows``): an increase waits for
# one such hold at most (well under a millisecond), not for a read of everyone (several hundred
# milliseconds at 10,000 users with live allocations and 50,555 limit entries,
# docs/design.md, "Applies beside allocations").
READ_PER_HOLD = 100

ERR_QUEUE_PATH = "queue path {path!r} must be 'root' or start with 'root.'"
ERR_QUEUE_SEGMENT = "queue path {path!r} has an invalid queue name {segment!r}"
ERR_QUEUE_DEPTH = f"queue path {{path!r}} is deeper than {MAX_QUEUE_DEPTH} levels"
ERR_APP_ID = "application id must be a non-empty string"
ERR_USER = "user name {user!r} is not a valid user name"
ERR_GROUPS = "groups must be a list of group names"
ERR_GROUP = "group name {group!r} is not a valid group name"
ERR_RESOURCE = "resource must be a map of resource type to a non-negative integer"
ERR_RESOURCE_VALUE = (
    f"resource {{kind!r}} must be an integer from 0 to {INT64_MAX}, not {{value!r}}"
)
ERR_PARTITION = "this engine serves partition {mine!r}, not {theirs!r}"
ERR_NO_USER = "user {user!r} has no tracked usage"
ERR_NO_PATH = "user {user!r} has no tracked usage in queue {path}"
ERR_OVERFLOW = (
    "resource {kind} would sum to {total} in queue {root}, above the largest usage kept "
    f"({INT64_MAX}, 64 bits): {{used}} in use plus {{amount}} asked; nothing was changed"
)

_PREFIX_CACHE_LIMIT = 100_000

# A user's, a group's or the queues' tracker; None where the user or group has none yet.
# What ``Engine._in_holds`` reads (a tracker, a queue level) and what it makes of each.
_Held = TypeVar("_Held")
_Row = TypeVar("_Row")


@dataclass(frozen=True, slots=True)
class CompiledConfig:
    """A partition's limits made ready for ``Engine.install_config`` (or a new ``Engine``)."""

    partition: Partition
    table: LimitTable


def compile_config(
    partition: Partition, *, previous: CompiledConfig | None = None
) -> CompiledConfig:
    """All the work of a config switch that takes time or can fail, done without any lock: a
    caller compiles first, finishes whatever else may fail (storing the version), and only then
    installs, which cannot fail. With ``previous`` (the partition's compiled config in force)
    only the queues that differ from it are compiled again; the table is the same."""
    if previous is None or previous.partition.name != partition.name:
        return CompiledConfig(partition, LimitTable(partition))
    if previous.partition is partition:
        return previous
    changes = queue_changes(previous.partition.root, partition.root)
    if not changes:
        # The same queues (partition-level settings aside): the same table, caches and all.
        return CompiledConfig(partition, previous.table)
    return CompiledConfig(partition, LimitTable(partition, previous.table, changes))


class Engine:
    def __init__(
        self, partition: Partition | CompiledConfig, *, version: int | None = None
    ) -> None:
        compiled = partition if isinstance(partition, CompiledConfig) else compile_config(partition)
        self.partition = compiled.partition.name
        self._lock = threading.Lock()
        self._apply_lock = threading.Lock()
        self._config = compiled.partition
        self._table = compiled.table
        self.version = version
        self._users: dict[str, UserTracker] = {}
        self._groups: dict[str, Tracker] = {}
        self._queues = Tracker("")
        self._log = ChangeLog()
        self._prefixes: dict[str, tuple[str, ...]] = {}
        self._elastic: Runtimes | None = None

    # -- configuration -----------------------------------------------------------------------

    @property
    def config(self) -> Partition:
        return self._config

    def apply_config(self, partition: Partition, *, version: int | None = None) -> None:
        """Switch to new limits in one step; usage, running apps and group links stay as is."""
        # The apply lock keeps two concurrent applies from finishing in the wrong order.
        with self._apply_lock:
            self.install_config(compile_config(partition), version=version)

    def compiled(self) -> CompiledConfig:
        """The compiled config in force (to compile the next one from)."""
        with self._lock:
            return CompiledConfig(self._config, self._table)

    def install_config(self, compiled: CompiledConfig, *, version: int | None = None) -> None:
        """Switch to limits made by ``compile_config``: a few assignments under the engine lock.
        Usage, running apps and group links stay as is."""
        if compiled.partition.name != self.partition:
            raise InvalidRequest(
                ERR_PARTITION.format(mine=self.partition, theirs=compiled.partition.name)
            )
        with self._lock:
            self._table = compiled.table
            self._config = compiled.partition
            self.version = version
            self._log.record_reset()

    def set_elastic_runtimes(self, runtimes: Runtimes | None) -> None:
        """Enforce elastic quota from now on: an increase must also fit ``used + request <=
        runtime`` at the deepest queue of its path that ``runtimes`` names, in the types that
        queue's runtime has (its max's). ``None`` turns the rule off. The map is computed
        elsewhere (``trackers.elastic``) and handed over whole, so the check is a lookup."""
        with self._lock:
            self._elastic = runtimes

    def queue_usage(self, paths: Iterable[str]) -> dict[str, dict[str, int]]:
        """The usage of each queue path (all users, the queue's subtree included)."""
        with self._lock:
            node_at = self._queues.node_at
            return {path: dict(node_at(path)) for path in paths}

    def over_limits(
        self, partition: Partition | None = None, *,
        users: list[dict[str, Any]] | None = None, groups: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """Who uses more than a limit of ``partition`` allows (``trackers.ugm.impact``). By
        default the limits in force, already compiled, and usage now; ``users`` and ``groups``
        (this engine's snapshots, taken a moment before) spare reading every tracker again.

        Usage now is read a few users at a time (``_in_holds``), never in one hold of the
        engine's lock: an apply's impact reads everyone while allocations go on. The partition
        in force (the very object, as a just-applied version's model is) is judged by the
        limits already compiled for it, not compiled again; another, by those limits with the
        queues it changes compiled again."""
        if partition is not None and partition.name != self.partition:
            raise InvalidRequest(ERR_PARTITION.format(mine=self.partition, theirs=partition.name))
        with self._lock:
            table, in_force = self._table, self._config
        if partition is not None and partition is not in_force:
            # A candidate mostly shares its queues with the partition in force: only the
            # queues that differ are compiled (10,000 queues compiled whole took 0.5 s).
            table = compile_config(partition, previous=CompiledConfig(in_force, table)).table
        if users is None and groups is None:
            return judged_trackers(
                self.partition, table, users=self._in_holds(self._users, detached),
                groups=self._in_holds(self._groups, detached),
            )
        if users is None:
            users = self._usage_trees(self._users, "userName")
        if groups is None:
            groups = self._usage_trees(self._groups, "groupName")
        return judged(self.partition, table, users=users, groups=groups)

    def usage_rows(self) -> UsageRows:
        """Every user, group and queue level in use (``UsageRows``), for the usage sampler,
        read ``READ_PER_HOLD`` rows per hold of the engine's lock, never all in one: a sample of
        10,000 users must not hold every increase for its whole read.

        Each row is exact: one user's, group's or queue level's figures, read in one hold. The
        rows are not one instant: an increase or a release may land between two holds, so a
        queue's figure may differ from the sum of its children's, or a group's from its users',
        by what moved meanwhile (as ``over_limits`` judges). With nothing moving, the rows are
        those of a whole snapshot (``users_usage``, ``groups_usage``, ``queues_usage``)."""
        return UsageRows(
            self._usage_trees(self._users, "userName"),
            self._usage_trees(self._groups, "groupName"),
            self._in_holds(self._queues.nodes, queue_row),
        )

    def _usage_trees(
        self, trackers: Mapping[str, Tracker | UserTracker], key: str
    ) -> list[dict[str, Any]]:
        """Every user's (or group's) usage tree, the trackers copied in holds (``detached``)
        and the trees built outside the lock."""
        return [usage_tree(key, copy) for copy in self._in_holds(trackers, detached)]

    def _in_holds(
        self, held: Mapping[str, _Held], read: Callable[[str, _Held], _Row | None]
    ) -> list[_Row]:
        """``read(name, item)`` for each item of ``held`` (one of this engine's maps, which
        change only under its lock) still there when reached, sorted by name, leaving out what
        ``read`` answers None for; the engine's lock taken for ``READ_PER_HOLD`` items at a
        time. The names are copied in one short hold and sorted outside it."""
        with self._lock:
            names = list(held)
        names.sort()
        found: list[_Row] = []
        for start in range(0, len(names), READ_PER_HOLD):
            with self._lock:
                for name in names[start:start + READ_PER_HOLD]:
                    item = held.get(name)
                    if item is not None:
                        row = read(name, item)
                        if row is not None:
                            found.append(row)
        return found

    # -- input checks ------------------------------------------------------------------------

    def _path(self, queue_path: str) -> tuple[str, ...]:
        if type(queue_path) is not str or not queue_path:
            raise InvalidRequest(ERR_QUEUE_PATH.format(path=queue_path))
        prefixes = self._prefixes.get(queue_path)
        if prefixes is not None:
            return prefixes
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
        if type(app_id) is not str or not app_id:
            raise InvalidRequest(ERR_APP_ID)
        if type(user) is not str or (
            user not in self._users and not USER_NAME_RE.fullmatch(user)
        ):
            raise InvalidRequest(ERR_USER.format(user=user))

    def _check_groups(self, names: tuple[str, ...]) -> None:
        """Group names follow their rule as user names do theirs (``_check_identity``): a group
        already tracked passed it before."""
        for name in names:
            # An ASCII identifier is a group name, found in a fifth of the regular expression's
            # time: most names are (``ml``, ``team_7``).
            if not (name.isascii() and name.isidentifier()) and (
                name not in self._groups and not GROUP_NAME_RE.fullmatch(name)
            ):
                raise InvalidRequest(ERR_GROUP.format(group=name))

    @staticmethod
    def _group_list(groups: Sequence[str] | None) -> tuple[str, ...]:
        if groups is None:
            return ()
        names: tuple[str, ...]
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
        amounts: list[tuple[str, int]] = []
        for kind, value in resource.items():
            if (
                type(value) is not int or not 0 <= value <= INT64_MAX or type(kind) is not str
                or not kind
            ):
                raise InvalidRequest(ERR_RESOURCE_VALUE.format(kind=kind, value=value))
            if value:
                amounts.append((kind, value))
        return amounts

    # -- admission ---------------------------------------------------------------------------

    def _group_of(
        self, prefixes: tuple[str, ...], app_id: str, user: str, groups: tuple[str, ...]
    ) -> tuple[str | None, bool]:
        """(group the app counts against, whether that link already exists)."""
        user_tracker = self._users.get(user)
        if user_tracker is not None and app_id in user_tracker.links:
            return user_tracker.links[app_id], True
        return self._table.resolve_group(prefixes, groups), False

    def _trackers(
        self, prefixes: tuple[str, ...], user: str, group: str | None
    ) -> Iterator[tuple[Chain, AnyTracker]]:
        """(chain of caps, tracker) for the user, the app's group and the queue."""
        table = self._table
        yield table.user_chain(user, prefixes), self._users.get(user)
        if group is not None:
            yield table.group_chain(group, prefixes), self._groups.get(group)
        yield table.queue_chain(prefixes), self._queues

    def _rooms(
        self, prefixes: tuple[str, ...], user: str, group: str | None
    ) -> tuple[Headroom, ...]:
        """The headroom of user, group and queue, and of the elastic runtime quota when it is
        enforced (None where unlimited or absent)."""
        rooms = [
            room_of(chain, tracker) for chain, tracker in self._trackers(prefixes, user, group)
        ]
        if self._elastic is not None:
            rooms.append(elastic_room(self._elastic, prefixes, self._queues))
        return tuple(rooms)

    def increase(
        self,
        queue_path: str,
        app_id: str,
        user: str,
        groups: Sequence[str] | None,
        resource: dict[str, int],
    ) -> Decision:
        """Admit and apply ``resource`` for the app in one step, or deny and change nothing.

        The check looks only at the requested types; a denial also reports the full headroom.
        """
        amounts = self._amounts(resource)
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            if group_names:
                self._check_groups(group_names)
            table = self._table
            user_tracker = self._users.get(user)
            if user_tracker is not None and app_id in user_tracker.links:
                group, linked = user_tracker.links[app_id], True
            else:
                group, linked = table.resolve_group(prefixes, group_names), False
            # Most paths have no cap for one of the three: skip the call then.
            user_apps: AppsFailure | None = None
            group_apps: AppsFailure | None = None
            queue_apps: AppsFailure | None = None
            user_quota: QuotaFailure | None = None
            group_quota: QuotaFailure | None = None
            queue_quota: QuotaFailure | None = None
            chain = table.user_chain(user, prefixes)
            if chain:
                user_apps, user_quota = caps_check(chain, user_tracker, app_id, amounts)
            if group is not None:
                group_tracker = self._groups.get(group)
                chain = table.group_chain(group, prefixes)
                if chain:
                    group_apps, group_quota = caps_check(chain, group_tracker, app_id, amounts)
            chain = table.queue_chain(prefixes)
            if chain:
                queue_apps, queue_quota = caps_check(chain, self._queues, app_id, amounts)
            elastic = (
                None if self._elastic is None
                else elastic_check(self._elastic, prefixes, self._queues, amounts)
            )
            if (
                user_apps or group_apps or queue_apps or user_quota or group_quota or queue_quota
                or elastic
            ):
                return self._denied(
                    prefixes,
                    user,
                    group,
                    Failures(
                        user_apps, group_apps, queue_apps, user_quota, group_quota, queue_quota,
                        elastic,
                    ),
                )

            # Every sum the request adds to (the user's, the group's, each queue's) is part of
            # the root queue's, and usage never goes below 0: so it alone decides.
            top = self._queues.nodes.get(prefixes[0])
            if top is not None:
                for kind, amount in amounts:
                    if top.get(kind, 0) + amount > INT64_MAX:
                        return self._overflow(
                            prefixes, user, group, kind, top.get(kind, 0), amount
                        )
            self._add(prefixes, app_id, user, user_tracker, group, linked, amounts)
            return Decision(
                True, None, group, "", partial(self.headroom, queue_path, app_id, user, groups)
            )

    def _add(
        self,
        prefixes: tuple[str, ...],
        app_id: str,
        user: str,
        user_tracker: UserTracker | None,
        group: str | None,
        linked: bool,
        amounts: Amounts,
    ) -> None:
        if user_tracker is None:
            user_tracker = self._users[user] = UserTracker(user)
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

    def restore(
        self,
        queue_path: str,
        app_id: str,
        user: str,
        groups: Sequence[str] | None,
        resource: dict[str, int],
    ) -> str | None:
        """Apply usage that was admitted before (a ledger replayed after a restart, or an undone
        release) without checking any cap: usage that exists is never refused, even above limits
        tightened since. Answers the group the app counts against."""
        amounts = self._amounts(resource)
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            group, linked = self._group_of(prefixes, app_id, user, group_names)
            self._add(prefixes, app_id, user, self._users.get(user), group, linked, amounts)
            return group

    def _overflow(
        self, prefixes: tuple[str, ...], user: str, group: str | None, kind: str, used: int,
        amount: int,
    ) -> Decision:
        message = ERR_OVERFLOW.format(kind=kind, total=used + amount, root=prefixes[0],
                                      used=used, amount=amount)
        return Decision(False, RESOURCE_OVERFLOW, group, message,
                        least_room(self._rooms(prefixes, user, group)))

    def _denied(
        self, prefixes: tuple[str, ...], user: str, group: str | None, failures: Failures
    ) -> Decision:
        """The first failure in the documented order, told with the numbers compared."""
        who = (f"user {user} in queue", f"group {group} in queue", "queue")
        leaf = prefixes[-1]
        apps = (failures.user_apps, failures.group_apps, failures.queue_apps)
        quotas = (failures.user_quota, failures.group_quota, failures.queue_quota)
        for index, failed in enumerate(apps):
            if failed is not None:
                path, running, limit = failed
                reason = QUEUE_MAX_APPLICATIONS if index == 2 else MAX_APPLICATIONS
                message = (
                    f"{who[index]} {path} already runs {running} of at most {limit} "
                    f"applications; a new application in {leaf} would exceed that"
                )
                break
        else:
            found = next(((i, q) for i, q in enumerate(quotas) if q is not None), None)
            if found is not None:
                index, quota = found
                reason = (USER_QUOTA, GROUP_QUOTA, QUEUE_QUOTA)[index]
                path, kind, used, cap, amount = quota
                message = (
                    f"{who[index]} {path} uses {format_resource({kind: used})} of "
                    f"{format_resource({kind: cap})}; the request for "
                    f"{format_resource({kind: amount})} in {leaf} does not fit"
                )
            else:
                assert failures.elastic is not None, "a denial names what failed"
                reason = ELASTIC_QUOTA
                message = elastic_message(failures.elastic)
        rooms = self._rooms(prefixes, user, group)
        return Decision(False, reason, group, message, least_room(rooms))

    def headroom(
        self, queue_path: str, app_id: str, user: str, groups: Sequence[str] | None
    ) -> dict[str, int] | None:
        """What the user may still add in the queue (user, group and queue caps together): a
        resource map, or None for unlimited."""
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            self._check_groups(group_names)
            group, _ = self._group_of(prefixes, app_id, user, group_names)
            return least_room(self._rooms(prefixes, user, group))

    def can_run_app(
        self, queue_path: str, app_id: str, user: str, groups: Sequence[str] | None
    ) -> bool:
        """Whether the app may run one more allocation's worth of apps: user, group and queue
        application caps (an app already running always may)."""
        group_names = self._group_list(groups)
        with self._lock:
            prefixes = self._path(queue_path)
            self._check_identity(app_id, user)
            self._check_groups(group_names)
            group, _ = self._group_of(prefixes, app_id, user, group_names)
            return all(
                caps_check(chain, tracker, app_id, ())[0] is None
                for chain, tracker in self._trackers(prefixes, user, group)
            )

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
            if not user_tracker.has(leaf):
                raise NotTracked(ERR_NO_PATH.format(user=user, path=leaf))
            group = user_tracker.links.get(app_id)
            group_tracker = None
            if group is not None:
                group_tracker = self._groups.get(group)
                if group_tracker is None:
                    group_tracker = self._groups[group] = Tracker(group)

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
                del self._groups[group_tracker.name]  # its key: ``group``
            self._log.record(user, group, prefixes)

    # -- reads -------------------------------------------------------------------------------

    def users_usage(self) -> list[dict[str, Any]]:
        with self._lock, paused_gc():
            table = self._table
            names = sorted(self._users.keys() | table.named_user_paths.keys())
            return [user_object(name, self._users.get(name), table) for name in names]

    def user_names(self) -> list[str]:
        """The names ``users_usage`` lists, sorted, without reading their trackers."""
        with self._lock:
            return sorted(self._users.keys() | self._table.named_user_paths.keys())

    def user_usage(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            tracker = self._users.get(name)
            if tracker is None and name not in self._table.named_user_paths:
                return None
            return user_object(name, tracker, self._table)

    def groups_usage(self) -> list[dict[str, Any]]:
        with self._lock, paused_gc():
            table = self._table
            names = sorted(self._groups.keys() | table.named_group_paths.keys())
            return [group_object(name, self._groups.get(name), table) for name in names]

    def group_names(self) -> list[str]:
        """The names ``groups_usage`` lists, sorted, without reading their trackers."""
        with self._lock:
            return sorted(self._groups.keys() | self._table.named_group_paths.keys())

    def names_at(self, kind: str, path: str) -> list[str]:
        """The users (``kind`` "users") or groups whose object has ``path`` among its queues,
        sorted: usage there or below it, or a limit naming them there or below it. A few
        trackers are looked at per hold of the lock, none is copied."""
        trackers: Mapping[str, Tracker | UserTracker] = (
            self._users if kind == "users" else self._groups
        )
        with self._lock:
            table = self._table
        named = table.named_user_paths if kind == "users" else table.named_group_paths
        below = f"{path}."
        found = {name for name, paths in named.items()
                 if any(limit == path or limit.startswith(below) for limit in paths)}
        found.update(self._in_holds(
            trackers, lambda name, tracker: name if tracker.has(path) else None
        ))
        return sorted(found)

    def group_usage(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            tracker = self._groups.get(name)
            if tracker is None and name not in self._table.named_group_paths:
                return None
            return group_object(name, tracker, self._table)

    def queues_usage(self) -> dict[str, Any]:
        with self._lock, paused_gc():
            return queue_tree(self._queues, self._table)

    def summary(self) -> dict[str, Any]:
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
