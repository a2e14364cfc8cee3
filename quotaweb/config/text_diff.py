"""Unified diffs of two configuration texts at the cost of what changed.

``difflib`` matches every line of one text against the other: two 300,000-line versions of a
10,000-queue document that differ in one value took it 6 s, on a page that must answer in
300 ms. Versions mostly differ in a few places, so the lines both texts share at their start
and at their end are set aside first (one linear scan each) and ``difflib`` matches only what
lies between; the shared lines give the hunks their context and the hunks keep their line
numbers in the whole texts.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence

CONTEXT_LINES = 3


def unified_diff(
    old: str, new: str, *, fromfile: str, tofile: str, context: int = CONTEXT_LINES
) -> Iterator[str]:
    """The lines of a unified diff from ``old`` to ``new`` (nothing when they are equal), each
    with its line ending when the text had one."""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    header = True
    for group in _Trimmed(before, after).get_grouped_opcodes(context):
        if header:
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
            header = False
        first, last = group[0], group[-1]
        yield f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (f" {line}" for line in before[i1:i2])
                continue
            yield from (f"-{line}" for line in before[i1:i2])
            yield from (f"+{line}" for line in after[j1:j2])


class _Trimmed(difflib.SequenceMatcher):
    """A matcher of two texts' lines that matches only what lies between their shared first
    and last lines; the opcodes cover the whole texts, the shared lines as two equal runs."""

    def __init__(self, before: Sequence[str], after: Sequence[str]) -> None:
        self.head = _shared_head(before, after)
        self.tail = _shared_tail(before, after, limit=min(len(before), len(after)) - self.head)
        self.lengths = len(before), len(after)
        super().__init__(None, before[self.head:len(before) - self.tail],
                         after[self.head:len(after) - self.tail])

    def get_opcodes(self) -> list[tuple[str, int, int, int, int]]:
        head, tail = self.head, self.tail
        (old_length, new_length) = self.lengths
        codes = [("equal", 0, head, 0, head)] if head else []
        codes += [(tag, i1 + head, i2 + head, j1 + head, j2 + head)
                  for tag, i1, i2, j1, j2 in super().get_opcodes()]
        if tail:
            codes.append(("equal", old_length - tail, old_length, new_length - tail, new_length))
        return codes


def _shared_head(before: Sequence[str], after: Sequence[str]) -> int:
    count = 0
    for one, other in zip(before, after, strict=False):
        if one != other:
            break
        count += 1
    return count


def _shared_tail(before: Sequence[str], after: Sequence[str], *, limit: int) -> int:
    count = 0
    while count < limit and before[-1 - count] == after[-1 - count]:
        count += 1
    return count


def _span(start: int, stop: int) -> str:
    """A hunk's lines ``[start, stop)`` (counted from 0) as a unified diff names them: from 1,
    the length left out when it is 1, and an empty span named by the line before it."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"
