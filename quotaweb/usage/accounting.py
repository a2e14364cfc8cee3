"""Accounting: resource-time used over a period (GiB-hours of memory, vcore-hours, any type in
its unit-hours), by user, group, queue or partition, in buckets of an hour, day, week or month;
the top N, allocations and applications counted, and for queues the share of their guaranteed
and max used over the period.

Read from three places in one snapshot of the database (``_snapshot``): the hourly rollups
(``usage.rollups``) up to the partition's fold position; the history past it, not yet folded
(a few seconds' worth); and the ledger's open allocations, counted up to now. The period is in
whole hours (``from`` rounded down, ``to`` up), the rollups' grain, so the three add up exactly.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, Count, Q, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import Trunc
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from quotaweb.allocations.models import Allocation, HistoryEvent
from quotaweb.config.selectors import active_version, version_model
from quotaweb.usage.models import AdmissionHour, HistoryFold, UsageHour
from quotaweb.usage.rollups import HOUR, event_usage, hour_floor
from trackers.config.model import Partition, Queue
from trackers.errors import QuantityError
from trackers.resources import VCORE, is_bytes_type, parse_quantity

BYS = ("user", "group", "queue", "partition")
STEPS = ("hour", "day", "week", "month")
FORMATS = ("json", "csv")
TOP_DEFAULT = 10
TOP_MOST = 100
# At most this many buckets an answer (90 days by hour is 2,160: too many to draw or read).
BUCKETS_MOST = 1000
DEFAULT_DAYS = 7
OTHERS = "(others)"
# A step's length in hours, a month's at its shortest (for the cap's rough count).
_STEP_HOURS = {"hour": 1, "day": 24, "week": 168, "month": 672}
ITSELF = "{queue} (itself)"

ERR_PARTITION = "unknown partition {value!r}"
ERR_BY = "must be one of user, group, queue, partition (got {value!r})"
ERR_STEP = "must be one of hour, day, week, month (got {value!r})"
ERR_FORMAT = "must be json or csv (got {value!r})"
ERR_TIME = "must be a date (2026-01-31) or a date and time (2026-01-31T08:00:00Z), got {value!r}"
ERR_EMPTY = "the period is empty: 'to' ({to}) must be later than 'from' ({since})"
ERR_REVERSED = "the period is reversed: 'to' ({to}) is before 'from' ({since})"
ERR_RETENTION = (
    "{since} is beyond the history kept ({days} days, since {oldest}); start at or after it"
)
ERR_TOO_LONG = (
    "the period holds {count} {step}s; at most {most} per answer: shorten it or use a longer step"
)
ERR_TOP = "must be a whole number from 1 to {most} (got {value!r})"
ERR_USER = "unknown user {value!r}: no history for it in partition {partition!r}"
ERR_GROUP = "unknown group {value!r}: no history for it in partition {partition!r}"
ERR_QUEUE = "unknown queue {value!r} in partition {partition!r}"
ERR_RESOURCE = "unknown resource type {value!r}; the period has: {types}"


class AccountingInvalid(ValueError):
    """A parameter of an accounting request is wrong: ``parameter`` names it."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class AccountingQuery:
    partition: str
    by: str
    since: datetime
    until: datetime
    step: str
    top: int
    user: str = ""
    group: str = ""
    queue: str = "root"
    resource: str = ""


def time_unit(resource_type: str) -> tuple[str, float]:
    """The unit resource-time of ``resource_type`` is shown in, and base-unit-seconds per unit."""
    if resource_type == VCORE:
        return "vcore-hours", 1000 * 3600
    if is_bytes_type(resource_type):
        return "GiB-hours", 2**30 * 3600
    return f"{resource_type}-hours", 3600


def _parse_time(name: str, text: str) -> datetime:
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            moment = datetime(day.year, day.month, day.day) if day else None
    except ValueError:
        moment = None
    if moment is None:
        raise AccountingInvalid(name, ERR_TIME.format(value=text))
    return moment.replace(tzinfo=UTC) if timezone.is_naive(moment) else moment.astimezone(UTC)


