"""Builders for the elastic quota tests: queues from short numbers, trees with inputs set."""

from __future__ import annotations

from collections.abc import Mapping

from trackers.elastic import ElasticQueue, ElasticTree

GI = 2**30
CPU = "cpu"

Amount = int | Mapping[str, int] | None


def res(value: Amount, kind: str = CPU) -> dict[str, int]:
    """``7`` -> ``{"cpu": 7}``; a map is taken as it is; None is empty."""
    if value is None:
        return {}
    if isinstance(value, int):
        return {kind: value}
    return dict(value)


def parent_of(path: str) -> str | None:
    return path.rsplit(".", 1)[0] if "." in path else None


def eq(
    path: str,
    min: Amount = None,
    max: Amount = None,
    weight: Amount = None,
    *,
    lent: bool = True,
    system: bool = False,
    kind: str = CPU,
) -> ElasticQueue:
    """An ElasticQueue; a name without dots hangs below root, the weight defaults to max."""
    if path != "root" and not path.startswith("root."):
        path = f"root.{path}"
    maximum = res(max, kind)
    return ElasticQueue(
        path=path,
        parent=parent_of(path),
        min=res(min, kind),
        max=maximum,
        weight=maximum if weight is None else res(weight, kind),
        allow_lent=lent,
        system=system,
    )


ROOT = ElasticQueue("root", None, {}, {}, {})


def build(
    *queues: ElasticQueue,
    total: Amount = None,
    demand: Mapping[str, Amount] | None = None,
    used: Mapping[str, Amount] | None = None,
    kind: str = CPU,
    **options: bool,
) -> ElasticTree:
    """A tree of root + ``queues`` with total, demands and usage set and refreshed."""
    tree = ElasticTree([ROOT, *queues], total=res(total, kind), **options)
    for path, value in (demand or {}).items():
        tree.set_demand(full(path), res(value, kind))
    for path, value in (used or {}).items():
        tree.set_used(full(path), res(value, kind))
    tree.refresh()
    return tree


def full(path: str) -> str:
    return path if path == "root" or path.startswith("root.") else f"root.{path}"


def runtimes(tree: ElasticTree, *paths: str, kind: str = CPU) -> list[int | None]:
    return [tree.runtime(full(path)).get(kind) for path in paths]
