"""What-if replays (issue 30): a period of a partition's history asked again of a candidate
configuration, in the background, and what would have been answered differently.

The replay itself is ``trackers.ugm.replay``; this finds the candidate (the admin's draft, or a
document sent to the API), checks the request, keeps the run in a ``Replay`` row that any peer
can read, and runs it in a thread of the process that took the request, a few at a time
(``QUOTAWEB_REPLAYS_AT_ONCE``). The thread renews the row's progress and ``beat`` every
``PROGRESS_EVERY`` events and reads whether a cancel was asked; a replay whose process stopped
shows as failed once its beat is ``STALE_SECONDS`` old.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from quotaweb.config.selectors import draft_records
from quotaweb.config.services import ConfigRejected, config_validate, draft_candidate
from quotaweb.usage.accounting import AccountingInvalid, period_parse
from quotaweb.whatif.models import Replay
from quotaweb.whatif.selectors import replay_events, replay_events_count
from trackers.config.model import Config, Partition
from trackers.resources import format_resource
from trackers.ugm.replay import Differences, ReplayReport, replay

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 20_000
STALE_SECONDS = 60
# The busiest values of each dimension a result keeps (the rest are summed).
TOP = 20
EXAMPLES_PER_REASON = 5

ERR_NO_DRAFT = "you have no draft to replay: stage a change first, or send a document"
ERR_DRAFT_PROBLEMS = "the draft has problems; fix them before replaying it ({problems})"
ERR_DOCUMENT = "the document is not a valid configuration: {problems}"
ERR_PARTITION = "partition {value!r} is not in the candidate configuration (it has: {names})"
ERR_RUNNING = "replay {pk} of yours is still running: cancel it or wait for it to end"
ERR_NOT_RUNNING = "replay {pk} has already ended ({state})"
ERR_STOPPED = "the process running this replay stopped before it ended; start it again"
ERR_FAILED = "the replay failed: {error}"

_slots = threading.BoundedSemaphore(settings.QUOTAWEB_REPLAYS_AT_ONCE)


class ReplayInvalid(ValueError):
    """A replay request that cannot run: ``parameter`` names what is wrong (``document``,
    ``draft``, ``partition``, ``from``, ``to``), ``errors`` the candidate's problems if any."""

    def __init__(self, parameter: str, message: str,
                 errors: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.errors = errors or []


class ReplayBusy(RuntimeError):
    """The author already has a replay running (409)."""


def _candidate(*, author: Any, document: str | None) -> tuple[Config, str, str]:
    """(model, text, source) of what to replay against."""
    if document is not None:
        try:
            return config_validate(yaml_text=document), document, "document"
        except ConfigRejected as rejected:
            raise ReplayInvalid("document", ERR_DOCUMENT.format(problems=rejected),
                                rejected.errors) from None
    records = draft_records(author=author)
    if not records:
        raise ReplayInvalid("draft", ERR_NO_DRAFT)
    try:
        model, text = draft_candidate(records=records)
    except ConfigRejected as rejected:
        raise ReplayInvalid("draft", ERR_DRAFT_PROBLEMS.format(problems=rejected),
                            rejected.errors) from None
    return model, text, "draft"


def candidate_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def draft_digest(*, author: Any) -> str | None:
    """The digest of the author's current draft, None without a valid one."""
    try:
        _, text, _ = _candidate(author=author, document=None)
    except ReplayInvalid:
        return None
    return candidate_digest(text)


def _partition(model: Config, name: str | None) -> Partition:
    found = {partition.name: partition for partition in model.partitions}
    chosen = name or next(iter(found))
    if chosen not in found:
        raise ReplayInvalid("partition", ERR_PARTITION.format(
            value=chosen, names=", ".join(found)))
    return found[chosen]


def replay_start(
    *, author: Any, params: Mapping[str, str], document: str | None = None,
    now: datetime | None = None,
) -> Replay:
    """Check a replay request and start it in the background: the new ``Replay``.
    ``params``: ``partition`` (default: the candidate's first), ``from`` and ``to`` (default:
    the last 7 days). ``ReplayInvalid`` or ``ReplayBusy``, and nothing started, otherwise."""
    model, text, source = _candidate(author=author, document=document)
    partition = _partition(model, params.get("partition") or None)
    try:
        since, until = period_parse(params=params, now=now or timezone.now())
    except AccountingInvalid as invalid:
        raise ReplayInvalid(invalid.parameter, str(invalid)) from None
    with transaction.atomic():
        running = (Replay.objects.select_for_update()
                   .filter(author=author, state__in=(Replay.QUEUED, Replay.RUNNING))
                   .order_by("-created").first())
        if running is not None and not _stale(running):
            raise ReplayBusy(ERR_RUNNING.format(pk=running.pk))
        run = Replay.objects.create(
            author=author, source=source, digest=candidate_digest(text),
            partition=partition.name, since=since, until=until, beat=timezone.now(),
        )
    thread = threading.Thread(target=_run, args=(run.pk, partition), daemon=True,
                              name=f"replay-{run.pk}")
    thread.start()
    return run


def replay_cancel(*, run: Replay) -> Replay:
    """Ask a queued or running replay to stop (it stops at its next progress step)."""
    if run.state not in (Replay.QUEUED, Replay.RUNNING) or _stale(run):
        raise ReplayInvalid("replay", ERR_NOT_RUNNING.format(pk=run.pk, state=replay_state(run)))
    Replay.objects.filter(pk=run.pk).update(cancel_asked=True)
    run.refresh_from_db()
    return run


def replay_state(run: Replay) -> str:
    """The state to show: a queued or running replay whose beat stopped has failed."""
    return Replay.FAILED if _stale(run) else run.state


def _stale(run: Replay) -> bool:
    return (run.state in (Replay.QUEUED, Replay.RUNNING) and run.beat is not None
            and timezone.now() - run.beat > timedelta(seconds=STALE_SECONDS))


def _run(pk: int, partition: Partition) -> None:
    try:
        while not _slots.acquire(timeout=STALE_SECONDS / 3):
            # Queued behind other replays: keep the beat so it does not look abandoned.
            Replay.objects.filter(pk=pk).update(beat=timezone.now())
            if Replay.objects.filter(pk=pk, cancel_asked=True).exists():
                _finish(pk, state=Replay.CANCELLED)
                return
        try:
            _replay(pk, partition)
        finally:
            _slots.release()
    except Exception as error:  # a thread's failure must end up on the row, not be lost
        logger.exception("replay %s failed", pk)
        _finish(pk, state=Replay.FAILED, error=str(error) or type(error).__name__)
    finally:
        close_old_connections()
        connection.close()


def _replay(pk: int, partition: Partition) -> None:
    run = Replay.objects.get(pk=pk)
    if run.cancel_asked:
        _finish(pk, state=Replay.CANCELLED)
        return
    total = replay_events_count(partition=run.partition, since=run.since, until=run.until)
    Replay.objects.filter(pk=pk).update(state=Replay.RUNNING, total=total,
                                        beat=timezone.now())

    def progress(done: int) -> bool:
        Replay.objects.filter(pk=pk).update(done=done, beat=timezone.now())
        return not Replay.objects.filter(pk=pk, cancel_asked=True).exists()

    report = replay(
        partition, replay_events(partition=run.partition, since=run.since, until=run.until),
        examples_per_reason=EXAMPLES_PER_REASON, progress=progress,
        progress_every=PROGRESS_EVERY,
    )
    state = Replay.CANCELLED if report.cancelled else Replay.DONE
    _finish(pk, state=state, result=result_view(report), done=report.events)


def _finish(pk: int, *, state: str, result: dict[str, Any] | None = None, error: str = "",
            done: int | None = None) -> None:
    changes: dict[str, Any] = {"state": state, "finished": timezone.now(),
                               "beat": timezone.now(), "error": error}
    if result is not None:
        changes["result"] = result
    if done is not None:
        changes["done"] = done
    Replay.objects.filter(pk=pk).update(**changes)


def result_view(report: ReplayReport) -> dict[str, Any]:
    """A report as kept on the row and answered by the API (JSON, the busiest values only)."""
    return {
        "requests": report.requests, "releases": report.releases, "held": report.held,
        "unchanged": report.unchanged, "invalid": report.invalid,
        "newlyDenied": _differences_view(report.newly_denied),
        "newlyAdmitted": _differences_view(report.newly_admitted),
    }


def _top(counts: Counter[Any]) -> list[list[Any]]:
    return [[name, count] for name, count in counts.most_common(TOP)]


def _differences_view(differences: Differences) -> dict[str, Any]:
    by = differences.by
    return {
        "count": differences.count,
        "byReason": _top(by["reason"]),
        "byUser": _top(by["user"]),
        "byGroup": _top(by["group"]),
        "byQueue": _top(by["queue"]),
        "byHour": [[datetime.fromtimestamp(hour, UTC).isoformat().replace("+00:00", "Z"), count]
                   for hour, count in sorted(by["hour"].items())],
        "examples": [
            {
                "allocationKey": example.request.key,
                "time": datetime.fromtimestamp(example.request.at, UTC)
                .isoformat().replace("+00:00", "Z"),
                "user": example.request.user, "group": example.request.group,
                "queuePath": example.request.queue_path,
                "applicationId": example.request.app_id,
                "resource": format_resource(dict(example.request.resource)),
                "reason": example.reason or example.request.reason,
                "message": example.message,
            }
            for example in differences.examples
        ],
    }
