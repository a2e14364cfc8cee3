"""What an operation changed, read off its journal: the placements whose spot moved.

The Django side stores exactly these (``PlacementChange``), so a consumer that left and came
back to the same spot within one operation is no change at all.
"""

from __future__ import annotations

from trackers.quotatree.journal import Journal, Spot
from trackers.quotatree.results import PlacementChange
from trackers.quotatree.tree import Placement


def changes_since(journal: Journal) -> list[PlacementChange]:
    """The placements whose spot differs from before the journal's operation."""
    changes = []
    for p, before in journal.first_spot.items():
        assert isinstance(p, Placement)
        if p.spot != before:
            after = _spot(p)
            if after != before:
                changes.append(_change(p, after))
    return changes


def changes_of_rollback(journal: Journal) -> list[PlacementChange]:
    """Roll the journal back; the placements that moved doing so."""
    placements = touched(journal)
    now = {p: _spot(p) for p in placements}
    journal.rollback()
    changes = []
    for p, before in now.items():
        after = _spot(p)
        if after != before:
            changes.append(_change(p, after))
    return changes


def touched(journal: Journal) -> list[Placement]:
    """Every placement the journal's operation touched, moved or not."""
    found = []
    for p in journal.first_spot:
        assert isinstance(p, Placement)
        found.append(p)
    return found


def _spot(p: Placement) -> Spot:
    # A consumer that left its tree has no spot, even if its object is reused later.
    return p.spot if p.tree.placements.get(p.id) is p else None


def _change(p: Placement, after: Spot) -> PlacementChange:
    return PlacementChange(
        p.tree.name, p.id, after[0] if after else None, after[1] if after else None,
        p.request if after else None,
    )
