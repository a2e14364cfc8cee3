"""Why a queue has the runtime it has, for one resource, in plain words and numbers.

The parent's split is run again through the tree's own ``_share`` with a trace list, so the
explanation cannot drift from what the tree computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trackers.resources import format_quantity

if TYPE_CHECKING:
    from trackers.elastic.tree import ElasticTree, _Node

Step = dict[str, Any]


def explain(tree: ElasticTree, node: _Node, kind: str) -> dict[str, Any]:
    nodes = tree._nodes
    queue = node.queue

    def q(value: int) -> str:
        return format_quantity(kind, value)

    out: dict[str, Any] = {
        "queuePath": node.path,
        "resource": kind,
        "parent": queue.parent,
        "pool": None,
        "min": node.min.get(kind, 0),
        "scaledMin": None,
        "effectiveMin": None,
        "guaranteed": node.guaranteed.get(kind),
        "request": node.request.get(kind),
        "limitedRequest": node.limited.get(kind),
        "max": node.max.get(kind),
        "weight": queue.weight.get(kind),
        "allowLent": node.lends,
        "system": queue.system,
        "runtime": node.runtime.get(kind),
        "steps": [],
    }
    steps: list[Step] = out["steps"]

    if node.parent < 0:
        out["pool"] = _pool_info(tree, node, kind)
        pool = out["pool"]
        if kind not in node.keys:
            steps.append({
                "step": "not-distributed",
                "runtime": None,
                "text": f"No queue's max names {kind}, so the root does not share it.",
            })
            return out
        steps.append({
            "step": "root",
            "runtime": node.runtime.get(kind, 0),
            "text": (
                f"The root's runtime is the pool: the cluster total {q(pool['base'])} less "
                f"{q(pool['systemUsed'])} used by system queues, {q(pool['value'])}."
            ),
        })
        return out

    parent = nodes[node.parent]
    out["pool"] = _pool_info(tree, parent, kind)
    if queue.system:
        steps.append({
            "step": "system",
            "runtime": node.runtime.get(kind),
            "text": (
                "A system queue takes no part in the split: its usage comes off the pool of "
                f"{parent.path} and its runtime is reported as its max"
                + (f" {q(node.max[kind])}." if kind in node.max else f" (which has no {kind}).")
            ),
        })
        return out
    if kind not in node.max:
        steps.append({
            "step": "not-in-max",
            "runtime": None,
            "text": (
                f"{kind} is not in this queue's max, so it takes no part in sharing {kind} "
                "and has no runtime for it."
            ),
        })
        return out
    share = next((s for s in parent.shares if s.kind == kind), None)
    if share is None:
        steps.append({
            "step": "not-distributed",
            "runtime": 0,
            "text": (
                f"The parent {parent.path} does not share {kind} (it is not in its max), "
                "so the runtime is 0."
            ),
        })
        return out

    pool_value = parent.pool.get(kind, 0)
    trace: list[Step] = []
    _, scaled, effective = tree._share(share, pool_value, trace)
    j = share.members.index(node.index)
    low = effective[j]
    out["effectiveMin"] = low
    if scaled is not None:
        out["scaledMin"] = {
            "pool": pool_value, "min": share.mins[j], "sumMin": sum(share.mins),
            "value": scaled[j],
            "text": (
                f"The children's mins add up to {q(sum(share.mins))}, more than the pool "
                f"{q(pool_value)}, so each is scaled by pool / sum of mins: this queue's min "
                f"{q(share.mins[j])} becomes {q(scaled[j])} (rounded down)."
            ),
        }
    steps.append(_first_step(trace[0], j, low, node.limited[kind], share.lends[j], q))
    steps.extend(
        _pass_step(entry, j, share.weights[j], node.limited[kind], q)
        for entry in trace[1:]
        if j in entry["hungry"]
    )
    runtime = node.runtime[kind]
    still_hungry = j in trace[0]["hungry"] and runtime < node.limited[kind]
    steps.append({
        "step": "result",
        "runtime": runtime,
        "text": f"Runtime: {q(runtime)}"
        + (f" (it asked for {q(node.limited[kind])}; nothing more was left)."
           if still_hungry else "."),
    })
    return out


def _pool_info(tree: ElasticTree, parent: _Node, kind: str) -> dict[str, Any]:
    """What a parent shares of one resource and where it comes from."""
    nodes = tree._nodes
    is_root = parent.parent < 0
    base = (tree._total if is_root else parent.runtime).get(kind, 0)
    system_used = sum(nodes[i].used.get(kind, 0) for i in parent.systems)
    value = parent.pool.get(kind, 0)
    source = "cluster total" if is_root else f"runtime of {parent.path}"
    return {
        "value": value,
        "source": "cluster" if is_root else "parent",
        "base": base,
        "systemUsed": system_used,
        "text": (
            f"{parent.path} shares {format_quantity(kind, value)}: the {source} "
            f"{format_quantity(kind, base)} less {format_quantity(kind, system_used)} used by "
            "system queues"
        ),
    }


def _first_step(entry: Step, j: int, low: int, request: int, lends: bool, q: Any) -> Step:
    got = entry["runtime"][j]
    left = entry["left"]
    pool = entry["pool"]
    if j in entry["hungry"]:
        why = "hungry"
        text = (
            f"Step 1: it asks for {q(request)}, more than its effective min {q(low)}, so it "
            f"gets its min {q(low)} now and waits for a share of what is left."
        )
    elif lends:
        why = "lends"
        text = (
            f"Step 1: it asks for {q(request)}, no more than its effective min {q(low)}: it "
            f"gets {q(request)} and lends the unused {q(low - request)} to its siblings."
        )
    else:
        why = "keeps"
        text = (
            f"Step 1: it asks for {q(request)} but does not lend, so it keeps its whole "
            f"effective min {q(low)}."
        )
    if left > 0:
        text += f" After every sibling's min part, {q(left)} of the pool {q(pool)} is left."
    else:
        text += (
            f" The siblings' min parts take {q(pool - left)} of the pool {q(pool)}: "
            "nothing is left to share."
        )
    return {
        "step": 1, "why": why, "runtime": got, "effectiveMin": low, "limitedRequest": request,
        "lent": low - request if why == "lends" else 0, "pool": pool, "left": left,
        "text": text,
    }


def _pass_step(entry: Step, j: int, weight: int, request: int, q: Any) -> Step:
    number = entry["pass"]
    left = entry["left"]
    total_weight = entry["totalWeight"]
    hungry = len(entry["hungry"])
    if entry.get("stopped"):
        return {
            "step": 2, "pass": number, "left": left, "totalWeight": total_weight,
            "weight": weight, "stopped": True,
            "text": (
                f"Pass {number}: {q(left)} is left, but the weights of the {hungry} hungry "
                "sibling(s) add up to 0, so it stays unallocated."
            ),
        }
    base = entry["base"][j]
    remainder = entry["remainder"][j]
    extra = j in entry["extra"]
    after = entry["after"][j]
    returned = entry["returned"].get(j)
    text = (
        f"Pass {number}: {q(left)} is left for {hungry} hungry sibling(s) with a total weight "
        f"of {q(total_weight)}. Its weight {q(weight)} gives it {q(base)} (remainder "
        f"{remainder} of {total_weight})"
    )
    if extra:
        text += ", plus 1 of the leftover units, its remainder being among the largest"
    if returned is not None:
        text += (
            f"; that reaches its request {q(request)}: it is capped there and returns "
            f"{q(returned)} to the next pass"
        )
    else:
        text += f"; its runtime is now {q(after)}"
    return {
        "step": 2, "pass": number, "left": left, "totalWeight": total_weight, "weight": weight,
        "base": base, "remainder": remainder, "extraUnit": extra, "runtime": after,
        "capped": returned is not None, "returned": returned or 0, "text": text + ".",
    }
