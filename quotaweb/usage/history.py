"""YuniKorn's scheduler history (``/ws/v1/history/apps`` and ``/ws/v1/history/containers``:
``ApplicationHistoryDAOInfo``, ``ContainerHistoryDAOInfo``) from the usage samples.

Each sampling pass (``services.usage_sample``) is one entry: its time in nanoseconds, the
running applications and the live allocations (YuniKorn's containers) of every partition's root
queue, summed over the partitions. A pass that found no usage anywhere wrote no sample and has
no entry. Like YuniKorn's ring of records, only the newest ``HISTORY_KEPT`` passes are answered,
oldest first; the totals are text, as YuniKorn writes them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from quotaweb.engine.gateway import engines_get
from quotaweb.usage.models import UsageSample

# YuniKorn keeps 1,440 records, one a minute: a day at the default sampling interval.
HISTORY_KEPT = 1440
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _totals() -> list[tuple[datetime, int, int]]:
    """``(at, running applications, live allocations)`` per sampling pass, oldest first."""
    totals: dict[datetime, list[int]] = {}
    for partition in engines_get().partitions():
        rows = UsageSample.objects.filter(
            partition=partition, kind="queue", name="root"
        ).order_by("-at").values_list("at", "running_applications", "allocations")
        for at, running, allocations in rows[:HISTORY_KEPT]:
            entry = totals.setdefault(at, [0, 0])
            entry[0] += running
            entry[1] += allocations
    newest = sorted(totals)[-HISTORY_KEPT:]
    return [(at, totals[at][0], totals[at][1]) for at in newest]


def _ns(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def application_history() -> list[dict[str, Any]]:
    return [
        {"timestamp": _ns(at), "totalApplications": str(running)}
        for at, running, _ in _totals()
    ]


def container_history() -> list[dict[str, Any]]:
    return [
        {"timestamp": _ns(at), "totalContainers": str(allocations)}
        for at, _, allocations in _totals()
    ]
