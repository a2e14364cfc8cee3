"""How fast and in how much memory hostile YAML is refused (issue 2: within a second, bounded).

    python benchmarks/hostile_yaml.py [--runs 5]

Prints, per document, the median time of several runs and the peak memory traced while refusing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from trackers import validate_config


def billion_laughs() -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, 10):
        name, previous = chr(ord("a") + n), chr(ord("a") + n - 1)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


DOCUMENTS = {
    "billion laughs (10 levels of 9 aliases)": (billion_laughs(), {}),
    "50 MB document": ("partitions:\n" + "#" * (50 * 1024 * 1024), {}),
    "10,000-deep flow sequences": ("[" * 10_000 + "]" * 10_000, {"max_bytes": 200 * 2**20}),
    "10,000-deep block mappings": (
        "".join(" " * depth + "a:\n" for depth in range(10_000)) + " " * 10_000 + "b\n",
        {"max_bytes": 200 * 2**20},
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for label, (text, options) in DOCUMENTS.items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            errors = validate_config(text, **options)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        validate_config(text, **options)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{label}: refused in median {statistics.median(times) * 1000:.1f} ms "
              f"(max {max(times) * 1000:.1f} ms of {args.runs}), peak {peak / 2**20:.1f} MiB "
              f"traced; {errors[0]['code']}: {errors[0]['message'][:70]}")


if __name__ == "__main__":
    main()
