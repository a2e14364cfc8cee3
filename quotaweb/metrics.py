"""Counters and timings of this process, rendered in the Prometheus text format at /metrics.

Deliberately small (no client library in the stack): counters with labels and summaries of
durations (count and sum), safe to bump from any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_lock = threading.Lock()
_counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
_help: dict[str, tuple[str, str]] = {}
_gauges: dict[str, Callable[[], list[tuple[dict[str, str], float]]]] = {}


def declare(name: str, kind: str, text: str) -> None:
    _help[name] = (kind, text)


def inc(name: str, amount: float = 1, **labels: str) -> None:
    key = (name, tuple(sorted(labels.items())))
    with _lock:
        _counters[key] = _counters.get(key, 0) + amount


def observe(name: str, seconds: float, **labels: str) -> None:
    inc(f"{name}_count", 1, **labels)
    inc(f"{name}_sum", seconds, **labels)


def gauge(name: str, read: Callable[[], list[tuple[dict[str, str], float]]]) -> None:
    """A value read when /metrics is asked (the number of live allocations, say)."""
    _gauges[name] = read


def _labels(labels: tuple[tuple[str, str], ...] | dict[str, str]) -> str:
    pairs = labels.items() if isinstance(labels, dict) else labels
    if not pairs:
        return ""
    escaped = (
        f'{key}="{str(value).replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for key, value in pairs
    )
    return "{" + ",".join(escaped) + "}"


def _family(name: str) -> str:
    """``apply_seconds_count`` belongs to the summary ``apply_seconds``."""
    for suffix in ("_count", "_sum"):
        base = name.removesuffix(suffix)
        if base != name and _help.get(base, ("",))[0] == "summary":
            return base
    return name


def render() -> str:
    with _lock:
        counters = dict(_counters)
    samples: dict[str, list[str]] = {}
    for (name, labels), value in sorted(counters.items()):
        samples.setdefault(_family(name), []).append(f"{name}{_labels(labels)} {value:g}")
    for name, read in _gauges.items():
        samples.setdefault(name, []).extend(
            f"{name}{_labels(labels)} {value:g}" for labels, value in read()
        )
    lines: list[str] = []
    for family in sorted(samples):
        if family in _help:
            kind, text = _help[family]
            lines += [f"# HELP {family} {text}", f"# TYPE {family} {kind}"]
        lines += samples[family]
    return "\n".join(lines) + "\n"


def reset() -> None:
    """Tests start from zero."""
    with _lock:
        _counters.clear()
