"""Which allocations over-use revocation would take back from a queue (spec 1.10 steps 1-3).

quotaweb only reports the picks; nothing is evicted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    """An allocation of the queue that revocation may pick."""

    key: str
    resource: Mapping[str, int]
    priority: int = 0
    started: float = 0.0  # start time, epoch seconds
    preemptible: bool = True


def _fits(used: Mapping[str, int], runtime: Mapping[str, int]) -> bool:
    # Only the runtime's kinds (the queue's max keys) are limited.
    return all(used.get(kind, 0) <= limit for kind, limit in runtime.items())


def revocation_picks(
    candidates: Sequence[Candidate], *, used: Mapping[str, int], runtime: Mapping[str, int]
) -> list[str]:
    """The keys to revoke, in eviction order (least important first).

    Least important first is lower priority first, then the later start first; non-preemptible
    allocations are never picked. Allocations are taken off until ``used <= runtime``; if that
    never happens every one taken is picked, else the taken ones are tried back from the most
    important down and only those that no longer fit stay picked.
    """
    order = sorted(
        (c for c in candidates if c.preemptible), key=lambda c: (c.priority, -c.started)
    )
    left = dict(used)
    removed: list[Candidate] = []
    for candidate in order:
        if _fits(left, runtime):
            break
        for kind, amount in candidate.resource.items():
            left[kind] = left.get(kind, 0) - amount
        removed.append(candidate)
    if not _fits(left, runtime):
        return [c.key for c in removed]
    kept: set[int] = set()
    for index in range(len(removed) - 1, -1, -1):
        candidate = removed[index]
        back = dict(left)
        for kind, amount in candidate.resource.items():
            back[kind] = back.get(kind, 0) + amount
        if _fits(back, runtime):
            left = back
            kept.add(index)
    return [c.key for index, c in enumerate(removed) if index not in kept]
