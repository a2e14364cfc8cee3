"""Reads of allocations: the ledger's live allocations, headroom, and the recent events."""

from __future__ import annotations

import math
from typing import Any

from django.db.models import Q

from quotaweb.allocations.models import Allocation
from quotaweb.engine.gateway import UnknownPartition, engines_get

EVENTS_PER_PAGE = 1000


def allocations_list(
    *, partition: str, user: str | None = None, group: str | None = None,
    queue: str | None = None, application: str | None = None, page: int = 1,
    per_page: int = 100,
) -> dict[str, Any]:
    """Live allocations of a partition, oldest first, from the ledger (which holds exactly the
    live ones). ``queue`` matches the queue and everything below it. ``UnknownPartition``."""
    if partition not in engines_get().partitions():
        raise UnknownPartition(partition)
    rows = Allocation.objects.filter(partition=partition)
    if user:
        rows = rows.filter(user=user)
    if group:
        rows = rows.filter(group=group)
    if application:
        rows = rows.filter(application_id=application)
    if queue:
        queue = queue.lower()
        rows = rows.filter(Q(queue_path__iexact=queue) | Q(queue_path__istartswith=queue + "."))
    count = rows.count()
    start = (page - 1) * per_page
    results = [
        {
            "allocationKey": row.key, "applicationId": row.application_id,
            "queuePath": row.queue_path, "user": row.user, "groups": row.groups,
            "group": row.group or None, "resource": row.resource,
            "created": row.created.isoformat(),
        }
        for row in rows.order_by("id")[start:start + per_page]
    ]
    return {
        "count": count, "page": page, "pages": max(1, math.ceil(count / per_page)),
        "results": results,
    }


def headroom_for(
    *, partition: str, queue_path: str, user: str, groups: list[str], application_id: str
) -> tuple[dict[str, int] | None, bool]:
    return engines_get().headroom(
        partition, queue_path=queue_path, user=user, groups=groups,
        application_id=application_id,
    )


def events_after(*, partition: str, after: int) -> dict[str, Any]:
    """Events numbered above ``after`` (at most ``EVENTS_PER_PAGE``); ``oldest`` above
    ``after + 1`` means some were dropped before the caller read them."""
    events, last, oldest = engines_get().events(partition, after=after, limit=EVENTS_PER_PAGE)
    return {"events": events, "last": last, "oldest": oldest}
