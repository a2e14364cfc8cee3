"""What-if replay (issue 30): a long history asked again of a candidate config.

    python benchmarks/replay.py [--events 1000000] [--runs 3]

The history is made as the product makes it: the engine scenario of benchmarks/engine.py (10,000
users, 500 groups, 5-level paths, user and group caps on several levels) answers a stream of
requests and releases (about 20,000 allocations live at any time), and records what it
answered. The candidate is the same config with every user cap a third lower, so a share of
the history changes answer. Prints the replay's time (median of ``--runs``, target under 30 s
for 1,000,000 events) and how much the process grew while replaying (the replay holds its own
live set and tallies, not the history: target bounded, far below the history's own size).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import engine_config
from engine import GIB, build_world

from trackers import Engine, parse_config
from trackers.ugm.replay import Release, Request, replay

TARGET_SECONDS = 30.0
LIVE = 20_000


def history(events: int, seed: int = 11) -> list[Request | Release]:
    partition, users, home, member = build_world()
    engine = Engine(partition)
    rng = random.Random(seed)
    held: list[Request] = []
    apps: dict[str, int] = {}
    out: list[Request | Release] = []
    # A fifth of the users are busy in the period: enough of them reach their caps.
    busy = rng.sample(users, len(users) // 5)
    at, number = 1_700_000_000.0, 0
    while len(out) < events:
        at += 0.05
        if len(held) >= LIVE or (held and rng.random() < 0.45):
            request = held.pop(rng.randrange(len(held)))
            apps[request.app_id] -= 1
            last = apps[request.app_id] == 0
            engine.decrease(request.queue_path, request.app_id, request.user,
                            dict(request.resource), remove_app=last)
            if last:
                del apps[request.app_id]
            out.append(Release(at, request.key))
            continue
        user = rng.choice(busy)
        app = f"{user}-app{number % 4}"
        number += 1
        wanted = {"memory": GIB * rng.choice((4, 8, 16, 32)), "vcore": 250}
        decision = engine.increase(home[user], app, user, member[user], wanted)
        request = Request(f"k{number}", home[user], app, user, tuple(member[user]), wanted,
                          at=at, admitted=decision.allowed, reason=decision.reason,
                          group=decision.group)
        out.append(request)
        if decision.allowed:
            held.append(request)
            apps[app] = apps.get(app, 0) + 1
    return out


def candidate():
    """The scenario's config (built as build_world builds it) with every user cap's memory a
    third lower."""
    _, users, _, _ = build_world()
    rng = random.Random(7)
    named = sorted(rng.sample(users, 2_000))
    groups = [f"team{i:03d}" for i in range(500)]
    text = engine_config(named_users=named, groups=groups)
    for memory in (224, 192, 160):  # the user caps at depths 1, 2 and 3
        text = text.replace(f"memory: {memory}Gi", f"memory: {memory * 2 // 3}Gi")
    return parse_config(text).partitions[0]


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    made = time.perf_counter()
    events = history(args.events)
    made = time.perf_counter() - made
    config = candidate()
    before = rss_mib()
    seconds = []
    report = None
    for _ in range(args.runs):
        start = time.perf_counter()
        report = replay(config, events)
        seconds.append(time.perf_counter() - start)
    assert report is not None
    grown = rss_mib() - before
    print(f"what-if replay of {len(events):,} events ({report.requests:,} requests, "
          f"{report.releases:,} releases; the history made in {made:.1f} s)")
    print(f"  time: median {statistics.median(seconds):.2f} s of {args.runs} runs "
          f"({', '.join(f'{s:.2f}' for s in seconds)}); target under {TARGET_SECONDS:g} s; "
          f"{len(events) / statistics.median(seconds):,.0f} events/s")
    print(f"  peak RSS grew {grown:.0f} MiB while replaying (the history itself: "
          f"{before:.0f} MiB peak before)")
    print(f"  answers changed: {report.newly_denied.count:,} newly denied, "
          f"{report.newly_admitted.count:,} newly admitted, {report.unchanged:,} unchanged")


if __name__ == "__main__":
    main()
