"""The Decision of an increase: ``reason`` values, their order when several checks fail, ``group``
and a ``message`` that names who, where and which limit (spec 2.2, 2.5, brief API)."""

from __future__ import annotations

import itertools

import pytest

from tests.trackers.ugm.support import M, lim, make_engine, qconf
from trackers import REASONS, Decision

ORDER = [
    "maxApplications", "queueMaxApplications", "userQuota", "groupQuota", "queueQuota",
    "elasticQuota",
]
ALL_SUBSETS = [
    frozenset(combo)
    for size in range(1, len(ORDER) + 1)
    for combo in itertools.combinations(ORDER, size)
]


def test_reason_names_are_the_documented_ones():
    # resourceOverflow is checked after every cap (tests/trackers/ugm/
    # test_usage_sums_never_pass_64_bits.py): a request over a cap is denied for that cap.
    assert set(REASONS) == {*ORDER, "resourceOverflow"}


def engine_failing(failing: frozenset):
    """alice [dev] already runs app "old" in root.a; a new app asking memory 20 fails exactly the
    checks in ``failing``."""
    alice_apps = 1 if "maxApplications" in failing else 0
    alice_mem = 10 if "userQuota" in failing else 0
    dev_mem = 10 if "groupQuota" in failing else 0
    queue_apps = 1 if "queueMaxApplications" in failing else 0
    queue_mem = 10 if "queueQuota" in failing else 0
    # the group entry always exists (so the app resolves to dev); when it must not fail it only
    # caps a type the request does not ask for
    limits = [lim(groups=["dev"], res=M(dev_mem) if dev_mem else {"gpu": 5})]
    if alice_apps or alice_mem:
        limits.insert(
            0, lim(users=["alice"], res=M(alice_mem) if alice_mem else None, apps=alice_apps)
        )
    engine = make_engine(
        limits={"root.a": limits},
        queues={"root.a": qconf(max=M(queue_mem) if queue_mem else None, apps=queue_apps)},
    )
    assert engine.increase("root.a", "old", "alice", ["dev"], {}).allowed
    # elastic quota is enforced in every case; it fails only when its runtime is too small
    engine.set_elastic_runtimes({"root.a": M(10 if "elasticQuota" in failing else 1000)})
    return engine


@pytest.mark.parametrize("failing", ALL_SUBSETS, ids=lambda s: "+".join(sorted(s)))
def test_first_failing_check_in_order_is_reported(failing):
    engine = engine_failing(failing)
    decision = engine.increase("root.a", "new", "alice", ["dev"], M(20))
    expected = next(reason for reason in ORDER if reason in failing)
    assert not decision.allowed
    assert decision.reason == expected
    assert decision.group == "dev"
    assert isinstance(decision.message, str)
    assert decision.message


@pytest.mark.parametrize("failing", ALL_SUBSETS, ids=lambda s: "+".join(sorted(s)))
def test_a_running_app_is_only_checked_on_resources(failing):
    engine = engine_failing(failing)
    decision = engine.increase("root.a", "old", "alice", ["dev"], M(20))
    resource_reasons = [r for r in ORDER[2:] if r in failing]
    if resource_reasons:
        assert decision.reason == resource_reasons[0]
    else:
        assert decision.allowed


def test_nothing_failing_is_allowed():
    engine = engine_failing(frozenset())
    decision = engine.increase("root.a", "new", "alice", ["dev"], M(20))
    assert isinstance(decision, Decision)
    assert decision.allowed is True
    assert decision.reason is None
    assert decision.group == "dev"


@pytest.mark.parametrize(
    ("failing", "words"),
    [
        ("maxApplications", ["alice", "root.a"]),
        ("queueMaxApplications", ["root.a"]),
        ("userQuota", ["alice", "root.a"]),
        ("groupQuota", ["dev", "root.a"]),
        ("queueQuota", ["root.a"]),
        ("elasticQuota", ["root.a", "runtime", "used", "memory"]),
    ],
)
def test_message_names_who_and_where(failing, words):
    engine = engine_failing(frozenset([failing]))
    message = engine.increase("root.a", "new", "alice", ["dev"], M(20)).message
    for word in words:
        assert word in message, message


def test_group_app_cap_is_reported_as_max_applications_naming_the_group():
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=1)]})
    assert engine.increase("root.a", "a1", "bob", ["dev"], {}).allowed
    decision = engine.increase("root.a", "a2", "alice", ["dev"], {})
    assert decision.reason == "maxApplications"
    assert "dev" in decision.message


def test_user_quota_message_carries_the_numbers():
    engine = make_engine(limits={"root.parent": [lim(users=["alice"], res=M(100))]})
    engine.increase("root.parent.leaf", "a1", "alice", [], M(70))
    message = engine.increase("root.parent.leaf", "a1", "alice", [], M(45)).message
    assert "alice" in message
    assert "root.parent" in message
    assert "memory" in message
    assert "45" in message or "30" in message or "100" in message


@pytest.mark.parametrize(
    ("groups", "expected"), [([], None), (["qa"], None), (["dev"], "dev"), (["qa", "dev"], "dev")]
)
def test_allowed_decision_reports_the_group(groups, expected):
    engine = make_engine(limits={"root": [lim(groups=["dev"], apps=3)]})
    decision = engine.increase("root.a", "a1", "alice", groups, M(1))
    assert decision.allowed
    assert decision.group == expected
