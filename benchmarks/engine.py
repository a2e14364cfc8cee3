"""Engine throughput and latency, printed as medians of several runs.

    python benchmarks/engine.py [--runs 5] [--ops 200000]

Scenario (issue 2): 10,000 users, 500 groups, 5-level queue paths, named and wildcard user caps on
three levels, group caps, three resource types; validate + apply of 10,000 queues with 50,000 limit
entries; a snapshot of all users.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import engine_config, wide_config

from trackers import Engine, parse_config, validate_config

USERS = 10_000
GROUPS = 500
GIB = 1024**3


def build_world(seed: int = 7):
    rng = random.Random(seed)
    users = [f"user{i:05d}" for i in range(USERS)]
    groups = [f"team{i:03d}" for i in range(GROUPS)]
    named = rng.sample(users, 2_000)
    text = engine_config(named_users=sorted(named), groups=groups)
    partition = parse_config(text).partitions[0]
    leaves = [q.path for q in partition.queues() if not q.children and q.path.count(".") == 4]
    # Each user works in one leaf and belongs to two groups: a team of their department (groups
    # are spread over departments round-robin) and one more anywhere.
    home = {user: rng.choice(leaves) for user in users}
    member = {}
    for user in users:
        department = int(home[user].split(".")[1][1:])
        member[user] = [rng.choice(groups[department::10]), rng.choice(groups)]
    return partition, users, home, member


def make_ops(users, home, member, count: int, seed: int, burst: int = 1):
    """``count`` increases. With ``burst`` > 1 each application asks for that many allocations in
    a row, as a scheduler does when it places an application's tasks; with 1 every operation
    picks a user at random, the worst case for memory locality."""
    rng = random.Random(seed)
    ops = []
    app_number = 0
    while len(ops) < count:
        user = rng.choice(users)
        app = f"{user}-app{app_number % 4}"
        app_number += 1
        for task in range(burst):
            resource = {"memory": GIB, "vcore": 250}
            if (app_number + task) % 10 == 0:
                resource["nvidia.com/gpu"] = 1
            ops.append((home[user], app, user, member[user], resource))
    return ops[:count]


def median_rate(samples: list[float], count: int) -> str:
    med = statistics.median(samples)
    spread = f"{min(samples):.3f}-{max(samples):.3f} s"
    return f"{count / med:,.0f}/s (median of {len(samples)}, spread {spread})"


def timed_increases(engine: Engine, ops) -> tuple[float, list[bool]]:
    """Seconds ``engine`` takes to run every increase of ``ops``, and each verdict."""
    increase = engine.increase
    gc.collect()
    start = time.perf_counter()
    # Keep only the verdicts: a server drops each decision once it has answered.
    verdicts = [increase(*op).allowed for op in ops]
    return time.perf_counter() - start, verdicts


def bench_increase_decrease(partition, users, home, member, runs: int, count: int) -> None:
    for label, burst in (("random user per operation", 1), ("bursts of 8 per application", 8)):
        inc_times, dec_times, denied = [], [], []
        for run in range(runs):
            engine = Engine(partition)
            ops = make_ops(users, home, member, count, seed=run, burst=burst)
            seconds, verdicts = timed_increases(engine, ops)
            inc_times.append(seconds)
            decrease = engine.decrease
            accepted = [op for op, allowed in zip(ops, verdicts, strict=True) if allowed]
            denied.append(1 - len(accepted) / len(ops))
            releases = [(q, app, user, res, False) for q, app, user, _, res in reversed(accepted)]
            start = time.perf_counter()
            for release in releases:
                decrease(*release)
            # Normalised to `count` operations, as some increases may have been denied.
            dec_times.append((time.perf_counter() - start) / len(releases) * count)
        print(f"{label}:")
        print(f"  increase (admission + apply): {median_rate(inc_times, count)}")
        print(f"  decrease:                     {median_rate(dec_times, count)}")
        print(f"  denied share: median {statistics.median(denied):.1%}")


def bench_headroom(partition, users, home, member, runs: int) -> None:
    engine = Engine(partition)
    for op in make_ops(users, home, member, 50_000, seed=99):
        engine.increase(*op)
    rng = random.Random(5)
    sample = [rng.choice(users) for _ in range(20_000)]
    per_call = []
    for _ in range(runs):
        start = time.perf_counter()
        for user in sample:
            engine.headroom(home[user], f"{user}-app0", user, member[user])
        per_call.append((time.perf_counter() - start) / len(sample))
    print(
        f"headroom: median {statistics.median(per_call) * 1e6:.2f} us per call "
        f"(median of {runs} runs of {len(sample):,} calls)"
    )
    return engine


def bench_snapshot(engine: Engine, runs: int) -> None:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        users = engine.users_usage()
        times.append(time.perf_counter() - start)
    print(
        f"snapshot of all {len(users):,} users: median {statistics.median(times) * 1000:.0f} ms "
        f"(median of {runs})"
    )


def bench_config(runs: int) -> None:
    text = wide_config((10, 10, 10, 9), 5)
    validate_times, parse_times, apply_times = [], [], []
    partition = None
    for _ in range(runs):
        start = time.perf_counter()
        errors = validate_config(text)
        validate_times.append(time.perf_counter() - start)
        assert not errors, errors[:3]
        start = time.perf_counter()
        partition = parse_config(text).partitions[0]
        parse_times.append(time.perf_counter() - start)
        engine = Engine(partition)
        start = time.perf_counter()
        engine.apply_config(partition)
        apply_times.append(time.perf_counter() - start)
    queues = sum(1 for _ in partition.queues())
    entries = sum(len(q.limits) for q in partition.queues())
    print(f"config of {queues:,} queues, {entries:,} limit entries, {len(text) / 1e6:.1f} MB YAML:")
    print(f"  validate_config: median {statistics.median(validate_times) * 1000:.0f} ms")
    print(f"  parse_config:    median {statistics.median(parse_times) * 1000:.0f} ms")
    print(f"  apply_config:    median {statistics.median(apply_times) * 1000:.0f} ms")
    total = statistics.median(parse_times) + statistics.median(apply_times)
    print(f"  validate + apply (parse_config + apply_config): {total * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ops", type=int, default=200_000)
    args = parser.parse_args()
    partition, users, home, member = build_world()
    print(
        f"python {sys.version.split()[0]}; {USERS:,} users, {GROUPS} groups, "
        f"{sum(1 for _ in partition.queues()):,} queues, paths of 5 levels"
    )
    bench_increase_decrease(partition, users, home, member, args.runs, args.ops)
    engine = bench_headroom(partition, users, home, member, args.runs)
    bench_snapshot(engine, args.runs)
    bench_config(max(3, args.runs // 2))


if __name__ == "__main__":
    main()
