"""quotaweb's own health checks in YuniKorn's ``SchedulerHealthDAOInfo`` shape (``Healthy`` and
``HealthChecks`` of ``Name``, ``Succeeded``, ``Description``, ``DiagnosisMessage``): the quota
engines are loaded, the database holding the ledger answers, the channel layer answers.
``Healthy`` is true when every check succeeded.
"""

from __future__ import annotations

from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError

from quotaweb.allocations.models import Allocation
from quotaweb.engine.gateway import EngineNotLoaded, engines_get

# How long the Redis check waits for a connection and an answer.
REDIS_TIMEOUT_SECONDS = 2

CHECK_ENGINES = "Quota engines"
CHECK_LEDGER = "Ledger database"
CHECK_LAYER = "Channel layer"


def _check(name: str, description: str, succeeded: bool, diagnosis: str) -> dict[str, Any]:
    return {
        "Name": name, "Succeeded": succeeded, "Description": description,
        "DiagnosisMessage": diagnosis,
    }


def _engines() -> dict[str, Any]:
    description = "Check that the quota engines of the configured partitions are loaded"
    try:
        partitions = engines_get().partitions()
    except EngineNotLoaded as exc:
        return _check(CHECK_ENGINES, description, False, str(exc))
    return _check(
        CHECK_ENGINES, description, True,
        f"Engines loaded for partitions: [{' '.join(partitions)}]",
    )


def _ledger() -> dict[str, Any]:
    description = "Check that the database holding the allocation ledger answers"
    try:
        Allocation.objects.exists()
    except DatabaseError as exc:
        return _check(CHECK_LEDGER, description, False, f"The database did not answer: {exc}")
    return _check(CHECK_LEDGER, description, True, "The database answered")


def layer_check() -> dict[str, Any]:
    """Whether the channel layer carrying live usage answers (Redis pinged when there is one)."""
    description = "Check that the channel layer carrying live usage answers"
    try:
        layer = get_channel_layer()
    except Exception as exc:  # an unusable CHANNEL_LAYERS setting, whatever it raises
        return _check(CHECK_LAYER, description, False, f"No channel layer: {exc}")
    if layer is None:
        return _check(CHECK_LAYER, description, False, "No channel layer is configured")
    if not settings.REDIS_URL:
        return _check(
            CHECK_LAYER, description, True,
            f"{type(layer).__name__}: in this process, nothing to reach",
        )
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
    )
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        return _check(CHECK_LAYER, description, False, f"Redis did not answer: {exc}")
    finally:
        client.close()
    return _check(CHECK_LAYER, description, True, "Redis answered")


def scheduler_health() -> dict[str, Any]:
    checks = [_engines(), _ledger(), layer_check()]
    return {"Healthy": all(check["Succeeded"] for check in checks), "HealthChecks": checks}
