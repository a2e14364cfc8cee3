"""Counters, histograms and gauges of quotaweb, rendered in the Prometheus text format at /metrics.

The one place the rest of the code talks to: every metric is declared here by name (at the
bottom), and the apps ``inc`` and ``observe`` them by that name from any thread; ``gauge`` adds
a family read when /metrics is asked (figures the engines hold, like the live allocations per
partition). Underneath is ``prometheus_client`` with a registry of quotaweb's own
(``REGISTRY``, not the library's global one), so ``reset`` can start the tests from zero.

**Several processes.** When ``PROMETHEUS_MULTIPROC_DIR`` names a directory (the engine owner and
its ``manage.py web`` processes share one), every process writes its counters, histograms and
gauges to files there, and ``render`` in any of them adds up all the processes' files
(prometheus_client's ``MultiProcessCollector``). Gauges declare how processes combine
(``multiprocess_mode``, default ``livesum``: the sum over the processes still running). The
families read at scrape time come from the process that answers, so the engine figures come
from the engine owner. Empty the directory before the processes start: files of processes that
are gone stay and keep counting. Without the variable, one process, as before.

Settings-layer code (imports no app), so any layer may count.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

logger = logging.getLogger(__name__)

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"

# Buckets (seconds) for the latencies measured here, sub-millisecond to seconds.
ALLOCATION_BUCKETS = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
)
CONFIG_APPLY_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
)
PUSH_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
)

ERR_MULTIPROC_EMPTY = (
    f"{MULTIPROC_VARIABLE} is set but empty: unset it for one process, or name the directory "
    "the processes share for their metrics"
)
ERR_MULTIPROC_DIR = f"{MULTIPROC_VARIABLE}={{path!r}} is not an existing, writable directory"
ERR_KIND = "metric {name}: kind must be counter, histogram or gauge, not {kind!r}"


def _multiproc_dir() -> str | None:
    """The shared directory, or None for one process. prometheus_client decided at import
    (from the same variable) whether values go to files; an empty or missing directory would
    only fail at the first count, so it stops the process here instead."""
    if MULTIPROC_VARIABLE not in os.environ:
        return None
    path = os.environ[MULTIPROC_VARIABLE]  # as prometheus_client reads it
    if not path.strip():
        raise ImproperlyConfigured(ERR_MULTIPROC_EMPTY)
    if not (os.path.isdir(path) and os.access(path, os.W_OK)):
        raise ImproperlyConfigured(ERR_MULTIPROC_DIR.format(path=path))
    return path


MULTIPROC_DIR = _multiproc_dir()

# No ``*_created`` series beside every counter and histogram: nothing here reads them.
disable_created_metrics()

REGISTRY = CollectorRegistry()

Read = Callable[[], Iterable[tuple[dict[str, str], float]]]


@dataclass(frozen=True)
class _Spec:
    kind: str
    text: str
    labels: tuple[str, ...]
    buckets: tuple[float, ...] | None
    multiprocess_mode: str


_lock = threading.Lock()
_specs: dict[str, _Spec] = {}
# The metric objects by name (Any: ``inc`` and ``observe`` answer for the kinds they take).
_metrics: dict[str, Any] = {}
# Each labelled series once looked up, by name and labels as given: prometheus_client's
# ``labels()`` takes a lock and checks and orders the values on every call, a few microseconds
# of every allocate. No larger than the metrics' own series, and emptied when they are made
# again.
_series: dict[tuple[str, tuple[tuple[str, str], ...]], Any] = {}


def _build(name: str, spec: _Spec) -> Counter | Histogram | Gauge:
    if spec.kind == "counter":
        return Counter(name, spec.text, spec.labels, registry=REGISTRY)
    if spec.kind == "histogram":
        assert spec.buckets is not None
        return Histogram(name, spec.text, spec.labels, registry=REGISTRY, buckets=spec.buckets)
    mode: Any = spec.multiprocess_mode
    return Gauge(name, spec.text, spec.labels, registry=REGISTRY, multiprocess_mode=mode)


def declare(
    name: str,
    kind: str,
    text: str,
    *,
    labels: Sequence[str] = (),
    buckets: Sequence[float] | None = None,
    multiprocess_mode: str = "livesum",
) -> None:
    """A counter (name it ``..._total``), a histogram of seconds (``buckets``, upper bounds)
    or a gauge, with the label names its samples carry. Declaring a name again replaces it."""
    if kind not in ("counter", "histogram", "gauge"):
        raise ValueError(ERR_KIND.format(name=name, kind=kind))
    spec = _Spec(kind, text, tuple(labels), tuple(buckets) if buckets else None,
                 multiprocess_mode)
    if kind == "histogram" and spec.buckets is None:
        spec = _Spec(kind, text, spec.labels, ALLOCATION_BUCKETS, multiprocess_mode)
    with _lock:
        old = _metrics.pop(name, None)
        if old is not None:
            REGISTRY.unregister(old)
        _specs[name] = spec
        _metrics[name] = _build(name, spec)
        _series.clear()


def _series_of(name: str, labels: dict[str, str]) -> Any:
    key = (name, tuple(labels.items()))
    series = _series.get(key)
    if series is None:
        series = _series[key] = _metrics[name].labels(**labels)
    return series


def inc(name: str, amount: float = 1, **labels: str) -> None:
    """Add to a counter (never negative) or a gauge (either way)."""
    (_series_of(name, labels) if labels else _metrics[name]).inc(amount)


def observe(name: str, seconds: float, **labels: str) -> None:
    """One duration into a histogram."""
    (_series_of(name, labels) if labels else _metrics[name]).observe(seconds)


class _ReadAtScrape:
    """The gauge families read when /metrics is asked. A reader that fails is logged and
    left out of that scrape; the others still answer."""

    def __init__(self) -> None:
        self.readers: dict[str, tuple[str, Read]] = {}

    def collect(self) -> Iterable[Metric]:
        for name, (text, read) in list(self.readers.items()):
            family = GaugeMetricFamily(name, text)
            try:
                for labels, value in read():
                    family.add_sample(name, labels, float(value))
            except Exception:
                logger.exception("metrics: reading %s failed; left out of this scrape", name)
                continue
            yield family


_read_at_scrape = _ReadAtScrape()
REGISTRY.register(_read_at_scrape)


def gauge(name: str, text: str, read: Read) -> None:
    """A gauge family whose samples ``read()`` answers when /metrics is asked:
    ``(labels, value)`` pairs, the label names chosen by the reader."""
    _read_at_scrape.readers[name] = (text, read)


def render() -> str:
    """The Prometheus text format (0.0.4): this process's metrics, or with a shared directory
    every process's counters, histograms and gauges added up, plus the families read now."""
    if MULTIPROC_DIR is None:
        return generate_latest(REGISTRY).decode()
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry, path=MULTIPROC_DIR)
    registry.register(_read_at_scrape)
    return generate_latest(registry).decode()


