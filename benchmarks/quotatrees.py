"""Quota-tree engine latency, printed as medians of several runs.

    python benchmarks/quotatrees.py [--runs 5] [--ops 2000] [--consumers 10000]

Scenario (spec ``quota-trees.md`` section 4): a tree root -> 30 -> 30 (900 leaves, cpu and
memory), filled with 10,000 consumers of priorities 0-3 whose demand exceeds some leaves' quota,
so part of them borrow at the middle level or at the root. Then, in steady state, each operation
de-allocates a random consumer (borrowers slide down) and allocates a new one (slides up,
preemptions at the root and by priority happen). A second pass makes the new consumers ask twice
as much, so the tree fills up and allocations compete: more slides, preemptions and rejections.
Every operation is timed on its own through ``QuotaManager`` (lock, journal, result and change
list included); p50 and p95 per run, and the median of those over the runs. Target: 1 ms p95
or less for both.

Through the API (``--api-ops``, 0 skips it): the same tree and fill on a real server
(``manage.py demo`` on a SQLite file in a temporary folder), then each operation is one HTTP
round trip on a kept-open connection, storage included: ``DELETE .../allocations/<id>`` and
``POST .../allocations``. p50 and p95 per run, median over the runs.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from trackers.quotatree import ConsumerSpec, QuotaManager, TreeRequest, make_tree

TREE = "bench"
MIDS = 30
LEAVES_PER_MID = 30
LEAF_QUOTA = (20, 80)  # cpu, memory
MID_QUOTA = (600, 2_400)  # tight: exactly its 30 leaves
ROOT_QUOTA = (18_300, 73_200)  # 300 above its middle nodes: borrowers end up there


def build_tree():
    rows: list = [("root", None, list(ROOT_QUOTA), True)]
    leaves = []
    for i in range(MIDS):
        mid = f"m{i:02d}"
        rows.append((mid, "root", list(MID_QUOTA), False))
        for j in range(LEAVES_PER_MID):
            leaf = f"{mid}-l{j:02d}"
            rows.append((leaf, mid, list(LEAF_QUOTA), False))
            leaves.append(leaf)
    return make_tree(TREE, ["cpu", "memory"], rows), leaves


def new_consumer(
    rng: random.Random, number: int, leaves: list[str], scale: int = 1
) -> ConsumerSpec:
    cpu = rng.choice((1, 1, 2, 2, 3)) * scale
    return ConsumerSpec(f"c{number}", {TREE: TreeRequest(
        rng.choice(leaves), {"cpu": cpu, "memory": cpu * 4},
        priority=rng.choice((0, 0, 0, 1, 2, 3)),
        unpreemptable=rng.random() < 0.05,
    )})


def fill(manager: QuotaManager, rng: random.Random, leaves: list[str], count: int) -> int:
    """Allocate until ``count`` consumers are placed; returns the next consumer number."""
    number = placed = 0
    while placed < count and number < 5 * count:
        result = manager.allocate(TREE, new_consumer(rng, number, leaves))
        number += 1
        if result.allocated:
            placed += 1 - len(result.preempted)
    return number


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_engine(runs: int, ops: int, consumers: int, scale: int) -> None:
    spec, leaves = build_tree()
    figures: dict[str, list[float]] = {key: [] for key in
                                       ("alloc50", "alloc95", "dealloc50", "dealloc95")}
    borrowing, preempted, rejected = [], [], []
    for run in range(runs):
        rng = random.Random(run)
        manager = QuotaManager()
        manager.add_tree(spec)
        number = fill(manager, rng, leaves, consumers)
        placed = [p["id"] for p in manager.placements(TREE)]
        borrowing.append(sum(p["borrowing"] for p in manager.placements(TREE)) / len(placed))
        alloc_times, dealloc_times = [], []
        lost = refused = 0
        gc.collect()
        for _ in range(ops):
            index = rng.randrange(len(placed))
            victim = placed[index]
            placed[index] = placed[-1]
            placed.pop()
            start = time.perf_counter()
            manager.deallocate(TREE, victim)
            dealloc_times.append(time.perf_counter() - start)
            spec_new = new_consumer(rng, number, leaves, scale)
            number += 1
            start = time.perf_counter()
            result = manager.allocate(TREE, spec_new)
            alloc_times.append(time.perf_counter() - start)
            if result.allocated:
                placed.append(spec_new.id)
                gone = set(result.preempted)
                lost += len(gone)
                if gone:
                    placed = [cid for cid in placed if cid not in gone]
            else:
                refused += 1
        figures["alloc50"].append(percentile(alloc_times, 0.50))
        figures["alloc95"].append(percentile(alloc_times, 0.95))
        figures["dealloc50"].append(percentile(dealloc_times, 0.50))
        figures["dealloc95"].append(percentile(dealloc_times, 0.95))
        preempted.append(lost / ops)
        rejected.append(refused / ops)

    def us(key: str) -> str:
        return f"{statistics.median(figures[key]) * 1e6:,.0f} us"

    pressure = "" if scale == 1 else f", new consumers asking {scale}x (the tree fills up)"
    print(f"{consumers:,} consumers{pressure}:")
    print(f"  borrowing at start: {statistics.median(borrowing):.1%} of consumers; per "
          f"allocation: {statistics.median(preempted):.2f} preempted, "
          f"{statistics.median(rejected):.1%} rejected")
    print(f"  allocate:    p50 {us('alloc50')}, p95 {us('alloc95')}")
    print(f"  de-allocate: p50 {us('dealloc50')}, p95 {us('dealloc95')}")


def _api_body(spec: ConsumerSpec) -> dict:
    request = spec.trees[TREE]
    return {"id": spec.id, "groupID": request.group, "request": dict(request.request),
            "priority": request.priority, "unPreemptable": request.unpreemptable}


def bench_api(runs: int, ops: int, consumers: int) -> None:
    """The engine scenario's steady state through the HTTP API, storage included."""
    from tests.configs import CAPPED_YAML
    from tests.server_process import ServerProcess, free_port

    spec, leaves = build_tree()
    url = f"/api/v1/quota-trees/{TREE}"
    figures: dict[str, list[float]] = {key: [] for key in
                                       ("alloc50", "alloc95", "dealloc50", "dealloc95")}
    with tempfile.TemporaryDirectory(prefix="quotaweb-tree-bench-") as folder:
        server = ServerProcess(Path(folder), free_port(), config_yaml=CAPPED_YAML)
        with server.running():
            token = server.token("admin")
            connection = server.connection(timeout=60)
            status, _ = server.request("PUT", url, spec.document(), token, connection)
            assert status == 201, status
            rng = random.Random(0)
            placed: list[str] = []
            number = 0
            while len(placed) < consumers and number < 5 * consumers:
                consumer = new_consumer(rng, number, leaves)
                number += 1
                status, answer = server.request("POST", f"{url}/allocations",
                                                _api_body(consumer), token, connection)
                if status == 201:
                    placed.append(consumer.id)
                    gone = set(answer["preempted"])
                    if gone:
                        placed = [cid for cid in placed if cid not in gone]
            for _ in range(runs):
                alloc_times, dealloc_times = [], []
                for _ in range(ops):
                    index = rng.randrange(len(placed))
                    victim = placed[index]
                    placed[index] = placed[-1]
                    placed.pop()
                    start = time.perf_counter()
                    status, _ = server.request("DELETE", f"{url}/allocations/{victim}", None,
                                               token, connection)
                    dealloc_times.append(time.perf_counter() - start)
                    assert status == 204, status
                    consumer = new_consumer(rng, number, leaves)
                    number += 1
                    start = time.perf_counter()
                    status, answer = server.request("POST", f"{url}/allocations",
                                                    _api_body(consumer), token, connection)
                    alloc_times.append(time.perf_counter() - start)
                    if status == 201:
                        placed.append(consumer.id)
                        gone = set(answer["preempted"])
                        if gone:
                            placed = [cid for cid in placed if cid not in gone]
                figures["alloc50"].append(percentile(alloc_times, 0.50))
                figures["alloc95"].append(percentile(alloc_times, 0.95))
                figures["dealloc50"].append(percentile(dealloc_times, 0.50))
                figures["dealloc95"].append(percentile(dealloc_times, 0.95))

    def ms(key: str) -> str:
        return f"{statistics.median(figures[key]) * 1e3:.2f} ms"

    print(f"through the API (HTTP round trip, SQLite storage), {len(placed):,} consumers, "
          f"{ops:,} operations of each kind per run:")
    print(f"  allocate:    p50 {ms('alloc50')}, p95 {ms('alloc95')}")
    print(f"  de-allocate: p50 {ms('dealloc50')}, p95 {ms('dealloc95')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ops", type=int, default=2_000)
    parser.add_argument("--consumers", type=int, default=10_000)
    parser.add_argument("--api-ops", type=int, default=500,
                        help="operations of each kind per run through the API (0: skip)")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; tree root -> {MIDS} -> {LEAVES_PER_MID} "
          f"({MIDS * LEAVES_PER_MID} leaves, cpu and memory); {args.ops:,} de-allocations and "
          f"{args.ops:,} allocations per run, median of {args.runs} runs")
    bench_engine(args.runs, args.ops, args.consumers, scale=1)
    bench_engine(args.runs, args.ops, args.consumers, scale=2)
    if args.api_ops:
        bench_api(args.runs, args.api_ops, args.consumers)


if __name__ == "__main__":
    main()
