"""Name rules of spec 1.2, shared by the config validator, the engine and the REST layer."""

from __future__ import annotations

import re

QUEUE_NAME_RE = re.compile(r"[a-zA-Z0-9_:#/@-]{1,64}")
USER_NAME_RE = re.compile(r"[_a-zA-Z][a-zA-Z0-9:#/_.@-]*\$?")
GROUP_NAME_RE = re.compile(r"[_a-zA-Z][a-zA-Z0-9:_.-]*")
PARTITION_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
WILDCARD = "*"
# How pages show the wildcard user or group: a bare ``*`` read like a group named "*".
WILDCARD_SHOWN = "everyone (*)"


def is_queue_name(name: str) -> bool:
    return QUEUE_NAME_RE.fullmatch(name) is not None


def is_user_name(name: str) -> bool:
    return USER_NAME_RE.fullmatch(name) is not None


def is_group_name(name: str) -> bool:
    return GROUP_NAME_RE.fullmatch(name) is not None


def is_partition_name(name: str) -> bool:
    return PARTITION_NAME_RE.fullmatch(name) is not None


def shown_name(name: str) -> str:
    """A user or group name as pages show it: the wildcard as ``WILDCARD_SHOWN``."""
    return WILDCARD_SHOWN if name == WILDCARD else name
