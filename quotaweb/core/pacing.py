"""The steady rate the demo's smaller simulators (elastic demand, quota-tree consumers) keep."""

from __future__ import annotations

from collections.abc import Iterator


class Pace:
    """Operations due at ``rate`` per second on a steady clock.

    The first is due one interval after the first look, so a server stopped at once (a failed
    bind, a test) never writes; after a stall the pace resumes at the rate instead of making
    up for it in a flood."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next_at: float | None = None

    def due(self, now: float) -> Iterator[None]:
        """One item per operation due by ``now``."""
        if self.next_at is None:
            self.next_at = now + self.interval
        while self.next_at <= now:
            self.next_at += self.interval
            yield
            if now - self.next_at > 1.0:
                self.next_at = now
