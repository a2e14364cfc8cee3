"""The caps an increase is checked against, and the room they leave (spec 2.5): the walk over
one tracker's chain of caps, the elastic runtime quota, and the failures a denial is explained
with. Apart from ``engine`` so that each module stays short; only the engine calls these."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from trackers.resources import format_resource
from trackers.ugm.decision import Headroom
from trackers.ugm.limits import Chain
from trackers.ugm.tracker import EMPTY_NODE, Amounts, Tracker, UserTracker

AnyTracker = Tracker | UserTracker | None


class AppsFailure(NamedTuple):
    """An application cap a new application would break: at ``path``, ``running`` of at most
    ``limit`` applications already run. Made only on a denial."""

    path: str
    running: int
    limit: int


class QuotaFailure(NamedTuple):
    """A resource cap a request would break: at ``path``, ``used`` of ``cap`` of ``kind`` is in
    use and ``amount`` more does not fit. Made only on a denial."""

    path: str
    kind: str
    used: int
    cap: int
    amount: int


# What ``_check`` answers for one tracker: (application cap broken, resource cap broken), each None
# when it holds. A plain pair, not a NamedTuple: it is made up to three times on every increase,
# and a NamedTuple's construction costs several times a tuple's (measured), for nothing, since the
# caller unpacks it at once.
CheckResult = tuple[AppsFailure | None, QuotaFailure | None]


class ElasticFailure(NamedTuple):
    """The elastic runtime quota at ``path`` a request would break: ``used`` of ``runtime`` is in
    use and ``request`` more does not fit in the ``kinds`` named. Made only on a denial."""

    path: str
    runtime: Mapping[str, int]
    used: dict[str, int]
    request: dict[str, int]
    kinds: tuple[str, ...]


class Failures(NamedTuple):
    """Every cap an increase broke, per tracker, in the documented order. Made only on a denial."""

    user_apps: AppsFailure | None
    group_apps: AppsFailure | None
    queue_apps: AppsFailure | None
    user_quota: QuotaFailure | None
    group_quota: QuotaFailure | None
    queue_quota: QuotaFailure | None
    elastic: ElasticFailure | None = None


# Elastic runtime quota per queue path (``set_elastic_runtimes``).
Runtimes = Mapping[str, Mapping[str, int]]


def caps_check(chain: Chain, tracker: AnyTracker, app_id: str, amounts: Amounts) -> CheckResult:
    """Walk the caps of one tracker: the first application cap a new app would break, and the
    first resource cap the request would break (None, None when it fits).

    A request fits when every requested amount is at most the headroom (spec 2.5); headroom is
    the minimum over the levels, so it is enough to compare at each level on its own.
    """
    apps_failed: AppsFailure | None = None
    quota_failed: QuotaFailure | None = None
    for path, maximum, max_apps in chain:
        node = tracker.node_at(path) if tracker is not None else EMPTY_NODE
        if max_apps and apps_failed is None:
            running = node.apps
            if app_id not in running and len(running) >= max_apps:
                apps_failed = AppsFailure(path, len(running), max_apps)
        if maximum and quota_failed is None:
            for kind, amount in amounts:
                cap = maximum.get(kind)
                if cap is not None and amount > cap - node.get(kind, 0):
                    quota_failed = QuotaFailure(path, kind, node.get(kind, 0), cap, amount)
                    break
    return apps_failed, quota_failed


def elastic_target(runtimes: Runtimes, prefixes: tuple[str, ...]) -> str | None:
    """The deepest queue of the path with an elastic runtime (the queue the usage is bound to)."""
    for path in reversed(prefixes):
        if path in runtimes:
            return path
    return None


def elastic_check(
    runtimes: Runtimes, prefixes: tuple[str, ...], queues: Tracker, amounts: Amounts
) -> ElasticFailure | None:
    path = elastic_target(runtimes, prefixes)
    if path is None:
        return None
    runtime = runtimes[path]
    node = queues.node_at(path)
    kinds = tuple(
        kind for kind, amount in amounts
        if kind in runtime and node.get(kind, 0) + amount > runtime[kind]
    )
    if not kinds:
        return None
    return ElasticFailure(
        path, runtime, {kind: node.get(kind, 0) for kind in runtime},
        {kind: amount for kind, amount in amounts if kind in runtime}, kinds,
    )


def elastic_message(failure: ElasticFailure) -> str:
    path, runtime, used, request, kinds = failure
    return (
        f"elastic quota of queue {path}: runtime {format_resource(runtime)}, used "
        f"{format_resource(used)}; the request for "
        f"{format_resource(request)} does not fit in {', '.join(sorted(kinds))}"
    )


def elastic_room(runtimes: Runtimes, prefixes: tuple[str, ...], queues: Tracker) -> Headroom:
    path = elastic_target(runtimes, prefixes)
    if path is None:
        return None
    node = queues.node_at(path)
    return {kind: value - node.get(kind, 0) for kind, value in runtimes[path].items()}


def room_of(chain: Chain, tracker: AnyTracker) -> Headroom:
    """The headroom of one tracker: per capped type the least that is left on any level."""
    room: dict[str, int] | None = None
    for path, maximum, _ in chain:
        if not maximum:
            continue
        node = tracker.node_at(path) if tracker is not None else EMPTY_NODE
        if room is None:
            room = {kind: cap - node.get(kind, 0) for kind, cap in maximum.items()}
            continue
        for kind, cap in maximum.items():
            left = cap - node.get(kind, 0)
            if kind not in room or left < room[kind]:
                room[kind] = left
    return room


def least_room(rooms: Iterable[Headroom]) -> Headroom:
    """The component-wise minimum of several headrooms, None meaning unlimited."""
    combined: dict[str, int] | None = None
    for room in rooms:
        if room is None:
            continue
        if combined is None:
            combined = dict(room)
            continue
        for kind, left in room.items():
            if kind not in combined or left < combined[kind]:
                combined[kind] = left
    return combined
