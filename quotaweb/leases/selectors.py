"""Reads of the lease table: who owns what (``GET /api/v1/owners``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models.functions import Now

from quotaweb.leases.models import Lease, Peer


def owners_view() -> dict[str, Any]:
    """``{"peers": [{name, address, partitions, lastSeen}], "partitions": {unit: {owner,
    epoch, since}}}``: the peers seen within a lease, and every unit's lease with a current
    owner (a unit free, moving or held by a peer whose lease expired is listed with owner
    ``""``). On SQLite both are empty: one process owns everything and takes no lease."""
    ttl = timedelta(milliseconds=settings.QUOTAWEB_LEASE_MS)
    current = {
        lease.unit: lease for lease in Lease.objects.filter(expires__gt=Now()).exclude(owner="")
    }
    partitions = {
        lease.unit: {
            "owner": current[lease.unit].owner if lease.unit in current else "",
            "epoch": lease.epoch,
            "since": lease.since.isoformat(),
        }
        for lease in Lease.objects.order_by("unit")
    }
    peers = [
        {
            "name": peer.name, "address": peer.address,
            "partitions": sorted(unit for unit, lease in current.items()
                                 if lease.owner == peer.name),
            "lastSeen": peer.last_seen.isoformat(),
        }
        for peer in Peer.objects.filter(last_seen__gt=Now() - ttl).order_by("name")
    ]
    return {"peers": peers, "partitions": partitions}
