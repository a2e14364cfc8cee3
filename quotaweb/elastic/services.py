"""Changes to elastic quota: the switch, the cluster total, a leaf queue's demand.

Each change is checked first, stored in one transaction, and only then made in the engine
owner's memory, under the partition's elastic write lock (``quotaweb.engine.gateway``, lock
order), so the stored and the live state never disagree and two changes never cross.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from quotaweb.elastic.models import ElasticDemand, ElasticSettings
from quotaweb.engine.elastic import resource_checked
from quotaweb.engine.gateway import engines_get
from quotaweb.leases.services import lease_fence
from trackers import InvalidRequest
from trackers.config.model import Config
from trackers.elastic import check_elastic

ERR_ENABLE_RULES = (
    "elastic quota cannot be turned on for partition {partition!r}: its active configuration "
    "breaks {count} elastic rule(s), listed in details; nothing was changed"
)
ERR_ENABLED_TYPE = "enabled must be true or false, not {value!r}"


class ElasticRejected(Exception):
    """The active configuration breaks elastic rules; ``errors`` lists them (the ``trackers``
    validation shape, codes ``E-...``)."""

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.errors = errors


def elastic_settings_update(
    *, partition: str, enabled: object, author: AbstractBaseUser | None
) -> None:
    """Turn elastic quota on or off. Turning it on needs a configuration that keeps the elastic
    rules (``ElasticRejected`` lists what it breaks)."""
    if type(enabled) is not bool:
        raise InvalidRequest(ERR_ENABLED_TYPE.format(value=enabled))
    state = engines_get().elastic(partition)
    with state.write_lock:
        if enabled and not state.enabled:
            errors = check_elastic(Config(partitions=(state.engine.config,)), [partition])
            if errors:
                raise ElasticRejected(
                    ERR_ENABLE_RULES.format(partition=partition, count=len(errors)), errors
                )
        with transaction.atomic():
            lease_fence(unit=partition, epoch=state.epoch)
            ElasticSettings.objects.update_or_create(
                partition=partition, defaults={"enabled": enabled, "updated_by": author}
            )
        state.set_enabled(enabled)


def elastic_total_set(
    *, partition: str, total: object, author: AbstractBaseUser | None
) -> None:
    """Set the resources the partition shares among its queues (the cluster total)."""
    state = engines_get().elastic(partition)
    checked = resource_checked(total, what="the cluster total")
    with state.write_lock:
        with transaction.atomic():
            lease_fence(unit=partition, epoch=state.epoch)
            ElasticSettings.objects.update_or_create(
                partition=partition, defaults={"cluster_total": checked, "updated_by": author}
            )
        state.set_total(checked)


def elastic_demand_set(*, partition: str, queue_path: object, demand: object) -> None:
    """Replace the pending demand of a leaf queue (``{}`` clears it)."""
    state = engines_get().elastic(partition)
    with state.write_lock:
        path, checked = state.check_demand(queue_path, demand)
        with transaction.atomic():
            lease_fence(unit=partition, epoch=state.epoch)
            if checked:
                ElasticDemand.objects.update_or_create(
                    partition=partition, queue_path=path, defaults={"resource": checked}
                )
            else:
                ElasticDemand.objects.filter(partition=partition, queue_path=path).delete()
        state.set_demand(path, checked)


def elastic_restore(*, partitions: Collection[str] | None = None) -> None:
    """Give each partition's engine its stored elastic settings and demand (start-up, after
    the ledger is back in the engines); with ``partitions``, only theirs."""
    gateway = engines_get()
    chosen = list(gateway.partitions() if partitions is None else partitions)
    settings_of: dict[str, Any] = {
        row.partition: row for row in ElasticSettings.objects.filter(partition__in=chosen)
    }
    demands: dict[str, dict[str, dict[str, int]]] = {}
    for partition, queue_path, resource in ElasticDemand.objects.filter(
        partition__in=chosen
    ).values_list("partition", "queue_path", "resource"):
        demands.setdefault(partition, {})[queue_path] = resource
    for partition in chosen:
        row = settings_of.get(partition)
        if row is None and partition not in demands:
            continue
        gateway.elastic(partition).load(
            enabled=bool(row and row.enabled),
            total=row.cluster_total if row else {},
            demands=demands.get(partition, {}),
        )