def _hour_ceil(moment: datetime) -> datetime:
    floor = hour_floor(moment)
    return floor if floor == moment else floor + HOUR


def bucket_start(moment: datetime, step: str) -> datetime:
    """The start of the ``step`` bucket holding ``moment`` (weeks begin on Monday, UTC)."""
    hour = hour_floor(moment)
    if step == "hour":
        return hour
    day = hour.replace(hour=0)
    if step == "day":
        return day
    if step == "week":
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


def buckets_of(since: datetime, until: datetime, step: str) -> list[datetime]:
    """The starts of the buckets ``[since, until)`` meets."""
    starts, start = [], bucket_start(since, step)
    while start < until:
        starts.append(start)
        if step == "month":
            start = (start + timedelta(days=32)).replace(day=1)
        else:
            start += {"hour": HOUR, "day": timedelta(days=1), "week": timedelta(days=7)}[step]
    return starts


def _partition(name: str) -> Partition:
    version = active_version()
    found = version_model(version).partition(name) if version is not None else None
    if found is None:
        raise AccountingInvalid("partition", ERR_PARTITION.format(value=name))
    return found


def period_parse(
    *, params: Mapping[str, str], now: datetime, default_days: int = DEFAULT_DAYS
) -> tuple[datetime, datetime]:
    """The whole hours ``params["from"]`` to ``params["to"]`` cover (by default the
    ``default_days`` up to the end of the current hour), within the history kept:
    ``AccountingInvalid`` names the parameter at fault."""
    until = _hour_ceil(_parse_time("to", params["to"])) if params.get("to") else _hour_ceil(now)
    since = hour_floor(
        _parse_time("from", params["from"]) if params.get("from")
        else until - timedelta(days=default_days)
    )
    if until == since:
        raise AccountingInvalid("to", ERR_EMPTY.format(to=_iso(until), since=_iso(since)))
    if until < since:
        raise AccountingInvalid("to", ERR_REVERSED.format(to=_iso(until), since=_iso(since)))
    oldest = hour_floor(now - timedelta(days=settings.QUOTAWEB_HISTORY_DAYS))
    if since < oldest:
        raise AccountingInvalid("from", ERR_RETENTION.format(
            since=_iso(since), days=settings.QUOTAWEB_HISTORY_DAYS, oldest=_iso(oldest)
        ))
    return since, until


def accounting_query(
    *, partition: str, params: Mapping[str, str], now: datetime | None = None
) -> AccountingQuery:
    """The accounting request ``params`` ask for, checked: ``AccountingInvalid`` names the
    first wrong parameter. Nothing is read but the configuration and, for a named user, group or
    queue, whether the partition's history knows it."""
    now = now or timezone.now()
    config = _partition(partition)
    by = params.get("by") or "user"
    if by not in BYS:
        raise AccountingInvalid("by", ERR_BY.format(value=by))
    step = params.get("step") or "day"
    if step not in STEPS:
        raise AccountingInvalid("step", ERR_STEP.format(value=step))
    since, until = period_parse(params=params, now=now)
    # Counted roughly first, so that a period of centuries is refused without walking it.
    rough = (until - since) / timedelta(hours=_STEP_HOURS[step])
    count = math.ceil(rough) if rough > BUCKETS_MOST + 2 else len(buckets_of(since, until, step))
    if count > BUCKETS_MOST:
        raise AccountingInvalid("to", ERR_TOO_LONG.format(
            count=count, step=step, most=BUCKETS_MOST
        ))
    top_text = params.get("top") or str(TOP_DEFAULT)
    if not (top_text.isascii() and top_text.isdigit()) or not 1 <= int(top_text) <= TOP_MOST:
        raise AccountingInvalid("top", ERR_TOP.format(most=TOP_MOST, value=top_text))
    query = AccountingQuery(
        partition=config.name, by=by, since=since, until=until, step=step, top=int(top_text),
        user=params.get("user") or "", group=params.get("group") or "",
        queue=(params.get("queue") or "root").lower(), resource=params.get("resource") or "",
    )
    _known(query, config)
    return query