def reset() -> None:
    """Tests start from zero: every declared metric is made again, empty (one process only:
    with a shared directory the files keep their values)."""
    with _lock:
        for name, spec in _specs.items():
            REGISTRY.unregister(_metrics[name])
            _metrics[name] = _build(name, spec)
        _series.clear()


# -- quotaweb's metrics ---------------------------------------------------------------------------
# Declared here, all of them, so every process exports the same names whatever it imported (the
# dashboard, docs/grafana-dashboard.json, relies on them). Counted by the allocation services,
# config apply, quota tree services, the broadcaster and the live socket. The engine figures
# (quotaweb_live_allocations, quotaweb_tracked_users, quotaweb_elastic_quota,
# quotaweb_tree_node) are ``gauge`` families read at scrape time: see quotaweb.core.selectors.

declare("quotaweb_allocations_total", "counter", "Allocations accepted.")
declare("quotaweb_denials_total", "counter", "Allocations denied, by reason.", labels=("reason",))
declare("quotaweb_releases_total", "counter", "Allocations released.")
declare(
    "quotaweb_history_denials_dropped_total", "counter",
    "Denials left out of the history: its background writer's queue was full, or its write "
    "failed.",
)
declare(
    "quotaweb_ownership_changes_total", "counter",
    "Units (partitions, the quota trees) this peer took, handed on, or lost to another peer "
    "(PostgreSQL leases), by change: took, gave, lost.",
    labels=("change",),
)
declare(
    "quotaweb_forwarded_requests_total", "counter",
    "Requests this peer passed to the partition's owner (PostgreSQL leases), by kind (allocate, "
    "batch, release, api, yunikorn, page) and outcome (answered: the owner's answer relayed; "
    "moving: no owner within the bound; unreachable: the owner did not answer).",
    labels=("kind", "outcome"),
)
declare(
    "quotaweb_forward_seconds", "histogram",
    "Time from a forwarded request's arrival to its answer (waits for a moving partition "
    "included), by kind.",
    labels=("kind",), buckets=ALLOCATION_BUCKETS,
)
declare(
    "quotaweb_allocation_seconds", "histogram",
    "Time to answer an allocation request (engine step and ledger write), by operation: "
    "allocate, release, application_release (all of an application), batch (a whole batch).",
    labels=("operation",), buckets=ALLOCATION_BUCKETS,
)
declare(
    "quotaweb_config_apply_seconds", "histogram",
    "Accepted configuration changes (stored, rows written, engines switched) and their time.",
    buckets=CONFIG_APPLY_BUCKETS,
)
declare(
    "quotaweb_live_push_seconds", "histogram",
    "Live updates: time from the broadcaster reading a partition's changes to each update "
    "handed to the channel layer (a change waits up to one interval, 0.2 s, for that read).",
    buckets=PUSH_BUCKETS,
)
declare(
    "quotaweb_websocket_clients", "gauge",
    "Live usage sockets open (accepted, not yet closed), over all processes.",
    multiprocess_mode="livesum",
)
declare(
    "quotaweb_tree_allocations_total", "counter",
    "Quota tree allocations by tree and outcome (allocated, forced, rejected).",
    labels=("tree", "outcome"),
)
declare(
    "quotaweb_tree_preemptions_total", "counter",
    "Consumers preempted on a quota tree, by tree and the node they lost.",
    labels=("tree", "node"),
)


def _process_gone() -> None:
    # Drops this process's "live" gauges (livesum, liveall...) from the shared directory.
    if MULTIPROC_DIR is not None:
        _multiprocess.mark_process_dead(os.getpid(), MULTIPROC_DIR)


atexit.register(_process_gone)
