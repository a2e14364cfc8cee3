"""Sampling usage over time: trend samples, and the list of who sits above a limit.

``usage_sample`` runs every ``QUOTAWEB_TREND_SAMPLE_SECONDS`` in the process that owns the
engines (``sampler.py``). A sample costs one read of every user, group and queue in use; at the
default of a minute that is a small share of the engines' time even at 10,000 users, and it is
read a few rows per hold of each engine's lock, so an allocation waits for one such hold at most.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from quotaweb.engine.gateway import engines_get
from quotaweb.usage.models import OverLimit, UsageSample
from trackers import QueueRow
from trackers.gcpause import paused_gc


def usage_sample(*, now: datetime | None = None) -> int:
    """Record every user, group and queue with usage, refresh the over-limit list, drop samples
    older than the kept days. Answers the number of samples written."""
    now = now or timezone.now()
    gateway = engines_get()
    samples: list[UsageSample] = []
    over: list[dict[str, Any]] = []
    # All engine reads happen before the transaction opens: they take partition locks, which
    # come before the database in the lock order (``quotaweb.engine.gateway``).
    with paused_gc():
        for partition in gateway.partitions():
            # Read a few rows per hold of the engine's lock, so allocations go on meanwhile:
            # each row is exact, the rows a moment apart (``Engine.usage_rows``). Every consumer
            # of the samples reads them row by row (trends, CSV, sparklines, the history's root
            # queue), none adds rows up against another.
            rows = gateway.usage_rows(partition)
            for user in rows.users:
                samples.extend(_root_sample(partition, "user", user["userName"], user, now))
            for group in rows.groups:
                samples.extend(_root_sample(partition, "group", group["groupName"], group, now))
            samples.extend(_queue_samples(
                partition, rows.queues, now, allocations=gateway.live_count(partition),
            ))
            # The same reads, judged by the limits in force (the active version's, compiled).
            over.extend(gateway.over_limits(partition, users=rows.users, groups=rows.groups))
    with transaction.atomic():
        UsageSample.objects.bulk_create(samples, batch_size=1000)
        UsageSample.objects.filter(
            at__lt=now - timedelta(days=settings.QUOTAWEB_TREND_DAYS)
        ).delete()
        _over_limit_refresh(over, now)
    return len(samples)


def _root_sample(partition: str, kind: str, name: str, tree: dict[str, Any], now: datetime):
    root = tree["queues"]
    usage = root.get("resourceUsage")
    running = len(root.get("runningApplications", ()))
    if usage or running:
        yield UsageSample(partition=partition, kind=kind, name=name, at=now,
                          resource=dict(usage or {}), running_applications=running)


def _queue_samples(partition: str, rows: list[QueueRow], now: datetime, *, allocations: int):
    """A sample per queue in use; the root's also counts the partition's live ``allocations``
    (for the YuniKorn container history)."""
    for path, usage, running in rows:
        yield UsageSample(partition=partition, kind="queue", name=path, at=now,
                          resource=usage, running_applications=running,
                          allocations=allocations if path == "root" else 0)


def _over_limit_refresh(found: list[dict[str, Any]], now: datetime) -> None:
    seen: set[tuple[str, str, str, str]] = set()
    known = {
        (row.partition, row.kind, row.name, row.queue_path): row
        for row in OverLimit.objects.all()
    }
    for item in found:
        key = (item["partition"], item["kind"], item["name"], item["queuePath"])
        seen.add(key)
        values = {
            "seen": now, "usage": item["usage"], "limit": item["limit"],
            "running_applications": item["runningApplications"],
            "max_applications": item["maxApplications"] or 0,
        }
        row = known.get(key)
        if row is None:
            OverLimit.objects.create(
                partition=key[0], kind=key[1], name=key[2], queue_path=key[3], since=now,
                **values,
            )
        else:
            OverLimit.objects.filter(pk=row.pk).update(**values)
    gone = [row.pk for key, row in known.items() if key not in seen]
    if gone:
        OverLimit.objects.filter(pk__in=gone).delete()
