"""Queue resource rules R1-R4 (spec 1.4 step 6).

"Effective max" is the component-wise minimum of a queue's max and every ancestor's; "effective
guaranteed" is a queue's own guaranteed, or when that is empty or all zero, the sum of its
children's effective guaranteed. A queue whose quantities do not parse gets its QTY errors and is
left out of the comparisons it would take part in, so one typo does not cascade into false errors.
"""

from __future__ import annotations

from trackers.config import messages
from trackers.config.model import Queue
from trackers.config.scope import Scope
from trackers.resources import (
    above_limit,
    component_min,
    fits_within,
    format_resource,
    go_format,
)

# Post-order with an explicit stack: (queue, parent's effective max, children done?).
_Frame = tuple[Queue, "dict[str, int] | None", bool]


def check_resources(
    scope: Scope, start: Queue | None = None, parent_max: dict[str, int] | None = None
) -> None:
    """R1-R4 for the subtree of ``start`` (the root by default), whose parent's effective max
    is ``parent_max`` (None above the root)."""
    add = scope.add
    # id(queue) -> effective guaranteed, or None when unknown (a quantity failed below).
    effective_guaranteed: dict[int, dict[str, int] | None] = {}
    # id(queue) -> (own guaranteed or None when unparsable, effective max), while children run.
    state: dict[int, tuple[dict[str, int] | None, dict[str, int] | None]] = {}
    stack: list[_Frame] = [(start or scope.root, parent_max, False)]
    while stack:
        queue, parent_max, children_done = stack.pop()
        key = id(queue)
        where = scope.queue_field(queue)
        if not children_done:
            guaranteed, g_failures, maximum, m_failures = scope.queue_resources(queue)
            for kind, message, detail in g_failures:
                add("QTY", queue.path, f"{where}.resources.guaranteed.{kind}", message, detail)
            for kind, message, detail in m_failures:
                add("QTY", queue.path, f"{where}.resources.max.{kind}", message, detail)
            own_g = None if g_failures else guaranteed
            own_m = None if m_failures else maximum
            if own_g is not None and own_m is not None and not fits_within(own_g, own_m):
                add(
                    "R1", queue.path, f"{where}.resources.guaranteed",
                    messages.GUARANTEED_ABOVE_MAX.format(
                        guaranteed=go_format(own_g), max=go_format(own_m), queue=queue.name
                    ),
                    messages.DETAIL_GUARANTEED_ABOVE_MAX.format(
                        **at_fault(own_g, own_m, "guaranteed", "max")
                    ),
                )
            if own_m is not None and parent_max is not None and not fits_within(own_m, parent_max):
                add(
                    "R2", queue.path, f"{where}.resources.max",
                    messages.MAX_ABOVE_PARENT.format(
                        parent=go_format(parent_max), max=go_format(own_m), queue=queue.name
                    ),
                    messages.DETAIL_MAX_ABOVE_PARENT.format(
                        **at_fault(own_m, parent_max, "max", "parent")
                    ),
                )
            effective_max = component_min(own_m if own_m is not None else {}, parent_max)
            if not queue.children:
                effective_guaranteed[key] = own_g
                continue
            state[key] = (own_g, effective_max)
            stack.append((queue, parent_max, True))
            stack.extend((child, effective_max, False) for child in reversed(queue.children))
            continue

        own_g, effective_max = state.pop(key)
        total: dict[str, int] = {}
        complete = True
        for child in queue.children:
            child_g = effective_guaranteed.pop(id(child), None)
            if child_g is None:
                complete = False
                break
            for kind, value in child_g.items():
                # Not pruned: YuniKorn's sum keeps zero entries, and messages print the sum.
                total[kind] = total.get(kind, 0) + value
        if not complete:
            effective_guaranteed[key] = None
            continue
        if own_g is not None and not fits_within(total, own_g):
            add(
                "R3", queue.path, f"{where}.resources.guaranteed",
                messages.CHILDREN_ABOVE_GUARANTEED.format(
                    guaranteed=go_format(own_g), children=go_format(total), queue=queue.name
                ),
                messages.DETAIL_CHILDREN_ABOVE_GUARANTEED.format(
                    **at_fault(total, own_g, "children", "guaranteed")
                ),
            )
        if effective_max is not None and not fits_within(total, effective_max):
            field = f"{where}.resources.max" if queue.max else where
            add(
                "R4", queue.path, field,
                messages.CHILDREN_ABOVE_MAX.format(
                    max=go_format(effective_max), children=go_format(total), queue=queue.name
                ),
                messages.DETAIL_CHILDREN_ABOVE_MAX.format(
                    **at_fault(total, effective_max, "children", "max")
                ),
            )
        if own_g is None:
            effective_guaranteed[key] = None
        elif own_g and any(own_g.values()):
            effective_guaranteed[key] = own_g
        else:
            effective_guaranteed[key] = total


def at_fault(
    request: dict[str, int], limit: dict[str, int], request_key: str, limit_key: str
) -> dict[str, str]:
    """Both sides of a refusal in plain words, only the resources that go above: listing every
    resource of both sides hid the one the admin has to change."""
    over, cap = above_limit(request, limit)
    return {request_key: format_resource(over), limit_key: format_resource(cap)}
