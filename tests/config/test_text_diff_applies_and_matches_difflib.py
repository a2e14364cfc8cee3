"""The configuration pages' unified diff (``quotaweb.config.text_diff``): applied to the old
text it gives the new one, every hunk's header counts its lines where they are in the whole
texts, and for texts that differ in one place it marks no line outside the change and makes
of the old text what ``difflib.unified_diff`` of the whole texts makes."""

from __future__ import annotations

import difflib
import re

from hypothesis import given
from hypothesis import strategies as st

from quotaweb.config.text_diff import unified_diff

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")
# Few distinct lines, so texts repeat lines as YAML documents do (the hard case for matching).
LINES = st.lists(st.sampled_from(["a\n", "b\n", "  max: 1\n", "c\n", "- name: x\n"]),
                 max_size=40)


def _patched(old: str, diff: list[str]) -> str:
    """``old`` with the hunks of ``diff`` applied, checking each hunk against ``old``."""
    lines = old.splitlines(keepends=True)
    out: list[str] = []
    taken = 0
    at = 2  # after the two file lines
    while at < len(diff):
        match = HUNK.fullmatch(diff[at])
        assert match, diff[at]
        start, length = int(match[1]), int(match[2] if match[2] is not None else 1)
        new_length = int(match[4] if match[4] is not None else 1)
        first = start - 1 if length else start
        out.extend(lines[taken:first])
        taken = first
        at += 1
        seen_old = seen_new = 0
        while at < len(diff) and not diff[at].startswith("@@"):
            mark, line = diff[at][0], diff[at][1:]
            if mark in " -":
                assert lines[taken] == line
                taken += 1
                seen_old += 1
            if mark in " +":
                out.append(line)
                seen_new += 1
            at += 1
        assert (seen_old, seen_new) == (length, new_length)
    out.extend(lines[taken:])
    return "".join(out)


@given(old=LINES, new=LINES)
def test_the_diff_turns_the_old_text_into_the_new(old, new):
    before, after = "".join(old), "".join(new)
    diff = list(unified_diff(before, after, fromfile="old", tofile="new"))
    if before == after:
        assert diff == []
        return
    assert diff[:2] == ["--- old\n", "+++ new\n"]
    assert _patched(before, diff) == after


def _changed(diff: list[str]) -> int:
    return sum(1 for line in diff[2:] if line[0] in "+-")


@given(
    shared_head=st.lists(st.sampled_from(["a\n", "b\n", "c\n"]), max_size=30),
    changed_old=st.lists(st.sampled_from(["x\n", "y\n", "a\n"]), max_size=3),
    changed_new=st.lists(st.sampled_from(["x\n", "z\n", "b\n"]), min_size=1, max_size=3),
    shared_tail=st.lists(st.sampled_from(["a\n", "d\n"]), max_size=30),
)
def test_one_change_is_marked_within_the_change(shared_head, changed_old, changed_new,
                                               shared_tail):
    old = "".join(shared_head + changed_old + shared_tail)
    new = "".join(shared_head + changed_new + shared_tail)
    ours = list(unified_diff(old, new, fromfile="a", tofile="b"))
    theirs = list(difflib.unified_diff(old.splitlines(keepends=True),
                                       new.splitlines(keepends=True), fromfile="a", tofile="b"))
    # difflib matches the longest run first, which may pair a changed line with a shared one
    # elsewhere: the diffs may differ, never in what they make of the old text; ours marks no
    # line outside the change.
    assert _patched(old, ours) == new == _patched(old, theirs)
    assert _changed(ours) <= len(changed_old) + len(changed_new)


def test_a_text_without_a_final_line_ending_keeps_it_so():
    diff = list(unified_diff("a\nb", "a\nc", fromfile="old", tofile="new"))
    assert diff == ["--- old\n", "+++ new\n", "@@ -1,2 +1,2 @@\n", " a\n", "-b", "+c"]


def test_a_large_document_with_one_changed_line_is_diffed_around_it():
    old = "".join(f"  - name: q{n}\n    max: {n}\n" for n in range(100_000))
    new = old.replace("    max: 50000\n", "    max: 50001\n")
    diff = list(unified_diff(old, new, fromfile="old", tofile="new"))
    assert diff[2] == "@@ -99999,7 +99999,7 @@\n"
    assert diff[6:8] == ["-    max: 50000\n", "+    max: 50001\n"]
