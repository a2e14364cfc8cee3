"""What the rules of one partition share: the report, where things were written, parse caches."""

from __future__ import annotations

from collections.abc import Mapping

from trackers.config import messages
from trackers.config.build import Locations
from trackers.config.model import Limit, Partition, Queue
from trackers.config.report import Report
from trackers.errors import QuantityError
from trackers.resources import INVALID_SUFFIX, OVERFLOW, VCORE, is_bytes_type, parse_quantity

# (kind, message, detail) of each quantity that failed to parse: ``message`` is YuniKorn's text
# (the same for every bad value), ``detail`` names the resource and the value.
Failures = list[tuple[str, str, str]]
# (guaranteed, its failures, max, its failures) of one queue.
_Parsed = tuple[dict[str, int], Failures, dict[str, int], Failures]


def parse_quantities(raw: Mapping[str, str]) -> tuple[dict[str, int], Failures]:
    """Parse every entry, keeping the good ones and the failures (rules report all of them)."""
    values: dict[str, int] = {}
    failures: Failures = []
    if not raw:
        return values, failures
    for kind, text in raw.items():
        try:
            values[kind] = parse_quantity(text, kind)
        except QuantityError as err:
            failures.append((kind, str(err), quantity_detail(kind, text, str(err))))
    return values, failures


def quantity_detail(kind: str, raw: object, error: str) -> str:
    """Why ``raw`` is no quantity of ``kind``, naming both: YuniKorn's "invalid quantity" said
    neither, so two bad values of one edit read as the same error twice."""
    if kind == VCORE:
        examples = messages.QUANTITY_EXAMPLES_VCORE
    elif is_bytes_type(kind):
        examples = messages.QUANTITY_EXAMPLES_MEMORY
    else:
        examples = messages.QUANTITY_EXAMPLES_OTHER
    text = "" if raw is None else str(raw).strip()
    if not text:
        return messages.DETAIL_QUANTITY_EMPTY.format(kind=kind, examples=examples)
    if error == OVERFLOW:
        return messages.DETAIL_QUANTITY_OVERFLOW.format(kind=kind, value=repr(text))
    if error == INVALID_SUFFIX:
        return messages.DETAIL_QUANTITY_SUFFIX.format(
            kind=kind, value=repr(text), examples=examples
        )
    if text.startswith("-") and _parses(text[1:], kind):
        return messages.DETAIL_QUANTITY_NEGATIVE.format(kind=kind, value=text)
    return messages.DETAIL_NOT_A_QUANTITY.format(kind=kind, value=repr(text), examples=examples)


def _parses(text: str, kind: str) -> bool:
    try:
        parse_quantity(text, kind)
    except QuantityError:
        return False
    return True


class Scope:
    """One partition under validation."""

    def __init__(self, report: Report, loc: Locations, partition: Partition, index: int) -> None:
        self.report = report
        self.loc = loc
        self.partition = partition
        self.name = partition.name
        self.field = loc.partitions[index] if index < len(loc.partitions) else ""
        self.index = index
        self.root = partition.root
        # S3: partition-level limits act as root limits when the root has none of its own.
        self.root_limits: tuple[Limit, ...] = partition.root.limits or partition.limits
        # id(limit) -> parsed maxresources, or None when a quantity failed (rules then skip it).
        self.limit_resources: dict[int, dict[str, int] | None] = {}
        self._queue_resources: dict[int, _Parsed] = {}

    def add(
        self, code: str, path: str, field: str, message: str, detail: str | None = None
    ) -> None:
        self.report.add(code, path, field, message, detail)

    def limits(self, queue: Queue) -> tuple[Limit, ...]:
        return self.root_limits if queue is self.root else queue.limits

    def queue_field(self, queue: Queue) -> str:
        return self.loc.queues.get(id(queue), "")

    def limits_field(self, queue: Queue) -> str:
        return self.loc.limits.get(id(queue), "")

    def written_name(self, queue: Queue) -> str:
        return self.loc.names.get(id(queue), queue.name)

    def limit_caps(self, limit: Limit) -> dict[str, int] | None:
        """A limit entry's parsed maxresources as the limit rules stored it (``{}`` without
        any, None when a quantity failed), parsed here when those rules did not run on it."""
        key = id(limit)
        if key in self.limit_resources:
            return self.limit_resources[key]
        if not limit.max_resources:
            resources: dict[str, int] | None = {}
        else:
            resources, failures = parse_quantities(limit.max_resources)
            if failures:
                resources = None
        self.limit_resources[key] = resources
        return resources

    def queue_resources(self, queue: Queue) -> _Parsed:
        """(guaranteed, its failures, max, its failures) of a queue, parsed once."""
        key = id(queue)
        cached = self._queue_resources.get(key)
        if cached is None:
            guaranteed, g_failures = parse_quantities(queue.guaranteed)
            maximum, m_failures = parse_quantities(queue.max)
            cached = (guaranteed, g_failures, maximum, m_failures)
            self._queue_resources[key] = cached
        return cached
