"""What ``manage.py demo`` adds to a fresh database so that every quota model has something to
show on first look: a cluster total per partition for elastic quota (which stays off: turning
it on is the admin's choice), a small quota tree, and a forest of two trees.

Each seed is made once: a partition that already has a total, or a database that already has
trees, is left as it is (an admin's changes survive restarts). The tree simulator
(``quotaweb.core.tree_simulator``) allocates on what is seeded here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quotaweb.core.demo_history import demo_history_seed
from quotaweb.elastic.models import ElasticSettings
from quotaweb.elastic.services import elastic_total_set
from quotaweb.engine.gateway import engines_get
from quotaweb.quotatrees.models import Forest, Tree
from quotaweb.quotatrees.services import forest_put, tree_put
from quotaweb.quotatrees.units import tree_quantity_parse
from trackers.config.model import Partition
from trackers.resources import format_resource, parse_quantity

SEED_COMMENT = "demo seed"
MSG_TOTAL = "Elastic quota of {partition}: cluster total {total} (elastic quota stays off)"
MSG_TREES = "Quota trees: {trees}; forest {forest} of {members}"

# The small tree: a lab with a soft research group (two teams) and a hard ops team. Amounts
# as people type them (cpu in cores, memory with a unit); stored in base units.
LAB_TREE = "lab"
LAB_NODES: list[tuple[str, str | None, bool, dict[str, str]]] = [
    ("lab", None, False, {"cpu": "32", "memory": "128Gi"}),
    ("research", "lab", False, {"cpu": "16", "memory": "64Gi"}),
    ("nlp", "research", False, {"cpu": "8", "memory": "32Gi"}),
    ("vision", "research", False, {"cpu": "8", "memory": "32Gi"}),
    ("ops", "lab", True, {"cpu": "8", "memory": "32Gi"}),
    ("batch", "ops", False, {"cpu": "8", "memory": "32Gi"}),
]
# The forest: a job takes cpu and memory in one tree and GPUs in the other, all or nothing.
FOREST = "cluster"
FOREST_TREES: dict[str, tuple[list[str], list[tuple[str, str | None, bool, dict[str, str]]]]] = {
    "cluster-compute": (["cpu", "memory"], [
        ("compute", None, False, {"cpu": "64", "memory": "256Gi"}),
        ("training", "compute", False, {"cpu": "40", "memory": "160Gi"}),
        ("inference", "compute", False, {"cpu": "24", "memory": "96Gi"}),
    ]),
    "cluster-gpus": (["nvidia.com/gpu"], [
        ("gpus", None, False, {"nvidia.com/gpu": "8"}),
        ("training", "gpus", False, {"nvidia.com/gpu": "6"}),
        ("inference", "gpus", True, {"nvidia.com/gpu": "2"}),
    ]),
}


def tree_seed_document(
    name: str, resources: list[str], nodes: list[tuple[str, str | None, bool, dict[str, str]]]
) -> dict[str, Any]:
    """A ``QuotaTree`` document of ``nodes`` (name, parent, hard, amounts in human units)."""
    return {
        "kind": "QuotaTree", "metadata": {"name": name},
        "spec": {"resourceNames": resources, "nodes": {
            node: {
                "parent": parent or "nil", "hard": "true" if hard else "false",
                "quota": {r: str(tree_quantity_parse(amount, r)) for r, amount in quota.items()},
            }
            for node, parent, hard, quota in nodes
        }},
    }


def demo_total(partition: Partition) -> dict[str, int]:
    """What the demo says a partition's cluster has: per type, the sum of the guaranteed
    resources of the root's children (so their mins just fit), and for a type nothing
    guarantees (GPUs here) the sum of their max."""
    guaranteed: dict[str, int] = {}
    maxima: dict[str, int] = {}
    for queue in partition.root.children:
        for kind, text in queue.guaranteed.items():
            guaranteed[kind] = guaranteed.get(kind, 0) + parse_quantity(text, kind)
        for kind, text in queue.max.items():
            maxima[kind] = maxima.get(kind, 0) + parse_quantity(text, kind)
    total = dict(guaranteed)
    for kind, value in maxima.items():
        total.setdefault(kind, value)
    return {kind: value for kind, value in total.items() if value}


def demo_seed(*, write: Callable[[str], None] = lambda line: None) -> None:
    """Seed what is missing (see the module's note); ``write`` gets a line per seed."""
    demo_history_seed(write=write)
    gateway = engines_get()
    have_total = {
        row.partition for row in ElasticSettings.objects.all() if row.cluster_total
    }
    for partition in gateway.partitions():
        if partition in have_total:
            continue
        with gateway.engine(partition) as engine:
            total = demo_total(engine.config)
        if total:
            elastic_total_set(partition=partition, total=total, author=None)
            write(MSG_TOTAL.format(partition=partition, total=format_resource(total)))
    if Tree.objects.exists() or Forest.objects.exists():
        return
    tree_put(tree=LAB_TREE, document=tree_seed_document(
        LAB_TREE, ["cpu", "memory"], LAB_NODES), author=None, comment=SEED_COMMENT)
    for name, (resources, nodes) in FOREST_TREES.items():
        tree_put(tree=name, document=tree_seed_document(name, resources, nodes), author=None,
                 comment=SEED_COMMENT)
    forest_put(forest=FOREST, trees=list(FOREST_TREES))
    write(MSG_TREES.format(trees=", ".join([LAB_TREE, *FOREST_TREES]), forest=FOREST,
                           members=" and ".join(FOREST_TREES)))
