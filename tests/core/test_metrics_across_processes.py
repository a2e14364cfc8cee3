"""With ``PROMETHEUS_MULTIPROC_DIR``, /metrics of any process adds up every process's counters and
histograms (those of processes that ended too), open sockets summed over the live processes, and
the families read at scrape time from the process that answers. A directory that cannot be used
stops the process and names the variable. Real processes: prometheus_client chooses its mode
when it is imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.exposition import Exposition

ROOT = Path(__file__).resolve().parents[2]

# Counts ``n`` allocations, a denial, one timed allocation and ``n`` open sockets; with
# ``stay`` it waits for its stdin to close before it exits. Prints the rendered /metrics.
PROCESS = textwrap.dedent("""\
    import sys
    from quotaweb import metrics

    n, stay = int(sys.argv[1]), sys.argv[2] == "stay"
    if n:
        metrics.inc("quotaweb_allocations_total", n)
        metrics.inc("quotaweb_denials_total", reason="userQuota")
        metrics.observe("quotaweb_allocation_seconds", 0.002 * n, operation="allocate")
        metrics.inc("quotaweb_websocket_clients", n)
    metrics.gauge("quotaweb_live_allocations", "Live allocations per partition.",
                  lambda: [({"partition": "default"}, 7.0)])
    print(metrics.render(), end="")
    print("--ready--", flush=True)
    if stay:
        sys.stdin.read()
""")


def _environ(directory: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    return {**environ, "PROMETHEUS_MULTIPROC_DIR": directory}


def _run(directory: Path, n: int) -> Exposition:
    done = subprocess.run(
        [sys.executable, "-c", PROCESS, str(n), "exit"], cwd=ROOT, env=_environ(str(directory)),
        capture_output=True, text=True, timeout=60, check=True,
    )
    return Exposition(done.stdout.split("--ready--")[0])


def test_any_process_renders_every_process_counts(tmp_path):
    staying = subprocess.Popen(
        [sys.executable, "-c", PROCESS, "2", "stay"], cwd=ROOT, env=_environ(str(tmp_path)),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert staying.stdout is not None
        while "--ready--" not in staying.stdout.readline():
            assert staying.poll() is None
        _run(tmp_path, 3)  # counts, then ends

        seen = _run(tmp_path, 0)  # counts nothing, only answers
        assert seen.value("quotaweb_allocations_total") == 5
        assert seen.value("quotaweb_denials_total", reason="userQuota") == 2
        assert seen.value("quotaweb_allocation_seconds_count", operation="allocate") == 2
        assert seen.value("quotaweb_allocation_seconds_bucket", operation="allocate",
                          le="0.005") == 1  # 0.004 s; the 0.006 s one is above
        assert seen.value("quotaweb_allocation_seconds_sum",
                          operation="allocate") == pytest.approx(0.010)
        assert seen.type_of("quotaweb_allocation_seconds") == "histogram"
        # Only the process still running keeps its sockets in the sum.
        assert seen.value("quotaweb_websocket_clients") == 2
        # Read at scrape time by the process that answers.
        assert seen.value("quotaweb_live_allocations", partition="default") == 7
    finally:
        assert staying.stdin is not None
        staying.stdin.close()
        staying.wait(timeout=30)

    after = _run(tmp_path, 0)
    assert after.value("quotaweb_allocations_total") == 5  # counts of ended processes stay
    assert after.value("quotaweb_websocket_clients") == 0


def test_a_directory_that_cannot_be_used_stops_the_process(tmp_path):
    for value, words in ((str(tmp_path / "missing"), "not an existing, writable directory"),
                         (" ", "is set but empty")):
        done = subprocess.run(
            [sys.executable, "-c", "import quotaweb.metrics"], cwd=ROOT, env=_environ(value),
            capture_output=True, text=True, timeout=60,
        )
        assert done.returncode != 0
        assert "ImproperlyConfigured" in done.stderr
        assert "PROMETHEUS_MULTIPROC_DIR" in done.stderr
        assert words in done.stderr
