"""What-if replay: a period's history run again through a fresh engine of a candidate config.

Every request of the history is asked again, in its original order, of an engine built from the
candidate; a release releases only what the replay itself admitted. Each answer is compared
with what happened:

- *newly denied*: admitted then, denied by the candidate. The replay does not hold it, so it
  frees room for the requests after it, as it would have.
- *newly admitted*: denied then, fits the candidate at that moment. The replay does not hold
  it either: how long it would have run is unknown (the history has no release for it), and
  holding it for ever would deny everything after it. A request denied then and asked again
  later under the same key is judged again each time.

What a replay cannot know: a denied scheduler retries, so work refused here would mostly have
run later, and work admitted here would have changed what came after it. The figures answer
"which of the requests that really came would this config have refused", not "what would the
cluster have done".

Pure and single-threaded: the engine is this replay's own, so nothing is shared with a serving
engine. Memory is the live set of the replay plus the tallies and a few examples per reason,
whatever the length of the history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from trackers.config.model import Partition
from trackers.errors import InvalidRequest
from trackers.ugm.engine import CompiledConfig, Engine

HOUR = 3600
# The dimensions each difference is counted by.
BY = ("reason", "user", "group", "queue", "hour")


@dataclass(frozen=True, slots=True)
class Allocation:
    key: str
    queue_path: str
    app_id: str
    user: str
    groups: tuple[str, ...]
    resource: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Held(Allocation):
    """An allocation already held when the period starts: taken into the replay's engine as it
    stood, never judged (usage that exists is never refused, as at a restart), and released by
    its release if that comes within the period. These come before every other event."""


@dataclass(frozen=True, slots=True)
class Request(Allocation):
    """An allocation as it was asked for at ``at`` (seconds since the epoch), and what was
    answered then: ``admitted``, or the denial's ``reason``; ``group``, the group it counted
    against."""

    at: float
    admitted: bool
    reason: str | None = None
    group: str | None = None


@dataclass(frozen=True, slots=True)
class Release:
    at: float
    key: str


Event = Request | Release | Held


@dataclass(frozen=True, slots=True)
class Example:
    """One request whose answer changed: the request, and the candidate's answer."""

    request: Request
    reason: str | None
    message: str


@dataclass
class Differences:
    """Requests whose answer changed one way, counted by each of ``BY``. For newly denied
    requests ``reason`` is the candidate's reason; for newly admitted ones, the reason they
    were denied for then."""

    count: int = 0
    by: dict[str, Counter[str | int]] = field(
        default_factory=lambda: {name: Counter() for name in BY}
    )
    examples: list[Example] = field(default_factory=list)
    _examples_of: Counter[str | None] = field(default_factory=Counter, repr=False)

    def add(self, request: Request, *, reason: str | None, group: str | None, example: Example,
            examples_per_reason: int) -> None:
        self.count += 1
        by = self.by
        by["reason"][reason or ""] += 1
        by["user"][request.user] += 1
        by["group"][group or ""] += 1
        by["queue"][request.queue_path] += 1
        by["hour"][int(request.at // HOUR) * HOUR] += 1
        if self._examples_of[reason] < examples_per_reason:
            self._examples_of[reason] += 1
            self.examples.append(example)


@dataclass
class ReplayReport:
    """``requests`` asked again, ``releases`` seen, allocations ``held`` from before the
    period, ``unchanged`` answers, the two kinds of change, ``invalid`` requests the engine
    refused as malformed (none in a real history), and whether the replay was ``cancelled``
    before the end of the history."""

    requests: int = 0
    releases: int = 0
    held: int = 0
    unchanged: int = 0
    invalid: int = 0
    newly_denied: Differences = field(default_factory=Differences)
    newly_admitted: Differences = field(default_factory=Differences)
    cancelled: bool = False

    @property
    def events(self) -> int:
        return self.requests + self.releases + self.held


def replay(
    candidate: Partition | CompiledConfig,
    events: Iterable[Event],
    *,
    examples_per_reason: int = 5,
    progress: Callable[[int], bool] | None = None,
    progress_every: int = 10_000,
) -> ReplayReport:
    """Replay ``events`` (in their order) against ``candidate``. ``progress`` is called with
    the number of events done every ``progress_every`` events; when it answers False the
    replay stops there and the report says ``cancelled``."""
    engine = Engine(candidate)
    report = ReplayReport()
    # What the replay holds: each admitted key's request, and each application's live count.
    live: dict[str, Allocation] = {}
    apps: Counter[str] = Counter()
    done = 0
    for event in events:
        if progress is not None and done and done % progress_every == 0 and not progress(done):
            report.cancelled = True
            return report
        done += 1
        if isinstance(event, Held):
            report.held += 1
            engine.restore(event.queue_path, event.app_id, event.user, list(event.groups),
                           dict(event.resource))
            live[event.key] = event
            apps[event.app_id] += 1
            continue
        if isinstance(event, Release):
            report.releases += 1
            held = live.pop(event.key, None)
            if held is not None:
                apps[held.app_id] -= 1
                last = apps[held.app_id] == 0
                if last:
                    del apps[held.app_id]
                engine.decrease(held.queue_path, held.app_id, held.user, dict(held.resource),
                                remove_app=last)
            continue
        report.requests += 1
        if event.key in live:
            # Asked again while the replay still holds it (it was denied then, and retried).
            report.unchanged += 1
            continue
        try:
            decision = engine.increase(event.queue_path, event.app_id, event.user,
                                       list(event.groups), dict(event.resource))
        except InvalidRequest:
            report.invalid += 1
            continue
        if decision.allowed and event.admitted:
            report.unchanged += 1
        elif not decision.allowed and not event.admitted:
            report.unchanged += 1
            continue
        elif decision.allowed:
            # Fits now, denied then: counted, and not held (see the module's docstring).
            engine.decrease(event.queue_path, event.app_id, event.user, dict(event.resource),
                            remove_app=event.app_id not in apps)
            report.newly_admitted.add(
                event, reason=event.reason, group=decision.group,
                example=Example(event, None, ""), examples_per_reason=examples_per_reason,
            )
            continue
        else:
            report.newly_denied.add(
                event, reason=decision.reason, group=decision.group or event.group,
                example=Example(event, decision.reason, decision.message),
                examples_per_reason=examples_per_reason,
            )
            continue
        live[event.key] = event
        apps[event.app_id] += 1
    if progress is not None:
        progress(done)
    return report
