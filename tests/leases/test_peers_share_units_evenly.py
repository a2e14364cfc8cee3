"""The balance rule (``leases.balance``): every peer decides alone from the same lease table,
and together they reach ``floor`` or ``floor + 1`` units each without handing a unit back and
forth."""

from __future__ import annotations

from quotaweb.leases.balance import balance_plan

UNITS = ["a", "b", "c", "d", "e", "f", "quota-trees"]


def _settle(peers: list[str], owners: dict[str, str | None], rounds: int = 20) -> dict:
    """Rounds of every peer in turn, each acting on the table as the previous left it."""
    for _ in range(rounds):
        for peer in peers:
            plan = balance_plan(me=peer, units=UNITS, owners=owners, live=peers)
            for unit in plan.give:
                owners[unit] = None
            for unit in plan.take:
                if owners.get(unit) is None:
                    owners[unit] = peer
    return owners


def _counts(owners: dict[str, str | None], peers: list[str]) -> list[int]:
    return sorted(sum(1 for owner in owners.values() if owner == peer) for peer in peers)


def test_a_lone_peer_takes_every_unit():
    plan = balance_plan(me="p1", units=UNITS, owners={}, live=["p1"])
    assert sorted(plan.take) == sorted(UNITS)
    assert plan.give == []


def test_a_peer_that_joins_gets_its_share_from_the_one_that_held_everything():
    owners: dict[str, str | None] = dict.fromkeys(UNITS, "p1")
    assert balance_plan(me="p2", units=UNITS, owners=owners, live=["p1", "p2"]).take == []
    assert len(balance_plan(me="p1", units=UNITS, owners=owners, live=["p1", "p2"]).give) == 1

    settled = _settle(["p1", "p2"], owners)
    assert _counts(settled, ["p1", "p2"]) == [3, 4]
    assert None not in settled.values()


def test_three_peers_spread_seven_units_two_two_three():
    settled = _settle(["p1", "p2", "p3"], dict.fromkeys(UNITS, "p1"))
    assert _counts(settled, ["p1", "p2", "p3"]) == [2, 2, 3]


def test_a_dead_peers_units_are_shared_by_the_survivors():
    owners: dict[str, str | None] = {
        "a": "p1", "b": "p1", "c": "p2", "d": "p2", "e": "p3", "f": "p3", "quota-trees": "p1",
    }
    # p3 died: the survey reports its units free.
    owners.update(e=None, f=None)
    settled = _settle(["p1", "p2"], owners)
    assert _counts(settled, ["p1", "p2"]) == [3, 4]
    assert None not in settled.values()


def test_a_balanced_spread_is_left_alone():
    owners: dict[str, str | None] = {
        "a": "p1", "b": "p1", "c": "p2", "d": "p2", "e": "p3", "f": "p3", "quota-trees": "p1",
    }
    for peer in ("p1", "p2", "p3"):
        plan = balance_plan(me=peer, units=UNITS, owners=owners, live=["p1", "p2", "p3"])
        assert (plan.take, plan.give) == ([], [])


def test_a_peer_at_its_floor_does_not_take_a_unit_a_short_peer_needs():
    # p1 handed "f" on for p3, which holds one unit (floor 2): p2, already at 2, leaves it.
    owners: dict[str, str | None] = {
        "a": "p1", "b": "p1", "c": "p2", "d": "p2", "e": "p3", "f": None, "quota-trees": "p1",
    }
    assert balance_plan(me="p2", units=UNITS, owners=owners, live=["p1", "p2", "p3"]).take == []
    assert balance_plan(me="p3", units=UNITS, owners=owners, live=["p1", "p2", "p3"]).take == ["f"]
