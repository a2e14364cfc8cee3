"""Elastic quota: full recompute and incremental refresh, printed as medians of several runs.

    python benchmarks/elastic.py [--runs 5] [--changes 200]

Scenario (spec section 3): 20 first-level queues x 10 x 10 leaves (2,000 leaf queues, 2,221 in
all), three resources (vcore, memory, nvidia.com/gpu), mins that add up within each parent,
weights from max, a fifth of the queues not lending, and mixed demand: a third of the leaves idle,
a third below their min, a third asking for far more than the cluster has. Targets: recompute
under 250 ms, refresh after one leaf's change under 20 ms.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from trackers.elastic import ElasticQueue, ElasticTree

GIB = 1024**3
GPU = "nvidia.com/gpu"
FANOUT = (20, 10, 10)


def res(vcore: int, memory_gib: int, gpu: int) -> dict[str, int]:
    return {"vcore": vcore * 1000, "memory": memory_gib * GIB, GPU: gpu}


def build_queues(rng: random.Random) -> tuple[list[ElasticQueue], list[str]]:
    root = ElasticQueue("root", None, {}, {}, {})
    queues = [root]
    leaves = []
    first, second, third = FANOUT
    for a in range(first):
        top = f"root.dept{a:02d}"
        top_min = res(200, 800, 16)
        top_max = res(2000, 8000, 160)
        queues.append(ElasticQueue(top, "root", top_min, top_max, top_max))
        for b in range(second):
            mid = f"{top}.team{b:02d}"
            queues.append(
                ElasticQueue(mid, top, res(20, 80, 1), res(400, 1600, 32), res(400, 1600, 32),
                             allow_lent=rng.random() > 0.2)
            )
            for c in range(third):
                leaf = f"{mid}.app{c:02d}"
                weight = res(rng.randint(1, 8), rng.randint(1, 32), rng.randint(0, 2))
                queues.append(
                    ElasticQueue(leaf, mid, res(2, 8, 0), res(100, 400, 8), weight,
                                 allow_lent=rng.random() > 0.2)
                )
                leaves.append(leaf)
    return queues, leaves


def demand_for(rng: random.Random) -> dict[str, int]:
    mood = rng.randrange(3)
    if mood == 0:
        return {}
    if mood == 1:
        return res(rng.randint(0, 2), rng.randint(0, 8), 0)
    return res(rng.randint(20, 200), rng.randint(50, 800), rng.randint(0, 8))


def build_tree(seed: int) -> tuple[ElasticTree, list[str], random.Random]:
    rng = random.Random(seed)
    queues, leaves = build_queues(rng)
    tree = ElasticTree(queues, total=res(3000, 12000, 200))
    for leaf in leaves:
        tree.set_demand(leaf, demand_for(rng))
        if rng.random() < 0.5:
            tree.set_used(leaf, res(rng.randint(0, 4), rng.randint(0, 16), rng.randint(0, 1)))
    tree.refresh()
    return tree, leaves, rng


def ms(samples: list[float]) -> str:
    return (
        f"median {statistics.median(samples) * 1000:.2f} ms "
        f"(spread {min(samples) * 1000:.2f}-{max(samples) * 1000:.2f} ms, {len(samples)} runs)"
    )


def bench_build(runs: int) -> None:
    rng = random.Random(1)
    queues, _ = build_queues(rng)
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        ElasticTree(queues, total=res(3000, 12000, 200))
        times.append(time.perf_counter() - start)
    print(f"build (ElasticTree(...) with its first full computation): {ms(times)}")


def bench_recompute(runs: int) -> ElasticTree:
    tree, _, _ = build_tree(7)
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        tree.recompute()
        times.append(time.perf_counter() - start)
    print(f"recompute all runtimes: {ms(times)}")
    return tree


def bench_refresh(runs: int, changes: int) -> None:
    tree, leaves, rng = build_tree(7)
    for label, setter, value in (
        ("one leaf's demand", tree.set_demand, demand_for),
        ("one leaf's used", tree.set_used,
         lambda r: res(r.randint(0, 40), r.randint(0, 160), r.randint(0, 4))),
    ):
        medians, worst, touched = [], [], []
        for _ in range(runs):
            times = []
            for _ in range(changes):
                leaf = rng.choice(leaves)
                update = value(rng)
                start = time.perf_counter()
                setter(leaf, update)
                touched.append(len(tree.refresh()))
                times.append(time.perf_counter() - start)
            medians.append(statistics.median(times))
            worst.append(max(times))
        print(
            f"refresh after {label}: median {statistics.median(medians) * 1000:.3f} ms per "
            f"change, slowest {max(worst) * 1000:.2f} ms ({runs} runs of {changes} changes; "
            f"queues changed per refresh: median {statistics.median(touched):.0f}, "
            f"most {max(touched)})"
        )


def bench_total(runs: int) -> None:
    """The widest refresh: a new cluster total moves every runtime in the tree."""
    tree, _, _ = build_tree(7)
    times, touched = [], []
    for run in range(runs * 4):
        tree.set_total(res(3000 + 10 * (run + 1), 12000, 200))
        start = time.perf_counter()
        touched.append(len(tree.refresh()))
        times.append(time.perf_counter() - start)
    print(
        f"refresh after a new cluster total: {ms(times)}; queues changed: median "
        f"{statistics.median(touched):.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--changes", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(1)
    queues, leaves = build_queues(rng)
    print(
        f"python {sys.version.split()[0]}; {len(queues):,} queues ({len(leaves):,} leaves, "
        f"fan-out {' x '.join(map(str, FANOUT))}), 3 resources"
    )
    bench_build(args.runs)
    bench_recompute(args.runs)
    bench_refresh(args.runs, args.changes)
    bench_total(args.runs)


if __name__ == "__main__":
    main()
