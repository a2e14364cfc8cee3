"""What a live socket can subscribe to (``api.md``, "Live usage websocket")."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from trackers.names import is_group_name, is_queue_name, is_user_name
from trackers.quotatree.document import TREE_NAME

KINDS = ("users", "groups", "queues", "events", "elastic")
NAMED_KINDS = ("user", "group", "tree", "queue")

ERR_SCOPE = (
    "unknown scope {scope!r}: use users, groups, queues, events, elastic, user:<name>, "
    "group:<name>, tree:<name> or queue:<path>"
)
ERR_SCOPE_NAME = "{kind} name {name!r} is not a valid {kind} name"


class ScopeInvalid(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Scope:
    # users, groups, queues, events, elastic, user, group, tree, queue (a queue and its children)
    kind: str
    name: str = ""

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.name}" if self.name else self.kind

    def group_name(self, partition: str) -> str:
        """The channel-layer group of this scope in ``partition`` (group names allow only a few
        characters and 100 of them; user names allow more)."""
        digest = hashlib.sha256(f"{partition}\0{self.text}".encode()).hexdigest()[:40]
        return f"usage.{digest}"


def scope_parse(text: object) -> Scope:
    if not isinstance(text, str) or not text:
        raise ScopeInvalid(ERR_SCOPE.format(scope=text))
    if text in KINDS:
        return Scope(text)
    kind, sep, name = text.partition(":")
    if not sep or kind not in NAMED_KINDS:
        raise ScopeInvalid(ERR_SCOPE.format(scope=text))
    if kind == "tree":
        valid = bool(TREE_NAME.match(name))
    elif kind == "queue":
        segments = name.split(".")
        valid = segments[0] == "root" and all(map(is_queue_name, segments))
    else:
        valid = is_user_name(name) if kind == "user" else is_group_name(name)
    if not valid:
        raise ScopeInvalid(ERR_SCOPE_NAME.format(kind=kind, name=name))
    return Scope(kind, name)
