"""A tree allocation's answer in quotaweb's own words: where a consumer landed and whether it
borrows, or why it did not fit (which node, which resource, how much short). The library's
message (``trackers.quotatree.messages``, kept byte for byte for MCAD's clients) stays in the
answer beside these words; the pages and the API both show the words here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quotaweb.quotatrees.units import tree_quantity

MSG_PLACED = "{consumer} is placed at {node} of tree {tree}, its own group."
MSG_BORROWS = (
    "{consumer} is placed at {node} of tree {tree}: its group {group} has no room left, so it "
    "borrows unused quota of {node}."
)
MSG_FORCED = (
    "{consumer} is placed at its group {node} of tree {tree} without a quota check: the tree is "
    "in maintenance mode."
)
MSG_SHORT = "{node} has {left} of {resource} left; the consumer asks for {asks}: {short} short"
MSG_REJECTED = "{consumer} does not fit tree {tree}: {why}. Nothing changed."
MSG_NO_ROOM = (
    "every node it may use, from its group {group} up to {top}, has room, yet not for it at "
    "priority {priority} (placing it would push out consumers that may not be pushed out)"
)
MSG_NOT_A_LEAF = "its group {group} is not a node of the tree without children"
JOIN_SHORT = "; "


def _nodes(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {node["name"]: node for node in view["nodes"]}


def _path_up(nodes: Mapping[str, Mapping[str, Any]], group: str) -> list[str]:
    """The group and the ancestors a consumer may borrow from: up to the first hard node (it
    cannot borrow above one) or the root."""
    path = [group]
    while not nodes[path[-1]]["hard"] and nodes[path[-1]].get("parent") in nodes:
        path.append(nodes[path[-1]]["parent"])
    return path


def shortfalls(
    view: Mapping[str, Any], *, group: str, request: Mapping[str, int]
) -> list[str]:
    """What stops a consumer: at the highest node it may reach (and every node above, which
    placing it charges too), the first with too little left, one sentence per resource."""
    nodes = _nodes(view)
    if group not in nodes:
        return []
    node: str | None = _path_up(nodes, group)[-1]
    while node is not None and node in nodes:
        figures = nodes[node]
        short = []
        for resource in sorted(request):
            asks = request[resource]
            left = max(0, figures["quota"].get(resource, 0) - figures["allocated"].get(resource, 0))
            if asks > left:
                short.append(MSG_SHORT.format(
                    node=node, resource=resource, left=tree_quantity(resource, left),
                    asks=tree_quantity(resource, asks), short=tree_quantity(resource, asks - left),
                ))
        if short:
            return short
        node = figures.get("parent")
    return []


def rejection_text(
    view: Mapping[str, Any], *, tree: str, consumer: str, group: str,
    request: Mapping[str, int], priority: int,
) -> str:
    nodes = _nodes(view)
    if group not in nodes or any(n.get("parent") == group for n in nodes.values()):
        why = MSG_NOT_A_LEAF.format(group=group)
    else:
        short = shortfalls(view, group=group, request=request)
        why = JOIN_SHORT.join(short) if short else MSG_NO_ROOM.format(
            group=group, top=_path_up(nodes, group)[-1], priority=priority
        )
    return MSG_REJECTED.format(consumer=consumer, tree=tree, why=why)


def placement_text(*, tree: str, consumer: str, node: str, group: str, forced: bool) -> str:
    if forced:
        return MSG_FORCED.format(consumer=consumer, tree=tree, node=node)
    if node == group:
        return MSG_PLACED.format(consumer=consumer, tree=tree, node=node)
    return MSG_BORROWS.format(consumer=consumer, tree=tree, node=node, group=group)
