"""Every relative link in the README and in docs/ leads somewhere: the file exists in the
repository, and a ``#fragment`` names a heading of that file (as GitHub makes anchors of
headings). A user's clone holds only the repository, so no page may point outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"!?\[(?:[^\]\n]|\n(?!\n))*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where link syntax means nothing."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def relative_links(page: Path) -> list[str]:
    targets = INLINE_LINK.findall(prose(page.read_text(encoding="utf-8")))
    return [target for target in targets if not EXTERNAL.match(target)]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = anchor(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken(page: Path, target: str) -> str | None:
    """Why ``target``, linked from ``page``, leads nowhere; None when it resolves."""
    path, _, fragment = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    if not destination.is_relative_to(ROOT):
        return f"{target} leaves the repository"
    if not destination.exists():
        return f"{target}: no such file"
    if fragment and destination.suffix == ".md" and fragment not in anchors(destination):
        return f"{target}: {destination.name} has no heading with the anchor #{fragment}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    problems = [problem for target in relative_links(page) if (problem := broken(page, target))]

    assert problems == []


def test_the_pages_do_link_to_each_other():
    # The check above would pass on pages whose links it failed to find.
    readme_links = relative_links(ROOT / "README.md")

    assert "docs/tour.md" in readme_links
    assert any("#" in target for page in PAGES for target in relative_links(page))


def test_a_broken_link_or_anchor_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    guide = tmp_path / "docs" / "guide.md"
    guide.write_text("# Guide\n\n## The `x` part (`/ws/v1/`)\n\n## Twice\n\n## Twice\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/guide.md#the-x-part-wsv1) [second](docs/guide.md#twice-1)\n"
        "[gone](docs/missing.md) [bad anchor](docs/guide.md#nowhere) [out](../shared/x.md)\n"
        "`[code](docs/missing.md)` [web](https://example.org/)\n"
    )

    problems = [problem for target in relative_links(page) if (problem := broken(page, target))]

    assert problems == [
        "docs/missing.md: no such file",
        "docs/guide.md#nowhere: guide.md has no heading with the anchor #nowhere",
        "../shared/x.md leaves the repository",
    ]