def _known(query: AccountingQuery, config: Partition) -> None:
    """Named users, groups and queues must be in the partition's history (or, for a queue, its
    configuration): a typo answers 400, not an empty report."""
    partition = query.partition
    for name, value in (("user", query.user), ("group", query.group)):
        if value and not (
            UsageHour.objects.filter(partition=partition, **{name: value}).exists()
            or HistoryEvent.objects.filter(partition=partition, **{name: value}).exists()
            or Allocation.objects.filter(partition=partition, **{name: value}).exists()
        ):
            raise AccountingInvalid(name, (ERR_USER if name == "user" else ERR_GROUP).format(
                value=value, partition=partition
            ))
    if query.queue != "root" and _queue(config, query.queue) is None and not (
        UsageHour.objects.filter(_subtree("queue_path", query.queue), partition=partition)
        .exists()
    ):
        raise AccountingInvalid("queue", ERR_QUEUE.format(value=query.queue, partition=partition))


def _queue(config: Partition, path: str) -> Queue | None:
    return next((queue for queue in config.queues() if queue.path == path), None)


def _subtree(field: str, queue: str) -> Q:
    if queue == "root":
        return Q()
    return Q(**{field: queue}) | Q(**{f"{field}__startswith": queue + "."})


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@contextmanager
def _snapshot() -> Iterator[None]:
    """One view of the database for every read of a report: the fold position, the rollups
    and the history past it must agree, or an event folded meanwhile would count twice."""
    if connection.in_atomic_block:
        yield
    elif connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield
    else:
        # Django begins SQLite's transactions IMMEDIATE, taking the write lock; a reader needs
        # only WAL's snapshot, which a deferred transaction takes at its first read.
        connection.ensure_connection()
        with connection.wrap_database_errors:
            connection.connection.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            connection.connection.execute("COMMIT")


def _dimension(query: AccountingQuery, queue_path: str, user: str, group: str) -> str:
    if query.by == "user":
        return user
    if query.by == "group":
        return group
    if query.by == "partition":
        return query.partition
    if queue_path == query.queue:
        return ITSELF.format(queue=queue_path)
    return ".".join(queue_path.split(".")[: query.queue.count(".") + 2])


def _unfolded(query: AccountingQuery, position: int) -> Any:
    past = {"tx__gte": position} if connection.vendor == "postgresql" else {"id__gt": position}
    return HistoryEvent.objects.filter(
        _subtree("queue_path", query.queue), partition=query.partition, **past, **_who(query)
    )


def _who(query: AccountingQuery) -> dict[str, str]:
    return {name: value for name, value in (("user", query.user), ("group", query.group))
            if value}


def accounting_report(*, query: AccountingQuery, now: datetime | None = None) -> dict[str, Any]:
    """The report ``query`` asks for: buckets, rows (top N by the ranking resource, then the
    rest as one), totals and units."""
    now = now or timezone.now()
    end = min(query.until, max(now, query.since))
    # (dimension, bucket start, resource type) -> base units x seconds
    usage: dict[tuple[str, datetime, str], float] = defaultdict(float)
    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    with _snapshot():
        fold = HistoryFold.objects.filter(partition=query.partition).first()
        position = fold.position if fold else 0
        for queue_path, user, group, started, at, resource in _unfolded(query, position).filter(
            kind=HistoryEvent.KIND_RELEASED, started__lt=query.until, at__gt=query.since
        ).values_list("queue_path", "user", "group", "started", "at", "resource"):
            _add(query, usage, queue_path, user, group, started, max(at, started), resource)
        for queue_path, user, group, created, resource in Allocation.objects.filter(
            _subtree("queue_path", query.queue), partition=query.partition,
            created__lt=query.until, **_who(query),
        ).values_list("queue_path", "user", "group", "created", "resource"):
            _add(query, usage, queue_path, user, group, created, max(end, created), resource)
        _counts(query, position, counted)
        _rollups(query, usage)
    return _report(query, usage, counted, seconds=(end - query.since).total_seconds())


