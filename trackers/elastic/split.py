"""Sharing one parent's pool of one resource among its children (spec 1.5 and 1.6).

The one copy of the algorithm: ElasticTree calls it for every parent and resource, and
``explain`` calls it again with a trace list to show the steps. Plain lists of ints, no objects
per step, since a full recompute runs it for every parent and resource.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def scale_mins(pool: int, mins: Sequence[int]) -> list[int] | None:
    """Mins shrunk in proportion when together they exceed the pool, else None (not scaled).

    Floors, so the scaled mins never add up to more than the pool; what the floors drop goes to
    the hungry siblings in step 2 like any other leftover.
    """
    total = sum(mins)
    if total <= pool:
        return None
    if pool <= 0:
        return [0] * len(mins)
    return [pool * low // total for low in mins]


def split(
    pool: int,
    requests: Sequence[int],
    mins: Sequence[int],
    weights: Sequence[int],
    lends: Sequence[bool],
    ranks: Sequence[int],
    trace: list[dict[str, Any]] | None = None,
) -> list[int]:
    """Each sibling's runtime: its min part (step 1), then water-filling by weight (step 2).

    ``mins`` are the effective mins, ``requests`` the limited requests, ``ranks`` the siblings'
    order by name (the tie-break of the largest-remainder rule). Σ of step-2 shares is exactly
    what was left unless no hungry sibling with a weight is left to take it.
    """
    runtime: list[int] = []
    hungry: list[int] = []
    given = 0
    for i, request in enumerate(requests):
        low = mins[i]
        if request > low:
            rt = low
            hungry.append(i)
        elif lends[i]:
            rt = request
        else:
            rt = low  # a non-lending sibling keeps its whole min even when it asks for less
        runtime.append(rt)
        given += rt
    left = pool - given
    if trace is not None:
        trace.append(
            {"pass": 0, "pool": pool, "left": left, "runtime": list(runtime),
             "hungry": list(hungry)}
        )
    number = 0
    while left > 0 and hungry:
        number += 1
        total_weight = 0
        for i in hungry:
            total_weight += weights[i]
        if total_weight <= 0:
            if trace is not None:
                trace.append(
                    {"pass": number, "left": left, "totalWeight": total_weight,
                     "hungry": list(hungry), "stopped": True}
                )
            break
        shares: list[int] = []
        remainders: list[int] = []
        handed = 0
        for i in hungry:
            base, rem = divmod(weights[i] * left, total_weight)
            shares.append(base)
            remainders.append(rem)
            handed += base
        spare = left - handed
        extra: list[int] = []
        if spare:
            # Largest remainder first, ties by name; weight-0 siblings (remainder 0) never win,
            # since Σ remainders = spare * W with each below W means more than `spare` are > 0.
            order = sorted(range(len(hungry)), key=lambda j: (-remainders[j], ranks[hungry[j]]))
            extra = order[:spare]
            for j in extra:
                shares[j] += 1
        still: list[int] = []
        collected = 0
        returned: dict[int, int] = {}
        for j, i in enumerate(hungry):
            rt = runtime[i] + shares[j]
            request = requests[i]
            if rt >= request:
                collected += rt - request
                if trace is not None:
                    returned[i] = rt - request
                rt = request
            else:
                still.append(i)
            runtime[i] = rt
        if trace is not None:
            extra_set = {hungry[j] for j in extra}
            trace.append(
                {
                    "pass": number,
                    "left": left,
                    "totalWeight": total_weight,
                    "hungry": list(hungry),
                    "base": {i: shares[j] - (i in extra_set) for j, i in enumerate(hungry)},
                    "remainder": dict(zip(hungry, remainders, strict=True)),
                    "extra": extra_set,
                    "after": {i: runtime[i] for i in hungry},
                    "returned": returned,
                }
            )
        left = collected
        hungry = still
    return runtime
