"""The engine's change log, read by the live views.

Every change gets the next sequence number and one entry: who changed and where. Sequence numbers
are consecutive, so finding the entries after a given number is an index computation, and a
reader's cost grows with what changed, not with the number of users.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True, slots=True)
class Changes:
    """What changed after a given sequence number, up to ``seq``.

    ``reset`` means the answer is incomplete (a config switch happened, or the log no longer
    reaches back that far): the reader should fetch everything again.
    """

    seq: int
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    queues: frozenset[str] = frozenset()
    reset: bool = False


class ChangeLog:
    """Three parallel lists (user, group, path prefixes) rather than a list of entries: recording
    then allocates nothing that lives on, which keeps the cyclic collector quiet on the hot path.
    A config switch is an entry whose user is None."""

    def __init__(self, capacity: int = 200_000) -> None:
        self.seq = 0
        self._capacity = capacity
        self._users: list[str | None] = []
        self._groups: list[str | None] = []
        self._paths: list[tuple[str, ...]] = []
        self._first = 1  # sequence number of the first entry kept

    def record(self, user: str | None, group: str | None, prefixes: tuple[str, ...]) -> None:
        self.seq += 1
        self._users.append(user)
        self._groups.append(group)
        self._paths.append(prefixes)
        if len(self._users) > self._capacity:
            self._drop_oldest()

    def record_reset(self) -> None:
        self.record(None, None, ())

    def _drop_oldest(self) -> None:
        # Halving keeps the amortised cost per record constant.
        drop = len(self._users) // 2
        del self._users[:drop], self._groups[:drop], self._paths[:drop]
        self._first += drop

    def since(self, seq: int) -> Changes:
        if seq >= self.seq:
            return Changes(seq=self.seq)
        start = seq + 1 - self._first
        if seq < 0 or start < 0:
            return Changes(seq=self.seq, reset=True)
        users = self._users[start:]
        if None in users:
            return Changes(seq=self.seq, reset=True)
        groups = set(self._groups[start:])
        groups.discard(None)
        # Neither holds None any more (a reset entry is the only one without a user).
        users_only, groups_only = cast("list[str]", users), cast("set[str]", groups)
        queues: set[str] = set()
        for prefixes in self._paths[start:]:
            queues.update(prefixes)
        return Changes(
            seq=self.seq,
            users=frozenset(users_only),
            groups=frozenset(groups_only),
            queues=frozenset(queues),
        )
