"""A directory user's identity as the role check reads it: the stored groups, read again from
the directory when they are older than their source's cache time.

Apart from ``quotaweb.accounts.directory`` (which writes identities) so that the roles can read
them without importing what writes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import OperationalError
from django.utils import timezone

from quotaweb.accounts.models import DirectoryIdentity

ERR_UNAVAILABLE = "The {source} directory did not answer in time: {reason}"


# A subclass of the database's error on purpose: every path that answers "the database is away"
# with 503 and Retry-After (pages, API, sockets) answers a directory that is away the same way.
class DirectoryUnavailable(OperationalError):
    pass


@dataclasses.dataclass(frozen=True)
class Refresher:
    """How a source reads a person's groups again: ``refresh(identity)`` calls
    ``directory_user_sync`` (or ``directory_user_gone``) and raises ``DirectoryUnavailable``
    when the directory does not answer."""

    # None: keep the stored groups (the source is not configured).
    max_age: Callable[[], float | None]
    refresh: Callable[[DirectoryIdentity], None]


_refreshers: dict[str, Refresher] = {}


def directory_refresher_register(*, source: str, refresher: Refresher) -> None:
    _refreshers[source] = refresher


def directory_identity_current(user: Any) -> DirectoryIdentity | None:
    """The user's directory identity with groups no older than their source's cache time (read
    again from the directory if needed), or None for a local account."""
    try:
        identity = user.directory_identity
    except DirectoryIdentity.DoesNotExist:
        return None
    refresher = _refreshers.get(identity.source)
    if refresher is None or not identity.present:
        return identity
    max_age = refresher.max_age()
    if max_age is None or timezone.now() - identity.synced_at < timedelta(seconds=max_age):
        return identity
    refresher.refresh(identity)
    identity.refresh_from_db()
    return identity
