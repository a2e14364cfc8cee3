"""What the rules of one partition share: the report, where things were written, parse caches."""

from __future__ import annotations

from collections.abc import Mapping

from trackers.config.build import Locations
from trackers.config.model import Limit, Partition, Queue
from trackers.config.report import Report
from trackers.errors import QuantityError
from trackers.resources import parse_quantity

# (kind, message) of each quantity that failed to parse.
Failures = list[tuple[str, str]]
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
            failures.append((kind, str(err)))
    return values, failures


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