def _add(query: AccountingQuery, usage: dict, queue_path: str, user: str, group: str,
         started: datetime, ended: datetime, resource: dict[str, int]) -> None:
    key = _dimension(query, queue_path, user, group)
    for hour, kind, amount in event_usage(
        started, ended, resource, since=query.since, until=query.until
    ):
        usage[key, bucket_start(hour, query.step), kind] += amount


def _rollups(query: AccountingQuery, usage: dict) -> None:
    """Add the rollups' resource-time to ``usage`` (which holds the rest already). By user or
    group, with more of them than the top N, only the top N come by bucket and the rest as one
    (``OTHERS``): a large site has thousands of users, and their every bucket is not needed."""
    field = {"user": "user", "group": "group", "queue": "queue_path"}.get(query.by)
    rows = UsageHour.objects.filter(
        _subtree("queue_path", query.queue), partition=query.partition,
        hour__gte=query.since, hour__lt=query.until, **_who(query),
    )
    if query.by in ("user", "group"):
        assert field is not None
        totals: dict[tuple[str, str], float] = defaultdict(float)
        for (key, _bucket, kind), amount in usage.items():
            totals[key, kind] += amount
        for row in rows.values(field, "resource_type").annotate(total=Sum("amount")):
            totals[row[field], row["resource_type"]] += row["total"]
        rank = _rank(query, sorted({kind for _key, kind in totals}))
        keys = {key for key, _kind in totals}
        if len(keys) > query.top:
            top = sorted(keys, key=lambda key: (-totals[key, rank], key))[: query.top]
            for key, bucket, kind, total in _series(rows.filter(**{f"{field}__in": top}), field,
                                                    query.step):
                usage[key, bucket, kind] += total
            for _key, bucket, kind, total in _series(
                rows.exclude(**{f"{field}__in": top}), None, query.step
            ):
                usage[OTHERS, bucket, kind] += total
            chosen = set(top)
            for key, bucket, kind in [entry for entry in usage if entry[0] not in chosen]:
                if key != OTHERS:
                    usage[OTHERS, bucket, kind] += usage.pop((key, bucket, kind))
            return
    for value, bucket, kind, total in _series(rows, field, query.step):
        key = _dimension(query, *_as_fields(field, value)) if field else query.partition
        usage[key, bucket, kind] += total


def _series(rows: Any, field: str | None, step: str) -> Iterator[tuple[str, datetime, str, float]]:
    """``(value of field, bucket start, resource type, total)`` of the rollup ``rows``."""
    fields = [field] if field else []
    if connection.vendor != "sqlite":
        grouped = rows.annotate(bucket=Trunc("hour", step, tzinfo=UTC))
        for row in grouped.values("bucket", "resource_type", *fields).annotate(
            total=Sum("amount")
        ):
            yield row.get(field, "") if field else "", row["bucket"], row["resource_type"], \
                row["total"]
        return
    # SQLite keeps times as text and Django truncates them with a Python function per row (two
    # thirds of a large report's time): its own date functions do it on the text.
    column = f'"{UsageHour._meta.db_table}"."hour"'
    expression = {
        "hour": column, "day": f"substr({column}, 1, 10)", "month": f"substr({column}, 1, 7)",
        "week": f"date({column}, '-' || ((strftime('%w', {column}) + 6) % 7) || ' days')",
    }[step]
    grouped = rows.annotate(bucket=RawSQL(expression, [], output_field=CharField()))
    starts: dict[str, datetime] = {}
    for row in grouped.values("bucket", "resource_type", *fields).annotate(total=Sum("amount")):
        text = row["bucket"]
        start = starts.get(text)
        if start is None:
            # The bare column (by hour) comes back as the driver's datetime.
            start = starts[text] = (text if isinstance(text, datetime) else datetime.fromisoformat(
                text + "-01" if step == "month" else text
            )).replace(tzinfo=UTC)
        yield row.get(field, "") if field else "", start, row["resource_type"], row["total"]


