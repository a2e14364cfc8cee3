"""Reads of the configuration: the active version, diffs, impact and the pages' views."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, QuerySet

from quotaweb.accounts.directory import directory_name
from quotaweb.config.changes import config_changes, config_diff
from quotaweb.config.documents import config_document
from quotaweb.config.edits import field_label, record_label
from quotaweb.config.models import (
    ActiveConfig,
    ConfigVersion,
    Draft,
    LimitEntry,
    Partition,
    Queue,
)
from quotaweb.config.text_diff import unified_diff
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers import parse_config
from trackers.config import normalise_partition_name
from trackers.config.lines import field_lines
from trackers.config.model import Config, Limit
from trackers.config.writer import write_yaml
from trackers.errors import QuantityError
from trackers.resources import (
    NOT_ALLOWED,
    format_resource,
    parse_quantity,
    parse_resource_map,
)


def is_whole_number(text: str) -> bool:
    """Digits 0-9 only: a version number or index from a URL or form. ``str.isdigit`` is true
    of "²" too, which ``int`` refuses (a 500 where a 400 or 404 belongs)."""
    return text.isascii() and text.isdigit()


# The key path of a queue inside the document: ``partitions[0].queues[0].queues[2]``.
_QUEUE_KEY_PATH = re.compile(r"^partitions\[\d+\](?:\.queues\[\d+\])*\.?")


def active_version_number() -> int | None:
    return ActiveConfig.objects.filter(pk=1).values_list("version_id", flat=True).first()


def active_version() -> ConfigVersion | None:
    number = active_version_number()
    return None if number is None else ConfigVersion.objects.get(number=number)


def version_get(*, number: int) -> ConfigVersion:
    """The version with that number; ``ConfigVersion.DoesNotExist`` when there is none."""
    return ConfigVersion.objects.get(number=number)


def versions_list() -> QuerySet[ConfigVersion]:
    """Every version, newest first."""
    # The identity too: the history names a directory user with their directory.
    return ConfigVersion.objects.select_related(
        "author", "author__directory_identity"
    ).order_by("-number")


# -- the models of stored versions, by content ----------------------------------------------------

# sha256 of a version's YAML -> its model. Keyed by content, not number, so a stale entry cannot
# exist: the same text always gives the same model. Only the last two are kept, the active
# version's and the one before it (what a write, its diff and its impact read): at 10,111 queues a
# model is about 25 MB, and with four kept the server's memory rose by three of them over its
# first edits (docs/design.md, "Applies beside allocations"). An older version's model is read
# again from its YAML when asked for.
_MODELS: dict[str, Config] = {}
_MODELS_KEPT = 2


def text_key(yaml_text: str) -> str:
    return hashlib.sha256(yaml_text.encode("utf-8")).hexdigest()


def model_remember(key: str, model: Config) -> None:
    """Keep ``model`` as the model of the YAML whose ``text_key`` is ``key`` (a candidate about
    to be stored is already parsed)."""
    _MODELS.pop(key, None)
    while len(_MODELS) >= _MODELS_KEPT:
        del _MODELS[next(iter(_MODELS))]
    _MODELS[key] = model


def version_model(version: ConfigVersion) -> Config:
    """The normalised model of a stored version (without the document's ``checksum``)."""
    # The version's checksum is the ``text_key`` of its text, made when it was stored: hashing
    # a 6 MB text again on every read took 10 ms each, several times a write.
    key = version.checksum
    model = _MODELS.get(key)
    if model is None:
        model = dataclasses.replace(parse_config(version.yaml), checksum=None)
        model_remember(key, model)
    return model


# -- impact ------------------------------------------------------------------------------------


def config_impact(*, candidate: Config) -> list[dict[str, Any]]:
    """Users and groups whose current usage or running applications exceed a limit of
    ``candidate`` (``trackers.over_limits``), in the partitions this process serves."""
    if not engines_loaded():
        return []
    gateway = engines_get()
    served = set(gateway.partitions())
    return [
        found
        for partition in candidate.partitions if partition.name in served
        for found in gateway.over_limits(partition.name, limits=partition)
    ]


# -- errors ------------------------------------------------------------------------------------


def error_text(error: dict[str, str]) -> str:
    """The words a person can act on (``detail`` names the values), with the rule code."""
    return f"{error.get('detail') or error['message']} (rule {error['code']})"


_PARTITION_INDEX = re.compile(r"^partitions\[(\d+)\]")


def config_problems(
    *, model: Config | None, errors: list[dict[str, str]]
) -> list[dict[str, str]]:
    """Each problem of a configuration with its words (``text``) and the partition of the queue
    it concerns (``partition``, empty when the problem is not about a queue), for links."""
    names = [partition.name for partition in model.partitions] if model is not None else []
    out = []
    for error in errors:
        found = _PARTITION_INDEX.match(error.get("field", ""))
        index = int(found.group(1)) if found else None
        partition = names[index] if index is not None and index < len(names) else ""
        out.append({**error, "text": error_text(error), "partition": partition})
    return out


def queue_tail(field: str) -> str:
    """A key path below its queue: ``partitions[0].queues[2].limits[1].users`` gives
    ``limits[1].users``."""
    return _QUEUE_KEY_PATH.sub("", field)


# -- pages (read-only configuration pages) -------------------------------------------------------


class ConfigNotFound(LookupError):
    """A page asked for a partition, queue or version that does not exist; ``str()`` says which."""


ERR_NO_PARTITION = "There is no partition {partition!r} in the active configuration."
ERR_NO_QUEUE = "There is no queue {path!r} in partition {partition!r} of the active configuration."
ERR_NO_VERSION = "there is no configuration version {number}"
ERR_NO_CONFIG = "no configuration has been applied yet"

USER_WILDCARD_NOTE = (
    "users: * applies to every user not named in this queue's limits, to each user separately. "
    "A user wildcard must come last: no named user may follow it in this queue."
)
GROUP_WILDCARD_NOTE = (
    "groups: * applies to applications whose user is in none of the groups named in this "
    "queue's limits. A group wildcard must come last, and needs a limit naming a group before it."
)
USERS_NOTE = "Each listed user gets these caps separately."
GROUPS_NOTE = "All applications counted against a listed group share these caps."


def _human(raw: dict[str, Any] | None) -> str:
    """Quantity text as written (``{"memory": "1Ti"}``) for people (``memory 1 TiB``)."""
    if not raw:
        return ""
    try:
        return format_resource(parse_resource_map(raw))
    except (QuantityError, TypeError, ValueError):  # rows hold valid configs; never fail a page
        return ", ".join(f"{kind} {value}" for kind, value in raw.items())


def config_tree(*, query: str = "") -> dict[str, Any]:
    """The queue tree of every partition from the active rows, flattened for one template loop.

    Four queries whatever the size. Each partition's ``items`` are, in document order, either
    ``{"node": {...}}`` (a queue; ``has_children`` opens a nested list) or ``{"close": True}``
    (ends the children of the last open queue). With ``query``, queues whose name contains it
    are marked (``match``) and their ancestors open.
    """
    query = query.strip().lower()
    version = active_version_number()
    partitions = list(Partition.objects.order_by("order").values("id", "name"))
    counts = dict(
        LimitEntry.objects.order_by().values_list("queue_id").annotate(count=Count("id"))
    )
    children: dict[int | None, list[dict[str, Any]]] = {}
    roots: dict[int, dict[str, Any]] = {}
    fields = ("id", "partition_id", "parent_id", "name", "path", "order", "guaranteed", "max",
              "max_applications")
    for row in Queue.objects.order_by("order", "id").values(*fields):
        if row["parent_id"] is None:
            roots[row["partition_id"]] = row
        else:
            children.setdefault(row["parent_id"], []).append(row)
    matches = 0
    out = []
    for partition in partitions:
        root = roots.get(partition["id"])
        items: list[dict[str, Any]] = []
        matched: list[str] = []
        if root is not None:
            matched = _tree_items(root, children, counts, query, items)
        matches += len(matched)
        out.append({**partition, "items": items, "queue_count": sum(
            1 for item in items if "node" in item), "matched": matched})
    return {"version": version, "partitions": out, "query": query, "matches": matches}


def _tree_items(
    root: dict[str, Any], children: dict, counts: dict, query: str, items: list
) -> list[str]:
    matched: list[str] = []
    nodes: list[dict[str, Any]] = []
    stack: list[tuple[dict[str, Any] | None, int]] = [(root, 0)]
    while stack:
        row, depth = stack.pop()
        if row is None:
            items.append({"close": True})
            continue
        kids = children.get(row["id"], ())
        name = row["name"]
        at = name.find(query) if query else -1
        node = {
            "path": row["path"],
            "name": name,
            "depth": depth,
            "max": _human(row["max"]),
            "guaranteed": _human(row["guaranteed"]),
            "max_applications": row["max_applications"],
            "limit_count": counts.get(row["id"], 0),
            "has_children": bool(kids),
            "open": depth == 0 and not query,
            "match": at >= 0,
            "name_parts": (name[:at], name[at:at + len(query)], name[at + len(query):])
            if at >= 0 else None,
        }
        nodes.append(node)
        items.append({"node": node})
        if node["match"]:
            matched.append(row["path"])
        if kids:
            stack.append((None, depth))
            stack.extend((kid, depth + 1) for kid in reversed(kids))
    if matched:
        # Open every ancestor of a match, so the matches show without scripts.
        ancestors = {
            path.rsplit(".", depth)[0]
            for path in matched
            for depth in range(1, path.count(".") + 1)
        }
        for node in nodes:
            if node["path"] in ancestors:
                node["open"] = True
    return matched


def queue_detail(*, config: Config, partition: str, queue_path: str) -> dict[str, Any]:
    """One queue of ``config`` (the active model, or an admin's draft): its values, effective
    caps with their sources, its limit entries with the wildcard rules that apply to them, its
    children. ``ConfigNotFound`` when the partition or queue is not in it."""
    found = config.partition(normalise_partition_name(partition))
    if found is None:
        raise ConfigNotFound(ERR_NO_PARTITION.format(partition=partition))
    queue_path = queue_path.lower()
    chain = [found.root]
    for depth, segment in enumerate(queue_path.split(".")):
        if depth == 0:
            if segment != "root":
                chain = []
                break
            continue
        child = next((c for c in chain[-1].children if c.name.lower() == segment), None)
        if child is None:
            chain = []
            break
        chain.append(child)
    if not chain:
        raise ConfigNotFound(ERR_NO_QUEUE.format(path=queue_path, partition=partition))
    queue = chain[-1]
    ancestors = [
        {"path": q.path, "max": q.max, "max_applications": q.max_applications} for q in chain
    ]
    return {
        "partition": found.name,
        "queue": queue,
        "breadcrumbs": [q.path for q in chain[:-1]],
        "max_human": _human(queue.max),
        "guaranteed_human": _human(queue.guaranteed),
        "effective_max": _effective_max(ancestors, own=queue.path),
        "effective_apps": _effective_apps(ancestors, own=queue.path),
        "limits": [_limit_view(limit, index) for index, limit in enumerate(queue.limits)],
        "children": [{"name": child.name, "path": child.path} for child in queue.children],
        "is_root": queue is found.root,
    }


def _effective_max(ancestors: list[dict[str, Any]], *, own: str) -> list[dict[str, Any]]:
    """Per resource type, the tightest max on the way from root to the queue (the deepest queue
    wins a tie) and the queue that sets it."""
    tightest: dict[str, tuple[int, str]] = {}
    for row in ancestors:
        for kind, text in (row["max"] or {}).items():
            try:
                value = parse_quantity(text, kind)
            except QuantityError:
                continue
            if kind not in tightest or value <= tightest[kind][0]:
                tightest[kind] = (value, row["path"])
    return [
        {
            "kind": kind,
            # A max of 0 forbids the type: say so rather than leave "0" to be read as a glitch.
            "value": format_resource({kind: value}) + (f" ({NOT_ALLOWED})" if value == 0 else ""),
            "source": source,
            "inherited": source != own,
        }
        for kind, (value, source) in sorted(tightest.items())
    ]


def _effective_apps(ancestors: list[dict[str, Any]], *, own: str) -> dict[str, Any] | None:
    best: tuple[int, str] | None = None
    for row in ancestors:
        value = row["max_applications"]
        if value and (best is None or value <= best[0]):
            best = (value, row["path"])
    if best is None:
        return None
    return {"value": best[0], "source": best[1], "inherited": best[1] != own}


def _limit_view(entry: Limit, index: int) -> dict[str, Any]:
    notes = []
    if entry.users:
        notes.append(USER_WILDCARD_NOTE if "*" in entry.users else USERS_NOTE)
    if entry.groups:
        notes.append(GROUP_WILDCARD_NOTE if "*" in entry.groups else GROUPS_NOTE)
    return {
        "entry": entry,
        "index": index,
        "position": index + 1,
        "description": entry.description,
        "users": entry.users,
        "groups": entry.groups,
        "max_resources": [
            {"kind": kind, "written": text, "human": _human({kind: text})}
            for kind, text in sorted(entry.max_resources.items())
        ],
        "max_applications": entry.max_applications,
        "notes": notes,
    }


def versions_history(*, page: int | str | None = 1, per_page: int = 25) -> dict[str, Any]:
    """One page of the history, newest first, each version with a one-line summary of what
    changed against the version numbered just before it."""
    paginator = Paginator(versions_list().defer("yaml"), per_page)
    page_obj = paginator.get_page(page)
    versions = list(page_obj.object_list)
    numbers = {v.number for v in versions} | {v.number - 1 for v in versions}
    texts = {
        row.number: row for row in ConfigVersion.objects.filter(number__in=numbers)
    }
    rows = []
    for version in versions:
        current = texts[version.number]
        previous = texts.get(version.number - 1)
        rows.append({
            "version": version,
            "previous": previous.number if previous else None,
            "summary": _version_summary(current, previous),
        })
    return {"page": page_obj, "rows": rows, "active": active_version_number()}


def _version_summary(version: ConfigVersion, previous: ConfigVersion | None) -> str:
    new = version_model(version)
    if previous is None:
        queues = sum(1 for partition in new.partitions for _ in partition.queues())
        return (
            f"first version: {len(new.partitions)} partition(s), {queues} queue(s)"
        )
    return changes_summary(config_changes(old=version_model(previous), new=new))


def change_label(change: dict[str, Any]) -> str:
    """``queue root.eng.ml changed``, ``limit 2 of root.eng added``, ``partition gpu removed``."""
    where = change["partition"]
    if change["kind"] == "queue":
        return f"queue {change['queuePath']} ({where}) {change['change']}"
    if change["kind"] == "limit":
        return (
            f"limit {change['index'] + 1} of {change['queuePath']} ({where}) {change['change']}"
        )
    return f"partition {where} {change['change']}"


def changes_summary(changes: list[dict[str, Any]], *, shown: int = 3) -> str:
    if not changes:
        return "no change"
    text = "; ".join(change_label(change) for change in changes[:shown])
    if len(changes) > shown:
        text += f"; and {len(changes) - shown} more"
    return text


def version_diff(*, number: int, against: int) -> dict[str, Any]:
    """Version ``against`` (old) compared with version ``number`` (new): the unified YAML diff
    line by line and the structured changes with the fields that differ. ``ConfigNotFound``."""
    found = {v.number: v for v in ConfigVersion.objects.filter(number__in={number, against})}
    for wanted in (number, against):
        if wanted not in found:
            raise ConfigNotFound(ERR_NO_VERSION.format(number=wanted))
    new, old = found[number], found[against]
    diff = config_diff(
        old=old.yaml, new=new.yaml, old_label=f"version {against}", new_label=f"version {number}"
    )
    return {
        "version": new,
        "against": old,
        "lines": [_diff_line(line) for line in diff.unified.splitlines()],
        "changes": [_change_view(change) for change in diff.changes],
        "against_label": f"Version {against}",
        "version_label": f"Version {number}",
    }


def _diff_line(line: str) -> dict[str, str]:
    if line.startswith(("+++", "---")):
        kind = "file"
    elif line.startswith("@@"):
        kind = "hunk"
    elif line.startswith("+"):
        kind = "add"
    elif line.startswith("-"):
        kind = "del"
    else:
        kind = "context"
    return {"kind": kind, "text": line}


def _change_view(change: dict[str, Any]) -> dict[str, Any]:
    old, new = change["old"] or {}, change["new"] or {}
    fields = [
        {"name": key, "label": field_label(key), "old": _compact(old.get(key)),
         "new": _compact(new.get(key))}
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]
    return {**change, "label": change_label(change), "fields": fields}


def _compact(value: Any) -> str:
    if value is None or value == {} or value == []:
        return "—"
    if isinstance(value, dict):
        return ", ".join(f"{key} {_compact(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_compact(item) for item in value)
    return str(value)


# -- previews of a candidate --------------------------------------------------------------------


def config_preview(
    *, candidate: Config, yaml_text: str, old_text: str | None = None,
    impact_checked: bool = True,
) -> dict[str, Any]:
    """What applying ``candidate`` would change, against the active version: the structured
    changes, the YAML diff (against ``old_text``, by default the active version's text) and the
    impact (users and groups whose current usage sits above a new limit; not worked out with
    ``impact_checked=False``, for a draft with problems, whose limits the engines could not
    compile)."""
    current = active_version()
    old_model = version_model(current) if current is not None else Config()
    if old_text is None:
        old_text = current.yaml if current is not None else ""
    label = f"version {current.number}" if current is not None else "nothing"
    unified = unified_diff(old_text, yaml_text, fromfile=label, tofile="candidate")
    impact = (
        [_impact_view(item) for item in config_impact(candidate=candidate)]
        if impact_checked else []
    )
    return {
        "active": current.number if current is not None else None,
        "changes": [_change_view(c) for c in config_changes(old=old_model, new=candidate)],
        "lines": [_diff_line(line.rstrip("\n")) for line in unified],
        "impact": impact,
        "impact_checked": impact_checked,
        "affected_apps": sum(item["runningApplications"] for item in impact),
    }


def canonical_text(config: Config) -> str:
    """A model written the way drafts are written, to diff a draft against like with like."""
    return write_yaml(config_document(config))


def _impact_view(item: dict[str, Any]) -> dict[str, Any]:
    return {
        **item,
        "usage_human": format_resource(item["usage"]) if item["usage"] else "nothing",
        "limit_human": format_resource(item["limit"]) if item["limit"] else "no resource cap",
        "apps_over": bool(item["maxApplications"])
        and item["runningApplications"] > item["maxApplications"],
    }


def conflict_view(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_change_view(change) for change in changes]


def draft_view(*, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"position": index, "label": record_label(record), "record": record}
        for index, record in enumerate(records, start=1)
    ]


def draft_get(*, author: Any) -> Draft | None:
    return Draft.objects.filter(author=author).first()


def draft_records(*, author: Any) -> list[dict[str, Any]]:
    return Draft.objects.filter(author=author).values_list("edits", flat=True).first() or []


def config_moved(*, base: int | None) -> dict[str, Any]:
    """What was applied since ``base`` (a draft's starting version), for a warning before its
    apply would be refused."""
    current = active_version()
    old = ConfigVersion.objects.filter(number=base).first() if base is not None else None
    changes = config_changes(
        old=version_model(old) if old is not None else Config(),
        new=version_model(current) if current is not None else Config(),
    )
    return {
        "base": base,
        "active": current.number if current is not None else None,
        "applied_by": version_author(number=current.number) if current is not None else None,
        "changes": [_change_view(change) for change in changes],
    }


def version_author(*, number: int | None) -> dict[str, Any] | None:
    """Who applied version ``number``, and when (None when there is no such version)."""
    found = (
        ConfigVersion.objects.select_related("author").filter(number=number).first()
        if number is not None else None
    )
    if found is None:
        return None
    return {
        "number": found.number,
        "author": directory_name(found.author) if found.author else "a management command",
        "created": found.created,
        "comment": found.comment,
    }


def yaml_errors(*, text: str, errors: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The validator's errors on a pasted or uploaded document, each with the line it is about
    (when it can be placed) and the text of that line, in line order."""
    lines = field_lines(text, [error.get("field", "") for error in errors])
    source = text.splitlines()
    out = []
    for error in errors:
        line = lines.get(error.get("field", ""))
        out.append({
            **error,
            "line": line,
            "source": source[line - 1] if line and line <= len(source) else "",
            "text": error_text(error),
        })
    return sorted(out, key=lambda error: error["line"] or 0)
