"""Trials: allocations made to be looked at, undoable until something else moves their trees.

A trial keeps the journal of its allocation. Undoing it replays that journal, which is exact only
while nothing else has changed the trees it touched since: any later change to one of them drops
every trial on it, and an undo of a dropped trial is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trackers.quotatree.journal import Journal
from trackers.quotatree.tree import QuotaTree

# ("tree" or "forest", its name, the consumer's id)
TrialKey = tuple[str, str, str]


@dataclass
class Trial:
    key: TrialKey
    journal: Journal
    trees: tuple[QuotaTree, ...]


class Trials:
    """The pending trials, by key and by each tree they touched. Not thread-safe: the quota
    manager calls it under its own lock."""

    def __init__(self) -> None:
        self._by_key: dict[TrialKey, Trial] = {}
        self._by_tree: dict[str, set[TrialKey]] = {}

    def get(self, key: TrialKey) -> Trial | None:
        return self._by_key.get(key)

    def keep(self, key: TrialKey, journal: Journal, trees: tuple[QuotaTree, ...]) -> None:
        """Remember a new trial, in place of an earlier one of the same key."""
        self.forget(key)
        self._by_key[key] = Trial(key, journal, trees)
        for tree in trees:
            self._by_tree.setdefault(tree.name, set()).add(key)

    def forget(self, key: TrialKey) -> None:
        trial = self._by_key.pop(key, None)
        if trial is not None:
            for tree in trial.trees:
                self._by_tree.get(tree.name, set()).discard(key)

    def drop_trees(self, names: Iterable[str]) -> None:
        """The trees were changed: no trial on them can be undone any more."""
        for name in names:
            for key in self._by_tree.pop(name, ()):
                self.forget(key)

    def drop_forest(self, forest: str) -> None:
        for key in [key for key in self._by_key if key[0] == "forest" and key[1] == forest]:
            self.forget(key)
