"""Reads of the elastic quota pages (``/elastic/``): one per page, each from the elastic selectors.

The page shows the partition's elastic tree per queue and resource. Its rows are built here from
the REST shape of ``GET .../elastic`` (``elastic_view``), and ``static/js/elastic.js`` builds the
same rows from the same shape when the live socket's ``elastic`` scope brings new figures: keep
the two in step (which resources a queue shows, the notes, the bar and its text, the signature).

Unknown partitions raise ``ElasticNotFound`` (the page answers 404 with its message), missing
or unusable parameters ``ElasticBadRequest`` (400).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quotaweb.elastic.selectors import (
    REVOKE_DELAY,
    elastic_explain,
    elastic_over_use,
    elastic_settings_row,
    elastic_view,
)
from quotaweb.elastic.tree_window import ElasticTreeNotFound, ElasticTreePageInvalid, elastic_tree
from quotaweb.engine.gateway import UnknownPartition, engines_get
from trackers import InvalidRequest
from trackers.resources import format_quantity, format_resource

ERR_UNKNOWN_PARTITION = (
    "There is no partition {partition!r}. The configured partitions are: {known}."
)
ERR_NO_PARTITIONS = (
    "The active configuration has no partitions, so there is no elastic quota to show."
)
ERR_EXPLAIN_PARAMS = (
    "Say which runtime to explain: a queue and a resource type, as in "
    "?queue=root.a&resource=memory."
)

# What a queue's notes say (elastic.js writes the same words).
NOTE_ROOT = (
    "The root: its runtime is the pool, the cluster total less what system queues use, and "
    "its children share it."
)
NOTE_SYSTEM = (
    "System queue: its usage comes off the pool and it takes no part in the fair split; its "
    "runtime is reported as its max."
)
NOTE_NO_MAX = (
    "No max: it takes no part in sharing, so it has no runtime and elastic quota does not "
    "hold it back."
)
NOTE_KEEPS = "Does not lend: it keeps its whole min even while it asks for less."
# Why a guaranteed figure reads "scaled to": said once per parent and resource above the table.
NOTE_SCALED = (
    "Under {parent}, the children's guaranteed {kind} adds up to {mins}, more than the {shared} "
    "{parent} has to share, so each child's guaranteed {kind} is scaled by the same factor "
    "\u00d7{factor} ({shared} \u00f7 {mins}). The scaled figure is what the split starts from; "
    "anything a child does not ask for is still lent to its busy siblings."
)
NOTE_IDLE = (
    "Under {parents}, no queue asks for anything now, so there is nothing to share there and "
    "the children's guaranteed figures read \"scaled to 0\": they come back as soon as a queue "
    "there uses or asks for resources."
)
# What revocation would pick: at most this many allocations per queue are listed.
PICKS_SHOWN = 10

# Fields whose figures make a queue's signature (elastic.js: SIG_FIELDS).
SIG_FIELDS = (
    "min", "max", "sharedWeight", "autoScaleMin", "request", "limitedRequest", "used", "runtime",
    "lent", "borrowed", "unallocated",
)


class ElasticNotFound(LookupError):
    """A page asked for a partition or queue that does not exist; ``str()`` says which."""


class ElasticBadRequest(ValueError):
    """A page was asked something it cannot answer; ``str()`` says what it needs."""


# -- the rows ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    """One queue's runtime of one resource drawn against its min: the part of the runtime
    within the min, what it borrows above it, what it lends below it, what it asks for beyond
    its runtime, and what it uses (over the runtime: striped). Positions in % of ``scale``."""

    kind: str
    min: int
    runtime: int
    used: int
    request: int
    lent: int
    borrowed: int

    @property
    def scale(self) -> int:
        return max(self.min, self.runtime, self.used, self.request, 1)

    def pct(self, value: int) -> int:
        """``value`` in whole % of the bar's scale, rounded down (elastic.js: pct)."""
        return value * 100 // self.scale

    @property
    def own(self) -> int:
        return self.runtime - self.borrowed

    @property
    def wanted(self) -> int:
        """Asked for beyond the runtime (not given)."""
        return max(0, self.request - self.runtime)

    @property
    def over(self) -> int:
        return max(0, self.used - self.runtime)

    @property
    def text(self) -> str:
        q = _quantity(self.kind)
        parts = [f"{self.kind}: runtime {q(self.runtime)} against a min of {q(self.min)}"]
        if self.borrowed:
            parts.append(f"borrows {q(self.borrowed)}")
        if self.lent:
            parts.append(f"lends {q(self.lent)}")
        text = ", ".join(parts) + f"; uses {q(self.used)}"
        if self.over:
            text += f", {q(self.over)} over its runtime"
        if self.wanted:
            text += f"; asks for {q(self.request)}, {q(self.wanted)} more than it gets"
        return text


@dataclass(frozen=True, slots=True)
class Line:
    """One resource of one queue."""

    kind: str
    min: int | None
    scaled_min: int | None  # the min after scaling, when it differs
    max: int | None
    weight: int | None
    request: int
    limited_request: int
    used: int
    runtime: int | None  # None: the queue takes no part in sharing this resource
    lent: int
    borrowed: int
    unallocated: int | None  # parents only
    bar: Bar | None


