"""The undo log every mutating operation writes, and the placement changes it adds up to.

Each primitive change to a tree (a consumer attached to or detached from a node, an allocated
vector changed, a consumer registered or dropped, its reasons replaced) appends the call that
takes it back. Rolling back replays those calls newest first, so a rejected allocation, a failed
phase-1 attempt, a failed forest allocation and an undone trial all return to the exact prior
state: the same allocated vectors, the same consumers at each node in the same order (a consumer
put back keeps its old ordering stamp, which places it where it was).

The journal also remembers, for each consumer it saw, where it was before the operation, so the
operation can report which placements changed (what the Django side must store).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Where a consumer sits in one tree: (aNode name, ordering stamp), or None when not placed.
Spot = tuple[str, int] | None


class Journal:
    """An append-only list of undo calls, with marks for partial rollback."""

    __slots__ = ("entries", "first_spot")

    def __init__(self) -> None:
        self.entries: list[tuple[Callable[..., object], tuple[Any, ...]]] = []
        # placement object -> its spot before this journal first touched it
        self.first_spot: dict[object, Spot] = {}

    def record(self, undo: Callable[..., object], *args: Any) -> None:
        self.entries.append((undo, args))

    def touch(self, placement: object, spot: Spot) -> None:
        """Remember ``placement``'s spot before its first change in this journal."""
        if placement not in self.first_spot:
            self.first_spot[placement] = spot

    def mark(self) -> int:
        return len(self.entries)

    def rollback(self, mark: int = 0) -> None:
        """Undo everything recorded after ``mark``, newest first."""
        entries = self.entries
        while len(entries) > mark:
            undo, args = entries.pop()
            undo(*args)

    def __len__(self) -> int:
        return len(self.entries)