def _rank(query: AccountingQuery, types: list[str]) -> str:
    """The resource type rows are ranked by: the one asked for, else memory, else the first."""
    if query.resource and query.resource not in types:
        raise AccountingInvalid("resource", ERR_RESOURCE.format(
            value=query.resource, types=", ".join(types) or "none"
        ))
    return query.resource or ("memory" if "memory" in types else (types[0] if types else ""))


def _counts(query: AccountingQuery, position: int, counted: dict[str, list[int]]) -> None:
    """Allocations admitted in the period, and the distinct applications they belong to, by
    dimension: from the admission rollups and the history not yet folded."""
    field = {"user": "user", "group": "group", "queue": "queue_path"}.get(query.by)
    rows = AdmissionHour.objects.filter(
        _subtree("queue_path", query.queue), partition=query.partition,
        hour__gte=query.since, hour__lt=query.until, **_who(query),
    )
    extra: dict[str, set[str]] = defaultdict(set)
    unfolded = _unfolded(query, position).filter(
        kind=HistoryEvent.KIND_ADMITTED, at__gte=query.since, at__lt=query.until
    ).values_list("queue_path", "user", "group", "application_id")
    for queue_path, user, group, application in unfolded:
        key = _dimension(query, queue_path, user, group)
        counted[key][0] += 1
        extra[key].add(application)
    if field is None:
        totals = rows.aggregate(allocations=Sum("allocations"))
        applications = set(rows.values_list("application_id", flat=True).distinct())
        key = query.partition
        counted[key][0] += totals["allocations"] or 0
        counted[key][1] = len(applications | extra[key])
        return
    seen: dict[str, set[str]] = defaultdict(set)
    for value, allocations, applications in _grouped(rows, field):
        key = _dimension(query, *_as_fields(field, value))
        counted[key][0] += allocations
        counted[key][1] += applications
    # Applications first seen past the fold position count once more, unless the rollups
    # already hold them for the same row.
    wanted = {application for names in extra.values() for application in names}
    if wanted:
        for value, application in rows.filter(application_id__in=wanted).values_list(
            field, "application_id"
        ).distinct():
            seen[_dimension(query, *_as_fields(field, value))].add(application)
    for key, applications in extra.items():
        counted[key][1] += len(applications - seen[key])


def _grouped(rows: Any, field: str) -> Iterator[tuple[str, int, int]]:
    """``(value of field, allocations, distinct applications)``; for queues, per queue path
    (the caller adds a subtree's paths: an application runs in one queue)."""
    for row in rows.values(field).annotate(
        allocations=Sum("allocations"), applications=Count("application_id", distinct=True),
    ):
        yield row[field], row["allocations"], row["applications"]


def _as_fields(field: str, value: str) -> tuple[str, str, str]:
    return (value if field == "queue_path" else "", value if field == "user" else "",
            value if field == "group" else "")


