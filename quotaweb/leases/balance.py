"""How live peers share the units (partitions and the quota trees) evenly: pure, so that every
peer, deciding alone from the same lease table, moves toward the same spread without talking.

With ``n`` units and ``p`` live peers, every peer should hold ``floor = n // p`` or one more. A
peer takes free units (never owned, handed on, or left by a dead or expired owner) while it
holds fewer than ``floor``, and up to ``floor + 1`` only once no other live peer is below
``floor``; a peer above ``floor`` while another is below it hands one unit on per round. So a
unit handed on goes to the peer that is short, not back and forth between peers at ``floor``.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """What one peer does this round: units to try to take (in order), units to hand on."""

    take: list[str]
    give: list[str]


def balance_plan(
    *, me: str, units: Collection[str], owners: Mapping[str, str | None],
    live: Collection[str],
) -> Plan:
    """``owners``: each unit's current owner, None when it is free to take (a unit missing
    counts as free). ``live``: the names of the peers alive now (``me`` counts as one)."""
    peers = set(live) | {me}
    floor = len(units) // len(peers)
    counts = dict.fromkeys(peers, 0)
    for unit in units:
        owner = owners.get(unit)
        if owner in counts:
            counts[owner] += 1
    mine = counts[me]
    others_short = any(count < floor for peer, count in counts.items() if peer != me)
    room = (floor if others_short else floor + (len(units) % len(peers) > 0)) - mine
    free = [unit for unit in units if owners.get(unit) is None]
    # Each peer tries the free units in an order of its own, so that peers starting together
    # mostly take different ones instead of racing for the same.
    free.sort(key=lambda unit: zlib.crc32(f"{me}/{unit}".encode()))
    take = free[:max(room, 0)]
    give: list[str] = []
    if mine > floor and others_short and not free:
        held = sorted(unit for unit in units if owners.get(unit) == me)
        give = held[-1:]
    return Plan(take=take, give=give)
