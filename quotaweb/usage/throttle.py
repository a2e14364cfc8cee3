"""How often one live socket may ask for snapshots (``subscribe`` and ``resync``).

A snapshot of a large scope is hundreds of kilobytes built from the engine: a viewer sending
``resync`` in a loop made the server build one 56 times a second. Each socket has a bucket of
``QUOTAWEB_SOCKET_SNAPSHOT_BURST`` requests, refilled at ``QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE``;
a request with the bucket empty is refused with the seconds until the next one is allowed. The
burst lets a page subscribe all its scopes at once; the page's own resyncs (a gap in an
update's numbers, a snapshot late by seconds, with backoff) stay well below the rate.
"""

from __future__ import annotations


class SnapshotAllowance:
    """A token bucket: ``burst`` requests at once, ``per_minute`` more each minute."""

    def __init__(self, *, burst: int, per_minute: int, now: float) -> None:
        self.burst, self.rate = burst, per_minute / 60.0
        self.tokens, self.at = float(burst), now

    def take(self, now: float) -> float:
        """0 when a request is allowed now (and counted); else the seconds until one is."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate
