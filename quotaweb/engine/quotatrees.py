"""The quota trees of this process (``trackers.quotatree``), owned like the engines.

One ``QuotaManager`` holds every tree and forest. It is made at start-up from what is stored
(``quotaweb.quotatrees.services.trees_restore``), never at import time, and forgotten with the
engines (``engines_reset``). Every change goes through ``TreesSlot.lock``: the manager changes,
the database stores the placements it reports, and only then is the change answered, so a
crash never loses an acknowledged allocation. If the store fails, the trees it touched are
rebuilt from what is stored (which the failed transaction left as it was).

Lock order (``quotaweb.engine.gateway``): the quota-tree lock ranks with a partition lock (one of
them at a time), then the database transaction, then the manager's own lock.

Each tree has a change number (``generation``) that live views follow, and the process keeps
the recent preemptions and decisions in a feed (``events``) with consecutive sequence numbers.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from trackers.quotatree import QuotaManager

EVENTS_KEPT = 5_000

ERR_TREES_NOT_LOADED = "the quota trees are still loading; try again in a moment"


class TreesNotLoaded(RuntimeError):
    def __init__(self) -> None:
        super().__init__(ERR_TREES_NOT_LOADED)


@dataclass
class TreesSlot:
    manager: QuotaManager
    lock: threading.RLock = field(default_factory=threading.RLock)
    generations: dict[str, int] = field(default_factory=dict)
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))
    seq: int = 0
    # The lease epoch of the quota trees on PostgreSQL peers: their stored changes are fenced
    # with it (0 without leases).
    epoch: int = 0

    def touched(self, trees: Iterable[str]) -> None:
        """Trees whose state changed: their live views update."""
        for tree in trees:
            self.generations[tree] = self.generations.get(tree, 0) + 1

    def generation(self, tree: str) -> int:
        return self.generations.get(tree, 0)

    def record(self, event: dict[str, Any]) -> dict[str, Any]:
        """Add an event to the feed (numbered, timed) and answer it."""
        self.seq += 1
        stamped = {"seq": self.seq, "at": time.time(), **event}
        self.events.append(stamped)
        return stamped

    def events_after(self, seq: int, *, tree: str | None = None) -> list[dict[str, Any]]:
        return [
            event for event in self.events
            if event["seq"] > seq and (tree is None or tree in event.get("trees", ()))
        ]


_slot: TreesSlot | None = None
_swap_lock = threading.Lock()


def trees_load(manager: QuotaManager, *, epoch: int = 0) -> TreesSlot:
    """Make ``manager`` this process's quota trees (start-up, or the trees' lease taken at
    ``epoch``)."""
    global _slot
    slot = TreesSlot(manager, epoch=epoch)
    with _swap_lock:
        _slot = slot
    return slot


def trees_get() -> TreesSlot:
    slot = _slot
    if slot is None:
        raise TreesNotLoaded
    return slot


def trees_loaded() -> bool:
    return _slot is not None


def trees_reset() -> None:
    global _slot
    with _swap_lock:
        _slot = None
