"""The engine's change log, read by the live views.

Every change gets the next sequence number and one entry: who changed and where. Sequence numbers
are consecutive, so finding the entries after a given number is an index computation, and a
reader's cost grows with what changed, not with the number of users.
"""

from __future__ import annotations

from dataclasses import dataclass

# An entry for a change of limits (a config switch): every tree may look different.
_RESET = None


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
    def __init__(self, capacity: int = 200_000) -> None:
        self.seq = 0
        self._capacity = capacity
        self._entries: list[tuple[str, str | None, tuple[str, ...]] | None] = []
        self._first = 1  # sequence number of self._entries[0]

    def record(self, user: str, group: str | None, prefixes: tuple[str, ...]) -> None:
        self.seq += 1
        self._entries.append((user, group, prefixes))
        if len(self._entries) > self._capacity:
            self._drop_oldest()

    def record_reset(self) -> None:
        self.seq += 1
        self._entries.append(_RESET)
        if len(self._entries) > self._capacity:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        # Halving keeps the amortised cost per record constant.
        drop = len(self._entries) // 2
        del self._entries[:drop]
        self._first += drop

    def since(self, seq: int) -> Changes:
        if seq >= self.seq:
            return Changes(seq=self.seq)
        if seq < 0 or seq + 1 < self._first:
            return Changes(seq=self.seq, reset=True)
        users: set[str] = set()
        groups: set[str] = set()
        queues: set[str] = set()
        for entry in self._entries[seq + 1 - self._first :]:
            if entry is _RESET:
                return Changes(seq=self.seq, reset=True)
            user, group, prefixes = entry
            users.add(user)
            if group is not None:
                groups.add(group)
            queues.update(prefixes)
        return Changes(
            seq=self.seq, users=frozenset(users), groups=frozenset(groups), queues=frozenset(queues)
        )
