"""Reads for the overview page, the health check and /metrics; views only call these."""

from __future__ import annotations

import socket
from typing import Any

from django.conf import settings
from django.db import connection

from quotaweb import metrics
from quotaweb.api.scheduler_health import layer_check
from quotaweb.core.peers import peer_current
from quotaweb.elastic.selectors import elastic_metric_series
from quotaweb.engine.gateway import EngineNotLoaded, engines_get, engines_loaded
from quotaweb.engine.owners import UNIT_TREES
from quotaweb.engine.quotatrees import trees_loaded
from quotaweb.postgresql.waits import deadline, unavailable_reason
from quotaweb.quotatrees.selectors import tree_metric_series
from quotaweb.usage.tree_window import tree_window

# Set once by ``manage.py web``: this process serves live sockets for an engine owner in another
# process and loads no engines by design, so its health is its channel layer's.
_sockets_only = False


def sockets_only_set() -> None:
    global _sockets_only
    _sockets_only = True


def sockets_health() -> dict | None:
    """``{"status", "role", "channelLayer"}`` for a sockets-only process, None for any other."""
    if not _sockets_only:
        return None
    check = layer_check()
    return {
        "status": "ok" if check["Succeeded"] else "unavailable", "role": "sockets",
        "channelLayer": check["DiagnosisMessage"],
    }


# How long the health check waits for the database's answer: a probe must answer well within the
# prober's own timeout while the database is frozen.
DATABASE_PROBE_SECONDS = 1.0


def database_health() -> str | None:
    """Why the database is unavailable, or None when it answers a trivial query in time."""
    try:
        with deadline(DATABASE_PROBE_SECONDS), connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        reason = unavailable_reason(exc)
        if reason is None:
            raise
        return reason
    return None


def engine_health() -> dict | None:
    """``{partition: {version, users, groups}}``, or None while no engine is loaded."""
    try:
        gateway = engines_get()
    except EngineNotLoaded:
        return None
    health = {}
    for name in gateway.partitions():
        summary = gateway.summary(name)
        health[name] = {
            "version": summary["version"],
            "users": summary["users"],
            "groups": summary["groups"],
        }
    return health


def node_health() -> dict[str, Any]:
    """Which process this is and what it owns: ``{"node", "owns"}``. A peer on PostgreSQL
    names itself as in the lease table and lists the units it holds; a lone process (SQLite)
    owns every partition it serves, and the quota trees once loaded."""
    peer = peer_current()
    if peer is not None:
        return {"node": peer.name, "owns": sorted(peer.owned())}
    owns = engines_get().partitions() if engines_loaded() else []
    if trees_loaded():
        owns = [*owns, UNIT_TREES]
    return {"node": settings.QUOTAWEB_NODE_NAME or socket.gethostname(), "owns": owns}


def partition_overviews() -> list[dict] | None:
    """One entry per partition with its counts and the part of its queue tree that fits a
    screen (what the usage overview opens with, and its socket keeps live), or None while
    starting. A partition another peer serves is only named, with its owner (``elsewhere``)."""
    try:
        gateway = engines_get()
    except EngineNotLoaded:
        return None
    overviews: list[dict] = []
    served = set(gateway.partitions())
    for name in gateway.configured():
        if name not in served:
            # Owned by another peer (PostgreSQL peers): its pages are answered by that peer
            # through this one, so a link is enough here.
            overviews.append({"name": name, "elsewhere": True,
                              "owner": gateway.owner_name(name) or ""})
            continue
        summary = gateway.summary(name)
        window = tree_window(partition=name)
        overviews.append(
            {
                "name": name,
                "version": summary["version"],
                "queue_count": summary["queues"],
                "user_count": summary["users"],
                "group_count": summary["groups"],
                "window": window,
                "root": window.root,
                "scopes": window.scopes,
            }
        )
    return overviews


def _per_partition(read) -> list[tuple[dict[str, str], float]]:
    try:
        gateway = engines_get()
    except EngineNotLoaded:
        return []
    return [({"partition": name}, read(gateway, name)) for name in gateway.partitions()]


# Read from the engines when /metrics is asked: only the process that owns them has any.
metrics.gauge(
    "quotaweb_live_allocations", "Live allocations per partition.",
    lambda: _per_partition(lambda gateway, name: gateway.live_count(name)),
)
metrics.gauge(
    "quotaweb_tracked_users", "Users with usage or limits per partition.",
    lambda: _per_partition(lambda gateway, name: gateway.summary(name)["users"]),
)
metrics.gauge(
    "quotaweb_elastic_quota",
    "Elastic quota per partition, queue and resource (base units): field is min, max, runtime, "
    "used or request. Partitions with elastic quota off and no cluster total are left out.",
    lambda: elastic_metric_series() if engines_loaded() else [],
)
metrics.gauge(
    "quotaweb_tree_node",
    "Quota trees per tree and node: field quota or allocated per resource, consumers placed "
    "at the node (resource empty).",
    tree_metric_series,
)


def metrics_text() -> str:
    return metrics.render()