@dataclass(frozen=True, slots=True)
class QueueRow:
    path: str
    name: str
    depth: int
    leaf: bool
    system: bool
    notes: tuple[str, ...]
    over: dict[str, int] | None
    lines: tuple[Line, ...]
    sig: str


def _quantity(kind: str):
    return lambda value: format_quantity(kind, value)


def _map_sig(values: Mapping[str, int] | None) -> str:
    if not values:
        return ""
    return ",".join(f"{kind}:{values[kind]}" for kind in sorted(values))


def row_sig(row: Mapping[str, Any]) -> str:
    """A queue's figures as one string (elastic.js: rowSig): equal means nothing to redraw."""
    flags = f"{int(row['leaf'])}{int(row['system'])}{int(row['allowLent'])}"
    parts = [row["queuePath"], flags, *(_map_sig(row[name]) for name in SIG_FIELDS)]
    parts.append(_map_sig(row["overUsed"]))
    return "|".join(parts)


def queue_kinds(row: Mapping[str, Any]) -> list[str]:
    """The resource types a queue shows: any it has a figure for (elastic.js: queueKinds)."""
    kinds: set[str] = set()
    for name in ("min", "max", "runtime", "used", "request"):
        kinds.update(row[name])
    return sorted(kinds)


def queue_notes(row: Mapping[str, Any]) -> tuple[str, ...]:
    if row["parent"] is None:
        return (NOTE_ROOT,)
    notes = []
    if row["system"]:
        notes.append(NOTE_SYSTEM)
    elif not row["max"]:
        notes.append(NOTE_NO_MAX)
    if not row["allowLent"] and not row["system"]:
        notes.append(NOTE_KEEPS)
    return tuple(notes)


def queue_row(row: Mapping[str, Any]) -> QueueRow:
    path = row["queuePath"]
    is_root = row["parent"] is None
    lines = []
    for kind in queue_kinds(row):
        minimum = row["min"].get(kind)
        scaled = row["autoScaleMin"].get(kind)
        runtime = row["runtime"].get(kind)
        figures = {
            name: row[field].get(kind, 0)
            for name, field in (
                ("request", "request"), ("limited_request", "limitedRequest"), ("used", "used"),
                ("lent", "lent"), ("borrowed", "borrowed"),
            )
        }
        bar = None
        if runtime is not None and not is_root and not row["system"]:
            bar = Bar(
                kind=kind, min=minimum or 0, runtime=runtime, used=figures["used"],
                request=figures["limited_request"], lent=figures["lent"],
                borrowed=figures["borrowed"],
            )
        lines.append(Line(
            kind=kind, min=minimum,
            scaled_min=scaled if minimum is not None and scaled is not None and scaled != minimum
            else None,
            max=row["max"].get(kind), weight=row["sharedWeight"].get(kind), runtime=runtime,
            unallocated=None if row["leaf"] else row["unallocated"].get(kind, 0),
            bar=bar, **figures,
        ))
    return QueueRow(
        path=path, name=path.rpartition(".")[2], depth=path.count("."), leaf=row["leaf"],
        system=row["system"], notes=queue_notes(row), over=row["overUsed"],
        lines=tuple(lines), sig=row_sig(row),
    )


# -- pages -------------------------------------------------------------------------------------


def _known(partition: str) -> list[str]:
    known = engines_get().partitions()
    if partition not in known:
        raise ElasticNotFound(
            ERR_UNKNOWN_PARTITION.format(partition=partition, known=", ".join(known) or "none")
        )
    return known


def first_partition() -> str:
    """The partition ``/elastic/`` opens (the first configured); ``ElasticNotFound`` if none."""
    partitions = engines_get().partitions()
    if not partitions:
        raise ElasticNotFound(ERR_NO_PARTITIONS)
    return partitions[0]


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def scale_factor(minimum: int, scaled: int) -> str:
    """The factor a min was scaled by, two significant digits (elastic.js: scaleFactor)."""
    return f"{scaled / minimum:.2g}" if minimum else "0"


def scaling_notes(queues: list[Mapping[str, Any]]) -> list[str]:
    """One sentence per parent and resource whose children's mins were scaled down: the sum
    of the mins, what there was to share, and the factor."""
    sums: dict[tuple[str, str], list[int]] = {}
    scaled_any: set[tuple[str, str]] = set()
    for row in queues:
        parent = row["parent"]
        if parent is None:
            continue
        for kind, minimum in row["min"].items():
            scaled = row["autoScaleMin"].get(kind, minimum)
            pair = sums.setdefault((parent, kind), [0, 0])
            pair[0] += minimum
            pair[1] += scaled
            if scaled != minimum:
                scaled_any.add((parent, kind))
    notes = []
    idle = sorted({parent for parent, kind in scaled_any if sums[(parent, kind)][1] == 0})
    for parent, kind in sorted(scaled_any):
        mins, shared = sums[(parent, kind)]
        if parent in idle:
            continue
        notes.append(NOTE_SCALED.format(
            parent=parent, kind=kind, mins=format_quantity(kind, mins),
            shared=format_quantity(kind, shared), factor=scale_factor(mins, shared),
        ))
    if idle:
        notes.append(NOTE_IDLE.format(parents=", ".join(idle)))
    return notes


