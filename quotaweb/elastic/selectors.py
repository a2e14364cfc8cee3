"""Reads of elastic quota: the tree with every queue's figures, one runtime explained, and the
queues above their runtime with what revocation would pick (reported, never executed)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q

from quotaweb.allocations.models import Allocation
from quotaweb.elastic.models import ElasticSettings
from quotaweb.engine.gateway import engines_get
from trackers.elastic import Candidate, revocation_picks

# Koordinator's DelayEvictTime: how long a queue may stay above its runtime before revocation
# would pick allocations to return what it borrowed.
REVOKE_DELAY = timedelta(seconds=120)


def elastic_view(*, partition: str, since: int | None = None) -> dict[str, Any]:
    """``GET .../elastic``: settings, pool, when computed, and the queues in tree order."""
    return engines_get().elastic(partition).view(since=since)


def elastic_explain(*, partition: str, queue_path: str, resource: str) -> dict[str, Any]:
    return engines_get().elastic(partition).explain(queue_path, resource)


def elastic_over_use(*, partition: str) -> list[dict[str, Any]]:
    """Queues above their runtime, the longest over first: ``{queuePath, since, revokeAt, over,
    used, runtime, picks}``. ``picks``, for a leaf queue, are the live allocations revocation
    would take back, in the order of elastic-quota.md 1.10 (least important first: the API
    carries no priority, so every allocation counts as priority 0 and preemptible, and the
    newest goes first); a parent's usage is its children's, revoked there."""
    rows = engines_get().elastic(partition).over_use()
    for row in rows:
        since = row["since"]
        row["revokeAt"] = (
            (datetime.fromisoformat(since) + REVOKE_DELAY).isoformat() if since else None
        )
        row["picks"] = _picks(partition, row) if row["leaf"] else []
    return rows


def _picks(partition: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    path = row["queuePath"]
    found = Allocation.objects.filter(
        Q(queue_path__iexact=path) | Q(queue_path__istartswith=path + "."),
        partition=partition,
    ).values_list("key", "application_id", "user", "resource", "created")
    by_key = {}
    candidates = []
    for key, application, user, resource, created in found:
        by_key[key] = {"allocationKey": key, "applicationId": application, "user": user,
                       "resource": resource, "created": created.isoformat()}
        candidates.append(Candidate(key=key, resource=resource, started=created.timestamp()))
    picked = revocation_picks(candidates, used=row["used"], runtime=row["runtime"])
    return [by_key[key] for key in picked]


def elastic_settings_row(*, partition: str) -> ElasticSettings | None:
    """Who changed the partition's elastic settings last, and when (None: never)."""
    return ElasticSettings.objects.filter(partition=partition).select_related(
        "updated_by"
    ).first()


def elastic_metric_series() -> list[tuple[dict[str, str], float]]:
    """``quotaweb_elastic_quota`` samples: min, max, runtime, used and request per partition,
    queue and resource."""
    gateway = engines_get()
    samples: list[tuple[dict[str, str], float]] = []
    for partition in gateway.partitions():
        state = gateway.elastic(partition)
        if not state.enabled and not state.total:
            continue
        for queue in state.series():
            for field, values in (
                ("min", queue.min), ("max", queue.max), ("runtime", queue.runtime),
                ("used", queue.used), ("request", queue.request),
            ):
                for kind, value in values.items():
                    samples.append(({
                        "partition": partition, "queue": queue.path, "resource": kind,
                        "field": field,
                    }, float(value)))
    return samples