def _report(query: AccountingQuery, usage: dict, counted: dict[str, list[int]], *,
            seconds: float) -> dict[str, Any]:
    buckets = buckets_of(query.since, query.until, query.step)
    index = {start: number for number, start in enumerate(buckets)}
    types = sorted({kind for _key, _bucket, kind in usage})
    rank = _rank(query, types)
    units = {kind: time_unit(kind) for kind in types}
    rows: dict[str, dict[str, Any]] = {}
    for (key, bucket, kind), amount in usage.items():
        row = rows.setdefault(key, _row(key, types, len(buckets)))
        unit = amount / units[kind][1]
        row["usage"][kind] += unit
        row["series"][kind][index[bucket]] += unit
    for key, (allocations, applications) in counted.items():
        row = rows.setdefault(key, _row(key, types, len(buckets)))
        row["allocations"], row["applications"] = allocations, applications
    # The rest of a long list may have been summed already (``_rollups``).
    summed = rows.pop(OTHERS, None)
    ordered = sorted(rows.values(), key=lambda row: (-row["usage"].get(rank, 0), row["key"]))
    top, rest = ordered[: query.top], ordered[query.top:]
    if query.by == "queue":
        _shares(query, top, seconds)
    others = summed or (_row(OTHERS, types, len(buckets)) if rest else None)
    for row in rest:
        _merge(others, row)
    if summed:
        ordered.append(summed)
    totals = _row("", types, 0)
    for row in ordered:
        _merge(totals, row, series=False)
    return {
        "partition": query.partition, "by": query.by, "step": query.step,
        "from": _iso(query.since), "to": _iso(query.until), "top": query.top,
        "queue": query.queue, "user": query.user, "group": query.group, "resource": rank,
        "units": {kind: unit for kind, (unit, _per) in units.items()},
        "buckets": [_iso(start) for start in buckets],
        "rows": [_rounded(row) for row in top],
        "others": _rounded(others) if others else None,
        "totals": {name: _rounded(totals)[name] for name in ("usage", "allocations")},
    }


def _row(key: str, types: list[str], buckets: int) -> dict[str, Any]:
    return {
        "key": key, "usage": dict.fromkeys(types, 0.0), "allocations": 0, "applications": 0,
        "series": {kind: [0.0] * buckets for kind in types},
    }


def _merge(into: dict[str, Any], row: dict[str, Any], *, series: bool = True) -> None:
    """Add ``row`` to ``into`` (its series too, unless ``series`` is off: the totals have none
    to show, and thousands of rows' series cost more than the rest of a report)."""
    for kind, amount in row["usage"].items():
        if not amount:
            continue
        into["usage"][kind] += amount
        if series:
            into["series"][kind] = [a + b for a, b in zip(into["series"][kind],
                                                         row["series"][kind], strict=True)]
    into["allocations"] += row["allocations"]
    into["applications"] += row["applications"]


def _shares(query: AccountingQuery, rows: list[dict[str, Any]], seconds: float) -> None:
    """Each queue's use over the period as a share of its guaranteed and of its max held for the
    whole period (the active configuration's; None where it sets none)."""
    config = _partition(query.partition)
    for row in rows:
        queue = _queue(config, row["key"])
        for name, promised in (("guaranteed_share", queue.guaranteed if queue else {}),
                               ("max_share", queue.max if queue else {})):
            row[name] = {kind: _share(kind, promised.get(kind), used, seconds)
                         for kind, used in row["usage"].items()}


def _share(kind: str, promised: str | None, used: float, seconds: float) -> float | None:
    if promised is None or seconds <= 0:
        return None
    try:
        amount = parse_quantity(promised, kind)
    except QuantityError:
        return None
    if amount == 0:
        return None
    return round(used * time_unit(kind)[1] / (amount * seconds), 6)


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **row,
        "usage": {kind: round(amount, 6) for kind, amount in row["usage"].items()},
        "series": {kind: [round(amount, 6) for amount in amounts]
                   for kind, amounts in row["series"].items()},
    }


def accounting_csv_rows(report: dict[str, Any]) -> Iterator[list[str]]:
    """The report as CSV lines: one per row and bucket, the units in the header."""
    types = list(report["units"])
    yield [report["by"], "bucket_start", *(f"{kind} ({report['units'][kind]})" for kind in types)]
    rows = [*report["rows"], *([report["others"]] if report["others"] else [])]
    for row in rows:
        for number, start in enumerate(report["buckets"]):
            yield [row["key"], start, *(_number(row["series"][kind][number]) for kind in types)]


def _number(value: float) -> str:
    return "0" if value == 0 or math.isclose(value, 0, abs_tol=1e-12) else f"{value:.6f}"


def retention_start(*, now: datetime | None = None) -> date:
    """The first day the history still holds, for forms."""
    return (hour_floor((now or timezone.now()) - timedelta(
        days=settings.QUOTAWEB_HISTORY_DAYS
    )) + HOUR).date()