def elastic_page(
    *, partition: str, show_picks: bool = False, focus: str = "", page: str | None = None,
    query: str = "",
) -> dict[str, Any]:
    """The elastic page of a partition: settings, the rows of the queues shown (``focus``,
    ``page`` and ``query`` as ``elastic.tree_window`` reads them), the over-use list. What
    revocation would pick is listed while elastic quota is on, or when ``show_picks`` asks for
    it, at most ``PICKS_SHOWN`` per queue with a count of the rest."""
    partitions = _known(partition)
    try:
        view = elastic_view(partition=partition)
        over_use = elastic_over_use(partition=partition)
    except UnknownPartition as error:  # a configuration switch dropped it meanwhile
        raise ElasticNotFound(str(error)) from None
    try:
        window = elastic_tree(queues=view["queues"], build=queue_row, focus=focus, page=page,
                              query=query)
    except ElasticTreeNotFound as error:
        raise ElasticNotFound(str(error)) from None
    except ElasticTreePageInvalid as error:
        raise ElasticBadRequest(str(error)) from None
    for item in over_use:
        item["since_at"] = _moment(item["since"])
        item["revoke_at"] = _moment(item["revokeAt"])
        item["over_text"] = format_resource(item["over"])
        item["used_text"] = format_resource(item["used"])
        item["runtime_text"] = format_resource(item["runtime"])
        shown = item["picks"][:PICKS_SHOWN]
        for pick in shown:
            pick["resource_text"] = format_resource(pick["resource"])
            pick["created_at"] = _moment(pick["created"])
        item["picks_shown"] = shown
        item["picks_more"] = len(item["picks"]) - len(shown)
    return {
        "partition": partition,
        "partitions": partitions,
        "scopes": ["elastic"],
        "enabled": view["enabled"],
        "cluster_total": view["clusterTotal"],
        "pool": view["pool"],
        "computed_at": _moment(view["computedAt"]),
        "generation": view["generation"],
        **window,
        "over_use": over_use,
        "over_paths": " ".join(item["queuePath"] for item in over_use),
        "picks_count": sum(len(item["picks"]) for item in over_use),
        "show_picks": view["enabled"] or show_picks,
        "picks_shown": PICKS_SHOWN,
        "scaling_notes": scaling_notes(view["queues"]),
        "revoke_delay": int(REVOKE_DELAY.total_seconds()),
        "settings_row": elastic_settings_row(partition=partition),
    }


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    value: str
    note: str = ""


def elastic_explain_page(*, partition: str, queue: str, resource: str) -> dict[str, Any]:
    """How one queue's runtime of one resource came about: the key numbers and each step."""
    partitions = _known(partition)
    queue, resource = queue.strip(), resource.strip()
    if not queue or not resource:
        raise ElasticBadRequest(ERR_EXPLAIN_PARAMS)
    try:
        found = elastic_explain(partition=partition, queue_path=queue, resource=resource)
    except InvalidRequest as error:
        raise ElasticNotFound(str(error)) from None
    except UnknownPartition as error:
        raise ElasticNotFound(str(error)) from None
    return {
        "partition": partition,
        "partitions": partitions,
        "queue_path": found["queuePath"],
        "resource": found["resource"],
        "explanation": found,
        "figures": _figures(found),
        "steps": [step["text"] for step in found["steps"]],
    }


def _figures(found: Mapping[str, Any]) -> list[Figure]:
    kind = found["resource"]

    def q(value: int | None, missing: str = "not set") -> str:
        return missing if value is None else format_quantity(kind, value)

    pool = found["pool"] or {}
    scaled = found["scaledMin"]
    figures = [
        Figure("Pool", q(pool.get("value"), "none"), pool.get("text", "")),
        Figure("Min (guaranteed)", q(found["min"])),
    ]
    if scaled is not None:
        figures.append(Figure("Scaled min", q(scaled["value"]), scaled["text"]))
    if found["effectiveMin"] is not None:
        figures.append(Figure(
            "Effective min", q(found["effectiveMin"]),
            "what the split starts from: the min, or the scaled min when the mins did not fit",
        ))
    figures += [
        Figure("Request", q(found["request"], "none"), "used plus pending demand"),
        Figure("Limited request", q(found["limitedRequest"], "none"),
               "the request capped at the max: what the parent sees"),
        Figure("Max", q(found["max"], "no max")),
        Figure("Weight", q(found["weight"], "none"),
               "its share of what is left when several queues want more than their min"),
        Figure("Lends its unused min", "yes" if found["allowLent"] else "no"),
        Figure("System queue", "yes" if found["system"] else "no"),
        Figure("Runtime", q(found["runtime"], "none"), "what the queue may use now"),
    ]
    return figures
