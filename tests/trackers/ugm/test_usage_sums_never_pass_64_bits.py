"""Usage is summed in 64 bits, as the contract says (docs/api.md): an increase whose sum would
pass 2^63-1 anywhere (the user's, the group's, any queue's up to the root) is denied with the
reason ``resourceOverflow``, naming the resource, and changes nothing at all."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trackers.ugm.support import lim, make_engine, snapshot
from trackers.resources import INT64_MAX
from trackers.ugm.decision import RESOURCE_OVERFLOW
from trackers.ugm.engine import ERR_OVERFLOW


def _engine():
    # A group limit, so that allocations count against ``ml`` and its tracker sums too.
    return make_engine(limits={"root": [lim(groups=["ml"], apps=1000)]})


def _sums(engine) -> list[int]:
    """Every amount any user, group or queue node holds."""
    found: list[int] = []

    def walk(item):
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("resourceUsage", "maxResources") and isinstance(value, dict):
                    found.extend(value.values())
                else:
                    walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk([engine.users_usage(), engine.groups_usage(), engine.queues_usage()])
    return found


def test_three_largest_vcores_are_two_admitted_and_the_third_denied_naming_vcore():
    engine = _engine()
    first = engine.increase("root.a", "app-1", "alice", ["ml"], {"vcore": INT64_MAX})
    assert first.allowed
    before = snapshot(engine)
    denied = engine.increase("root.b", "app-2", "bob", ["ml"], {"vcore": INT64_MAX})
    assert (denied.allowed, denied.reason) == (False, RESOURCE_OVERFLOW)
    assert denied.message == ERR_OVERFLOW.format(
        kind="vcore", total=2 * INT64_MAX, root="root", used=INT64_MAX, amount=INT64_MAX
    )
    assert snapshot(engine) == before
    assert set(_sums(engine)) == {INT64_MAX}
    # What fits exactly is still admitted: the sum may reach 2^63-1, never pass it.
    assert engine.increase("root.b", "app-2", "bob", ["ml"], {"vcore": 0, "memory": 1}).allowed


def test_an_amount_above_64_bits_is_refused_as_invalid_before_anything():
    from trackers import InvalidRequest

    engine = _engine()
    with pytest.raises(InvalidRequest, match="vcore"):
        engine.increase("root.a", "app-1", "alice", [], {"vcore": INT64_MAX + 1})
    assert _sums(engine) == []


_AMOUNTS = st.one_of(st.integers(0, 3), st.sampled_from([INT64_MAX, INT64_MAX - 1, 2**62]))
_REQUESTS = st.lists(
    st.tuples(
        st.sampled_from(["root.a", "root.b", "root.parent.child1", "root.parent.leaf"]),
        st.sampled_from(["app-1", "app-2", "app-3"]),
        st.sampled_from(["alice", "bob"]),
        st.sampled_from([[], ["ml"], ["other"]]),
        st.fixed_dictionaries({}, optional={"vcore": _AMOUNTS, "memory": _AMOUNTS}),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(requests=_REQUESTS)
def test_no_sum_ever_passes_64_bits_and_a_denied_increase_changes_nothing(requests):
    engine = _engine()
    for queue, app, user, groups, resource in requests:
        before = snapshot(engine)
        decision = engine.increase(queue, app, user, groups, resource)
        if decision.reason == RESOURCE_OVERFLOW:
            assert snapshot(engine) == before
            assert decision.message.split()[1] in resource
        assert all(0 <= amount <= INT64_MAX for amount in _sums(engine)), decision.message
