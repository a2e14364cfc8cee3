"""The elastic quota rules of a config (spec 1.11), for partitions that have elastic quota on.

Koordinator's webhook checks one quota at a time and stops at the first problem; here every
queue of the named partitions is checked and every problem reported, codes prefixed with "E-".

Rules without a check of their own here, and why:

* E-S1, E-S2 (negative max or min): quotaweb quantities cannot be negative, QTY refuses them.
* E-S5 (min <= max per key): the same as R1 (guaranteed within its own max).
* E-S6 (max-strict-check-resource-keys): a Koordinator annotation quotaweb has no setting for;
  usage above max is the user/group quota engine's business.
* E-T1 (is-parent changes), E-T3 (the parent exists and is a parent): a quotaweb queue's parent
  is where it is written in the tree, and a queue with children is a parent by construction.
* E-T2 (tree ids): quotaweb has one tree per partition.
* E-T6: not a check in Koordinator either (a child's max may exceed its parent's); quotaweb's
  own R2 forbids that shape in configs anyway.
* E-T7 (guarantee mode's min raise): it judges a change against live guarantees, which a config
  document does not carry; ElasticTree applies guarantees at runtime instead.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from trackers.config.build import Locations, default_locations
from trackers.config.model import Config, Queue
from trackers.config.report import Report
from trackers.config.scope import Scope
from trackers.elastic import messages as m
from trackers.elastic.queues import (
    FLAG_WORDS,
    PROP_ALLOW_LENT,
    PROP_SYSTEM,
    PROP_WEIGHT,
    WeightError,
    parse_weight,
)
from trackers.resources import format_resource

_FLAG_DEFAULTS = {
    PROP_ALLOW_LENT: "the queue lends, as with true",
    PROP_SYSTEM: "not a system queue, as with false",
}


def check_elastic(
    config: Config, partitions: Collection[str], locations: Locations | None = None
) -> list[dict[str, str]]:
    """Every elastic rule error of the named partitions, as ``{code, path, field, message,
    detail}``; ``[]`` when they pass. Fields are placed like ``check_config``'s."""
    loc = locations if locations is not None else default_locations(config)
    report = Report()
    wanted = set(partitions)
    for index, partition in enumerate(config.partitions):
        if partition.name not in wanted:
            continue
        scope = Scope(report, loc, partition, index)
        stack: list[tuple[Queue, Queue | None]] = [(partition.root, None)]
        while stack:
            queue, parent = stack.pop()
            _check_properties(scope, queue)
            if parent is not None:
                _check_min_keys(scope, queue)
                # Koordinator skips the topology checks for quotas right under its root.
                if parent is not scope.root:
                    _check_keys(scope, queue, parent)
            if queue is not scope.root and queue.children:
                _check_min_sum(scope, queue)
            stack.extend((child, queue) for child in reversed(queue.children))
    return report.errors


def _check_properties(scope: Scope, queue: Queue) -> None:
    props = queue.properties
    if not props:
        return
    where = f"{scope.queue_field(queue)}.properties"
    text = props.get(PROP_WEIGHT)
    if text is not None:
        try:
            parse_weight(text)
        except WeightError as err:
            if err.negative:
                dimensions = ",".join(err.negative)
                message = m.WEIGHT_NEGATIVE.format(
                    queue=queue.path, prop=PROP_WEIGHT, dimensions=dimensions
                )
                detail = m.DETAIL_WEIGHT_NEGATIVE.format(prop=PROP_WEIGHT, dimensions=dimensions)
            else:
                message = m.WEIGHT_INVALID.format(queue=queue.path, prop=PROP_WEIGHT, error=err)
                detail = m.DETAIL_WEIGHT_INVALID.format(prop=PROP_WEIGHT, error=err)
            scope.add(m.CODE_WEIGHT, queue.path, f"{where}.{PROP_WEIGHT}", message, detail)
    for prop, default in _FLAG_DEFAULTS.items():
        value = props.get(prop)
        if value is not None and value.strip().lower() not in FLAG_WORDS:
            scope.add(
                m.CODE_FLAG, queue.path, f"{where}.{prop}",
                m.FLAG_INVALID.format(queue=queue.path, prop=prop, value=value),
                m.DETAIL_FLAG_INVALID.format(prop=prop, value=value, default=default),
            )


def _check_min_keys(scope: Scope, queue: Queue) -> None:
    """E-S4: key presence is judged on the keys as written, so a QTY error does not hide it."""
    guaranteed, _, _, _ = scope.queue_resources(queue)
    for kind in queue.guaranteed:
        if kind not in queue.max:
            value = guaranteed.get(kind)
            scope.add(
                m.CODE_MIN_KEY, queue.path,
                f"{scope.queue_field(queue)}.resources.guaranteed.{kind}",
                m.MIN_KEY_NOT_IN_MAX.format(kind=kind, queue=queue.path),
                m.DETAIL_MIN_KEY_NOT_IN_MAX.format(
                    kind=kind,
                    value=format_resource({kind: value}) if value is not None else "unreadable",
                ),
            )


def _keys(values: Mapping[str, str]) -> str:
    return ", ".join(sorted(values)) if values else "nothing"


def _check_keys(scope: Scope, queue: Queue, parent: Queue) -> None:
    """E-T4: the same max keys as the parent, min keys within the parent's min keys."""
    where = scope.queue_field(queue)
    if set(queue.max) != set(parent.max):
        scope.add(
            m.CODE_KEYS, queue.path, f"{where}.resources.max" if queue.max else where,
            m.MAX_KEYS_DIFFER.format(parent=parent.path, queue=queue.path),
            m.DETAIL_MAX_KEYS_DIFFER.format(
                own=_keys(queue.max), parent=parent.path, parents=_keys(parent.max)
            ),
        )
    missing = [kind for kind in queue.guaranteed if kind not in parent.guaranteed]
    if missing:
        scope.add(
            m.CODE_KEYS, queue.path, f"{where}.resources.guaranteed",
            m.MIN_KEYS_NOT_INCLUDED.format(parent=parent.path, queue=queue.path),
            m.DETAIL_MIN_KEYS_NOT_INCLUDED.format(
                missing=", ".join(sorted(missing)), parent=parent.path
            ),
        )


def _check_min_sum(scope: Scope, parent: Queue) -> None:
    """E-T5 for the children of a queue below the root: Σ children's min "completely <=" the
    parent's min. Only kinds the parent does not guarantee at all are reported: R3 already
    reports sums above a guaranteed the parent has."""
    totals: dict[str, int] = {}
    mins = []
    for child in parent.children:
        guaranteed, _, _, _ = scope.queue_resources(child)
        mins.append(guaranteed)
        for kind, value in guaranteed.items():
            if kind not in parent.guaranteed:
                totals[kind] = totals.get(kind, 0) + value
    over = {kind: total for kind, total in totals.items() if total > 0}
    if not over:
        return
    for child, guaranteed in zip(parent.children, mins, strict=True):
        own = {kind: guaranteed[kind] for kind in over if guaranteed.get(kind, 0) > 0}
        if not own:
            continue
        scope.add(
            m.CODE_MIN_SUM, child.path, f"{scope.queue_field(child)}.resources.guaranteed",
            m.MIN_SUM_ABOVE_PARENT.format(parent=parent.path),
            m.DETAIL_MIN_SUM_ABOVE_PARENT.format(
                own=format_resource(own), parent=parent.path, kinds=", ".join(sorted(own)),
                total=format_resource({kind: over[kind] for kind in own}),
            ),
        )
