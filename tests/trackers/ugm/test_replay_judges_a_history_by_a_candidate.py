"""What-if replay (issue 30): a history asked again of a candidate config, answer by answer.

The histories here are made the way the product makes them: a real engine of the config then
answers each request, and what it answered is what the history records.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trackers.reference_model import MEMBER_GROUPS, REQUEST_PATHS, USERS, configs
from tests.trackers.ugm.support import M, lim, partition_for
from trackers import Engine
from trackers.config.model import Partition
from trackers.ugm.decision import GROUP_QUOTA, MAX_APPLICATIONS, USER_QUOTA
from trackers.ugm.replay import HOUR, Held, Release, Request, replay

Asked = tuple[str, str, str, str, tuple[str, ...], dict[str, int]]  # key, queue, app, user, ...


def history_of(partition: Partition, steps: Iterable[Asked | str]) -> list[Request | Release]:
    """Run ``steps`` (a request, or the key of one to release) through an engine of
    ``partition`` and record them as the product would: each request with what it was
    answered, a release only of what is held. One step a minute."""
    engine = Engine(partition)
    held: dict[str, Request] = {}
    apps: dict[str, int] = {}
    events: list[Request | Release] = []
    for minute, step in enumerate(steps):
        at = 1_700_000_000 + 60 * minute
        if isinstance(step, str):
            request = held.pop(step, None)
            if request is None:
                continue
            apps[request.app_id] -= 1
            last = apps[request.app_id] == 0
            engine.decrease(request.queue_path, request.app_id, request.user,
                            dict(request.resource), remove_app=last)
            events.append(Release(at, step))
            continue
        key, queue, app, user, groups, resource = step
        if key in held:
            continue
        decision = engine.increase(queue, app, user, list(groups), dict(resource))
        request = Request(key, queue, app, user, groups, resource, at=at,
                          admitted=decision.allowed, reason=decision.reason,
                          group=decision.group)
        events.append(request)
        if decision.allowed:
            held[key] = request
            apps[app] = apps.get(app, 0) + 1
    return events


def asked(key: str, user: str = "alice", memory: int = 10, *, app: str | None = None,
          queue: str = "root.a", groups: tuple[str, ...] = ()) -> Asked:
    return key, queue, app or f"app-{key}", user, groups, M(memory)


def test_a_tightened_user_limit_refuses_exactly_the_requests_that_crossed_it():
    loose = partition_for(limits={"root": [lim(users=["alice"], res=M(100))]})
    tight = partition_for(limits={"root": [lim(users=["alice"], res=M(25))]})
    # alice holds 10, 20 (30 > 25: crossed), then 10 more after releasing the first two.
    history = history_of(loose, [
        asked("a1"), asked("a2", memory=20), asked("b1", user="bob", memory=90),
        "a1", "a2", asked("a3"),
    ])

    report = replay(tight, history)

    assert report.requests == 4
    assert report.releases == 2
    assert report.newly_denied.count == 1
    (example,) = report.newly_denied.examples
    assert example.request.key == "a2"
    assert example.reason == USER_QUOTA
    assert report.newly_denied.by["user"] == {"alice": 1}
    assert report.newly_admitted.count == 0
    assert report.unchanged == 3


def test_a_refused_request_frees_its_room_for_the_ones_after_it():
    loose = partition_for(limits={"root": [lim(users=["alice"], res=M(100))]})
    tight = partition_for(limits={"root": [lim(users=["alice"], res=M(30))]})
    # Under the candidate the 25 is refused, so the 20 after it fits.
    history = history_of(loose, [asked("a1", memory=10), asked("a2", memory=25),
                                 asked("a3", memory=20)])

    report = replay(tight, history)

    assert [e.request.key for e in report.newly_denied.examples] == ["a2"]
    assert report.unchanged == 2


def test_a_loosened_group_limit_admits_exactly_the_denied_ones_that_fit():
    tight = partition_for(limits={"root": [lim(groups=["dev"], res=M(30))]})
    loose = partition_for(limits={"root": [lim(groups=["dev"], res=M(50))]})
    dev = ("dev",)
    history = history_of(tight, [
        asked("d1", memory=20, groups=dev),
        asked("d2", user="bob", memory=20, groups=dev),  # 40 > 30: denied; fits 50
        asked("d3", user="carol", memory=40, groups=dev),  # 60 > 30; 60 > 50 too
    ])
    assert [e.admitted for e in history] == [True, False, False]

    report = replay(loose, history)

    assert report.newly_admitted.count == 1
    (example,) = report.newly_admitted.examples
    assert example.request.key == "d2"
    # Counted by the reason it was denied for then.
    assert report.newly_admitted.by["reason"] == {GROUP_QUOTA: 1}
    assert report.newly_admitted.by["group"] == {"dev": 1}
    assert report.newly_denied.count == 0


def test_an_application_cap_refuses_the_applications_past_it():
    open_ = partition_for(limits={"root": [lim(users=["alice"], res=M(1000))]})
    capped = partition_for(limits={"root": [lim(users=["alice"], res=M(1000), apps=2)]})
    history = history_of(open_, [
        asked("k1", app="one"), asked("k2", app="two"), asked("k3", app="two"),
        asked("k4", app="three"),  # a third application running at once
        "k1", asked("k5", app="four"),  # "one" ended: room for another
    ])

    report = replay(capped, history)

    assert [(e.request.key, e.reason) for e in report.newly_denied.examples] == [
        ("k4", MAX_APPLICATIONS)
    ]
    assert report.unchanged == 4


def test_differences_are_counted_by_hour_and_examples_are_capped_per_reason():
    loose = partition_for(limits={"root": [lim(users=["alice"], res=M(10_000))]})
    tight = partition_for(limits={"root": [lim(users=["alice"], res=M(5))]})
    history = history_of(loose, [asked(f"k{n}", memory=10) for n in range(90)])

    report = replay(tight, history, examples_per_reason=3)

    assert report.newly_denied.count == 90
    assert len(report.newly_denied.examples) == 3
    hours = report.newly_denied.by["hour"]
    assert sum(hours.values()) == 90
    assert len(hours) == 2
    assert all(hour % HOUR == 0 for hour in hours)


def test_progress_is_reported_and_can_cancel():
    partition = partition_for(limits={"root": [lim(users=["alice"], res=M(10_000))]})
    history = history_of(partition, [asked(f"k{n}", memory=1) for n in range(100)])
    seen: list[int] = []

    def progress(done: int) -> bool:
        seen.append(done)
        return done < 40

    report = replay(partition, history, progress=progress, progress_every=20)

    assert report.cancelled
    assert seen == [20, 40]
    assert report.requests == 40


steps = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from([f"k{n}" for n in range(12)]),
            st.sampled_from(REQUEST_PATHS),
            st.sampled_from(["app1", "app2", "app3", "app4"]),
            st.sampled_from(USERS),
            st.lists(st.sampled_from(MEMBER_GROUPS), unique=True, max_size=2).map(tuple),
            st.fixed_dictionaries({}, optional={
                "memory": st.integers(0, 4), "vcore": st.sampled_from([0, 500, 1000, 3000]),
            }),
        ),
        st.sampled_from([f"k{n}" for n in range(12)]),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(config=configs(), steps=steps)
def test_replaying_a_history_against_the_config_that_made_it_changes_nothing(config, steps):
    partition = partition_for(config.yaml)
    history = history_of(partition, steps)

    report = replay(partition, history)

    assert report.newly_denied.count == 0, report.newly_denied.examples
    assert report.newly_admitted.count == 0, report.newly_admitted.examples
    assert report.invalid == 0
    assert report.unchanged == report.requests == sum(isinstance(e, Request) for e in history)


def test_allocations_held_when_the_period_starts_count_against_the_candidate():
    loose = partition_for(limits={"root": [lim(users=["alice"], res=M(100))]})
    tight = partition_for(limits={"root": [lim(users=["alice"], res=M(30))]})
    # alice already held 25 before the period; then asks for 10 (35 > 30), releases the 25,
    # and asks for 10 again (fits either way).
    before = Held("old", "root.a", "app-old", "alice", (), M(25))
    during = history_of(loose, [asked("old-twin", memory=25), asked("a1"), "old-twin",
                                asked("a2")])[1:]
    during = [Release(e.at, "old") if isinstance(e, Release) else e for e in during]

    report = replay(tight, [before, *during])

    assert report.held == 1
    assert [e.request.key for e in report.newly_denied.examples] == ["a1"]
    assert report.unchanged == 1
