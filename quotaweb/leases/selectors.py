"""Reads of the lease table: who owns what (``GET /api/v1/owners`` and the admins' page)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models.functions import Now

from quotaweb.leases.models import Lease, Peer


@dataclass(frozen=True)
class PeerSeen:
    name: str
    address: str
    partitions: list[str]
    last_seen: datetime
    # The configuration version it confirmed running (0: none yet).
    config_version: int


@dataclass(frozen=True)
class UnitHeld:
    unit: str
    owner: str
    epoch: int
    since: datetime


@dataclass(frozen=True)
class Owners:
    peers: list[PeerSeen]
    units: list[UnitHeld]


def owners_read() -> Owners:
    """The peers seen within a lease, and every unit's lease with a current owner (a unit free,
    moving or held by a peer whose lease expired has owner ``""``). On SQLite both are empty:
    one process owns everything and takes no lease."""
    ttl = timedelta(milliseconds=settings.QUOTAWEB_LEASE_MS)
    current = {
        lease.unit: lease for lease in Lease.objects.filter(expires__gt=Now()).exclude(owner="")
    }
    units = [
        UnitHeld(unit=lease.unit, owner=current[lease.unit].owner if lease.unit in current else "",
                 epoch=lease.epoch, since=lease.since)
        for lease in Lease.objects.order_by("unit")
    ]
    peers = [
        PeerSeen(
            name=peer.name, address=peer.address,
            partitions=sorted(unit for unit, lease in current.items() if lease.owner == peer.name),
            last_seen=peer.last_seen, config_version=peer.config_version,
        )
        for peer in Peer.objects.filter(last_seen__gt=Now() - ttl).order_by("name")
    ]
    return Owners(peers=peers, units=units)


def owners_view() -> dict[str, Any]:
    """``{"peers": [{name, address, partitions, lastSeen}], "partitions": {unit: {owner,
    epoch, since}}}``: ``owners_read`` as the API answers it."""
    owners = owners_read()
    return {
        "peers": [
            {"name": peer.name, "address": peer.address, "partitions": peer.partitions,
             "lastSeen": peer.last_seen.isoformat()}
            for peer in owners.peers
        ],
        "partitions": {
            held.unit: {"owner": held.owner, "epoch": held.epoch, "since": held.since.isoformat()}
            for held in owners.units
        },
    }
