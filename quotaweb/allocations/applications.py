"""Applications in YuniKorn's shape (``ApplicationDAOInfo`` and ``AllocationDAOInfo`` of
yunikorn-core ``pkg/webservice/dao``), built from the live allocations held beside each engine
(``engine.live``), the ledger's ``created`` times and each application's state changes
(``engine.app_states``).

An application is what has live allocations: its state is "Running". When its last allocation is
released it is "Completed"; YuniKorn takes completed applications out of their queue, and so does
quotaweb, but the partition-wide read still finds the newest ones (``app_states.COMPLETED_KEPT``,
in memory: a restart forgets them). YuniKorn puts an application in one queue; quotaweb lets a
scheduler spread one over several, so a queue shows the application's allocations in that queue,
and the partition-wide view shows all of them under the queue of its oldest allocation.

- ``usedResource``: the sum of the allocations shown (types that add up to 0 left out);
- ``maxUsedResource``: the largest usage per type quotaweb can vouch for. Starting from the live
  allocations, the partition's kept events (the last ``EVENTS_KEPT``, since the server started)
  are walked back, undoing each allocation and release of the application, until its first live
  allocation (exact) or the oldest kept event (then a lower bound of YuniKorn's figure, which
  counts the application's whole life);
- ``submissionTime``: when the application was accepted (its first allocation's commit), or its
  oldest live allocation's ``created`` if that is older (nanoseconds); ``finishedTime`` when it
  completed;
- ``stateLog``: ``Accepted`` and ``Running`` at its first allocation, ``Completed`` at the
  release of its last (``engine.app_states``; restored applications start from their oldest
  stored allocation);
- each allocation: ``allocationKey``, ``requestTime`` and ``allocationTime`` (both its
  ``created``: quotaweb answers a request as it stores it), ``resource``, ``priority`` (as the
  scheduler sent it, "0" when it sent none), ``nodeId`` (when the scheduler named the node),
  ``applicationId``, ``partition`` and ``queueName`` (the older DAO's fields, which YuniKorn's
  web UI reads);
- ``user`` and ``groups`` as the oldest allocation was made.

Left out, empty or meaningless here: ``pendingResource`` and ``requests`` (no pending asks),
``rejectedMessage``, ``placeholderData``, ``hasReserved``, ``reservations``,
``maxRequestPriority``, ``startTime``, and per allocation ``allocationTags``, placeholders and
preemption.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from quotaweb.allocations.models import Allocation
from quotaweb.engine.app_states import ACCEPTED, COMPLETED, ApplicationLife
from quotaweb.engine.gateway import engines_get
from quotaweb.engine.live import LiveAllocation

STATE_RUNNING = "Running"
# The states ``/ws/v1/partition/{p}/applications/{state}`` takes, as YuniKorn names them, and
# the statuses its ``?status=`` takes for active applications (YuniKorn's active states).
APP_STATE_ACTIVE, APP_STATE_REJECTED, APP_STATE_COMPLETED = "active", "rejected", "completed"
ACTIVE_STATUSES = ("new", "accepted", "running", "completing", "failing", "resuming")
ERR_APP_STATE = (
    f"Only following application states are allowed: {APP_STATE_ACTIVE}, {APP_STATE_REJECTED}, "
    f"{APP_STATE_COMPLETED}"
)
ERR_ACTIVE_STATUS = f"Only following active statuses are allowed: {','.join(ACTIVE_STATUSES)}"
# Keys per ledger query (SQLite's default limit of bound variables is 999 on old builds).
_KEYS_PER_QUERY = 500
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def nanoseconds(moment: datetime) -> int:
    """An aware datetime as nanoseconds since the epoch (YuniKorn's ``UnixNano``)."""
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def applications_in_queue(*, partition: str, queue_path: str) -> list[dict[str, Any]]:
    """Every application with live allocations in the queue ``queue_path`` itself (any case),
    sorted by id. ``UnknownPartition``, ``EngineNotLoaded`` from the gateway."""
    queue = queue_path.lower()
    snapshot = engines_get().live_snapshot(partition)
    by_app: dict[str, list[LiveAllocation]] = {}
    for allocation in snapshot.allocations:
        if allocation.queue_path.lower() == queue:
            by_app.setdefault(allocation.application_id, []).append(allocation)
    created = created_of(partition, (a.key for allocations in by_app.values() for a in allocations))
    return [
        _application(partition, by_app[app], created, snapshot.events, queue=queue)
        for app in sorted(by_app)
    ]


class ApplicationStateInvalid(ValueError):
    """A state or status ``applications_in_state`` does not know (the message says which)."""


def applications_in_state(
    *, partition: str, state: str, status: str = ""
) -> list[dict[str, Any]]:
    """YuniKorn's applications of a partition by state (any case): ``active`` (those with live
    allocations, by id, the partition-wide view of each; ``status`` keeps those in that state),
    ``completed`` (those kept, the oldest completion first) or ``rejected`` (none: quotaweb
    denies allocations, never applications). ``ApplicationStateInvalid`` for another state or
    status; ``UnknownPartition``, ``EngineNotLoaded`` from the gateway."""
    state, status = state.lower(), status.lower()
    if state == APP_STATE_ACTIVE:
        if status and status not in ACTIVE_STATUSES:
            raise ApplicationStateInvalid(ERR_ACTIVE_STATUS)
        snapshot = engines_get().live_snapshot(partition)
        by_app: dict[str, list[LiveAllocation]] = {}
        for allocation in snapshot.allocations:
            by_app.setdefault(allocation.application_id, []).append(allocation)
        created = created_of(partition, (a.key for a in snapshot.allocations))
        found = [
            _application(partition, by_app[app], created, snapshot.events, queue=None)
            for app in sorted(by_app)
        ]
        return [app for app in found if not status or app["applicationState"].lower() == status]
    if state == APP_STATE_COMPLETED:
        lives = (
            _completed(partition, app)
            for app in engines_get().completed_application_ids(partition)
        )
        return [life for life in lives if life is not None]
    if state == APP_STATE_REJECTED:
        return []
    raise ApplicationStateInvalid(ERR_APP_STATE)


def application_of(
    *, partition: str, application_id: str, queue_path: str | None = None
) -> dict[str, Any] | None:
    """One application: its live allocations in ``queue_path`` (any case), or in the whole
    partition when None; None when it has none there."""
    queue = queue_path.lower() if queue_path is not None else None
    snapshot = engines_get().live_snapshot(partition, application_id=application_id)
    allocations = [
        a for a in snapshot.allocations if queue is None or a.queue_path.lower() == queue
    ]
    if not allocations:
        # As YuniKorn, a completed application has left its queue: only the partition-wide
        # read finds it.
        return _completed(partition, application_id) if queue is None else None
    created = created_of(partition, (a.key for a in allocations))
    return _application(partition, allocations, created, snapshot.events, queue=queue)


def created_of(partition: str, keys: Iterable[str]) -> dict[str, datetime]:
    """The ledger's ``created`` of each key (an allocation released since the snapshot has no
    row any more and is left out)."""
    wanted = sorted(set(keys))
    found: dict[str, datetime] = {}
    for start in range(0, len(wanted), _KEYS_PER_QUERY):
        rows = Allocation.objects.filter(
            partition=partition, key__in=wanted[start:start + _KEYS_PER_QUERY]
        ).values_list("key", "created")
        found.update(rows)
    return found


def oldest_first(
    allocations: Iterable[LiveAllocation], created: dict[str, datetime]
) -> list[LiveAllocation]:
    """The allocations by their ``created``; one without a row (released meanwhile) sorts
    last, by key."""
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(allocations, key=lambda a: (created.get(a.key, far), a.key))


def resource_sum(allocations: Iterable[LiveAllocation]) -> dict[str, int]:
    """The allocations' resources summed per type (types that add up to 0 left out)."""
    total: dict[str, int] = {}
    for allocation in allocations:
        for kind, amount in allocation.resource.items():
            total[kind] = total.get(kind, 0) + amount
    return {kind: amount for kind, amount in total.items() if amount}


def max_used(
    used: dict[str, int], live: int, events: list[dict[str, Any]], *, application_id: str,
    queue: str | None,
) -> dict[str, int]:
    """The largest usage per type along the application's kept history: walk the events back
    from ``used`` (``live`` allocations), undoing its allocations and releases (in ``queue``
    only, when given), until no allocation of it is left or the events run out."""
    state = dict(used)
    peak = dict(used)
    count = live
    for event in reversed(events):
        if count <= 0:
            break
        if event["applicationId"] != application_id or (
            queue is not None and event["queuePath"].lower() != queue
        ):
            continue
        if event["type"] == "allocated":
            sign, count = -1, count - 1
        elif event["type"] == "released":
            sign, count = 1, count + 1
        else:
            continue
        for kind, amount in event["resource"].items():
            state[kind] = state.get(kind, 0) + sign * amount
            if state[kind] > peak.get(kind, 0):
                peak[kind] = state[kind]
    return {kind: amount for kind, amount in peak.items() if amount}


def _application(
    partition: str, allocations: list[LiveAllocation], created: dict[str, datetime],
    events: list[dict[str, Any]], *, queue: str | None,
) -> dict[str, Any]:
    ordered = oldest_first(allocations, created)
    first = ordered[0]
    application_id = first.application_id
    used = resource_sum(ordered)
    peak = max_used(used, len(ordered), events, application_id=application_id, queue=queue)
    # Field order and omission as ApplicationDAOInfo.
    out: dict[str, Any] = {"applicationID": application_id}
    if used:
        out["usedResource"] = used
    if peak:
        out["maxUsedResource"] = peak
    out["partition"] = partition
    out["queueName"] = queue if queue is not None else first.queue_path.lower()
    life = engines_get().application_life(partition, application_id)
    states = list(life.states) if life is not None and life.state != COMPLETED else []
    submitted = [nanoseconds(created[first.key])] if first.key in created else []
    if states:
        submitted.append(states[0][1])
    if submitted:
        out["submissionTime"] = min(submitted)
        if not states:
            # Not seen accepted by this process (restored without its times): from the
            # oldest stored allocation, as a restart starts it.
            states = [(ACCEPTED, min(submitted)), (STATE_RUNNING, min(submitted))]
    out["allocations"] = [allocation_dao(partition, a, created.get(a.key)) for a in ordered]
    out["applicationState"] = STATE_RUNNING
    out["user"] = first.user
    if first.groups:
        out["groups"] = list(first.groups)
    if states:
        out["stateLog"] = _state_log(states)
    return out


def _state_log(states: Iterable[tuple[str, int]]) -> list[dict[str, Any]]:
    """``StateDAOInfo`` per state change, oldest first."""
    return [{"time": at, "applicationState": state} for state, at in states]


def _completed(partition: str, application_id: str) -> dict[str, Any] | None:
    """A completed application (no live allocation) that this process saw complete; None
    otherwise."""
    life: ApplicationLife | None = engines_get().application_life(partition, application_id)
    if life is None or life.state != COMPLETED:
        return None
    out: dict[str, Any] = {
        "applicationID": application_id, "partition": partition,
        "queueName": life.queue_path.lower(), "submissionTime": life.states[0][1],
        "finishedTime": life.states[-1][1], "applicationState": COMPLETED, "user": life.user,
    }
    if life.groups:
        out["groups"] = list(life.groups)
    out["stateLog"] = _state_log(life.states)
    return out


def allocation_dao(
    partition: str, allocation: LiveAllocation, created: datetime | None
) -> dict[str, Any]:
    # Field order and omission as AllocationDAOInfo (queueName from its older versions).
    out: dict[str, Any] = {"allocationKey": allocation.key}
    if created is not None:
        out["requestTime"] = out["allocationTime"] = nanoseconds(created)
    if allocation.resource:
        out["resource"] = dict(allocation.resource)
    # A string in YuniKorn's DAO.
    out["priority"] = str(allocation.priority)
    if allocation.node_id:
        out["nodeId"] = allocation.node_id
    out["applicationId"] = allocation.application_id
    out["partition"] = partition
    out["queueName"] = allocation.queue_path.lower()
    return out
