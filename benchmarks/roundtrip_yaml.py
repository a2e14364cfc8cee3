"""What keeping the admin's YAML costs: ruamel.yaml's round trip (read, then write back) of the
sample and of generated documents up to ``MAX_ROUNDTRIP_BYTES``, beside the validator's own
read of the same text, as medians of several runs. Form and API edits of larger documents are
written afresh from the model instead (``quotaweb.config.roundtrip``).

Run: ``.venv/bin/python benchmarks/roundtrip_yaml.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from configs import wide_config  # noqa: E402

from quotaweb.config.roundtrip import MAX_ROUNDTRIP_BYTES, document_read  # noqa: E402
from trackers import parse_config  # noqa: E402


def median_ms(action, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    documents = [
        ("sample", (ROOT / "quotaweb" / "samples" / "queues.yaml").read_text(encoding="utf-8")),
        ("112 queues", wide_config((10, 10), 5)),
        ("212 queues", wide_config((10, 10, 1), 5)),
    ]
    print(f"round trip limit {MAX_ROUNDTRIP_BYTES // 1024} KB; medians of {runs} runs")
    for label, text in documents:
        editable = document_read(text)
        if editable is None:
            print(f"  {label:<12} {len(text) / 1024:6.0f} KB  above the limit: written afresh")
            continue
        read = median_ms(lambda text=text: document_read(text), runs)
        write = median_ms(editable.text, runs)
        validate = median_ms(lambda text=text: parse_config(text), runs)
        print(
            f"  {label:<12} {len(text) / 1024:6.0f} KB  read {read:6.0f} ms  write {write:6.0f} ms"
            f"  (validator's read {validate:5.0f} ms, ratio {(read + write) / validate:5.1f}x)"
        )


if __name__ == "__main__":
    main()
