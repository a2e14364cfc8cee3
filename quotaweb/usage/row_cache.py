"""The rows of the users and groups lists, kept between requests and brought up to date from the
engine's change log, so a page of 50 out of 10,000 users rebuilds only the users that changed
since the last page anyone asked for, not all 10,000.

One entry per partition and list, for the gateway it was read from (tests and restarts make a new
gateway, which starts the entry afresh). A configuration switch, or a change log that no longer
reaches back to the entry, reads the whole list again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from quotaweb.engine.gateway import Gateway
from quotaweb.usage.rows import EntityRow, entity_row

# Which name each list's REST objects carry, and which names the change log keeps for it.
_NAME_KEY = {"users": "userName", "groups": "groupName"}


@dataclass
class _Entry:
    gateway: Gateway
    seq: int
    rows: dict[str, EntityRow]
    lock: threading.Lock = field(default_factory=threading.Lock)


_entries: dict[tuple[str, str], _Entry] = {}
_entries_lock = threading.Lock()


def entity_rows_read(*, gateway: Gateway, partition: str, kind: str) -> list[EntityRow]:
    """Every user (``kind`` "users") or group ("groups") of ``partition`` as a list row, current
    as of this call."""
    with _entries_lock:
        entry = _entries.get((partition, kind))
        if entry is None or entry.gateway is not gateway:
            entry = _entries[(partition, kind)] = _Entry(gateway, -1, {})
    with entry.lock:
        changes = gateway.changes_since(partition, entry.seq) if entry.seq >= 0 else None
        if changes is None or changes.reset:
            # The counter first: whatever changes while the list is read comes again next time.
            entry.seq = gateway.seq(partition)
            objects = (gateway.users_usage(partition) if kind == "users"
                       else gateway.groups_usage(partition))
            entry.rows = {obj[_NAME_KEY[kind]]: entity_row(obj[_NAME_KEY[kind]], obj)
                          for obj in objects}
        else:
            entry.seq = changes.seq
            names = changes.users if kind == "users" else changes.groups
            if names:
                read = (gateway.users_usage_of if kind == "users" else gateway.groups_usage_of)
                for name, obj in read(partition, names).items():
                    if obj is None:
                        entry.rows.pop(name, None)
                    else:
                        entry.rows[name] = entity_row(name, obj)
        return list(entry.rows.values())


def entity_rows_of(
    *, gateway: Gateway, partition: str, kind: str, names: list[str]
) -> list[EntityRow]:
    """The rows of ``names`` (users or groups, as ``kind``) in their order, each read now; a
    name gone meanwhile is left out."""
    read = gateway.users_usage_of if kind == "users" else gateway.groups_usage_of
    objects = read(partition, names)
    return [entity_row(name, obj) for name in names if (obj := objects.get(name)) is not None]
