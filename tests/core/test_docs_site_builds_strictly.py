"""docs/ builds as a site (MkDocs, Material theme; mkdocs.yml) with no warning at all: strict mode
turns a broken link, a missing anchor or a page left out of the navigation into a failed build.
The site's home page is the README and its navigation the README's list of guides, in order."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE_SOURCES = ("mkdocs.yml", "mkdocs_hooks.py", "README.md", "docs")
# A whole build takes under a second here; the bound is for a loaded machine.
BUILD_TIMEOUT_SECONDS = 120


def mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess[str]:
    # Material prints a notice about its successor on every build unless told not to.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_SECONDS,
        check=False,
    )


def warnings(build: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in build.stderr.splitlines() if line.startswith("WARNING")]


def nav_pages(html: str) -> list[str]:
    """The pages the site's navigation links to, in order, each once."""
    return list(dict.fromkeys(re.findall(r'href="([\w-]+\.html)" class="md-nav__link', html)))


def test_the_docs_build_as_a_site_without_a_warning(tmp_path):
    build = mkdocs_build(ROOT, tmp_path / "site")

    assert warnings(build) == []
    assert build.returncode == 0, build.stderr
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    documentation = (ROOT / "README.md").read_text(encoding="utf-8").split("## Documentation")[1]
    readme_guides = re.findall(r"\]\(docs/([\w-]+)\.md\)", documentation)
    assert nav_pages(home) == ["index.html", *[f"{guide}.html" for guide in readme_guides]]
    # The README's links into docs/ lead to the site's pages from its home page.
    assert 'href="tour.html"' in home
    assert 'href="docs/' not in home


def test_a_broken_link_a_missing_anchor_or_an_unlisted_page_fails_the_build(tmp_path):
    project = tmp_path / "project"
    for name in SITE_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, project / name)
        else:
            project.mkdir(exist_ok=True)
            shutil.copy(source, project / name)
    tour = project / "docs" / "tour.md"
    tour.write_text(
        tour.read_text(encoding="utf-8")
        + "\n[gone](missing.md) [no such part](quota-models.md#nowhere)\n",
        encoding="utf-8",
    )
    (project / "docs" / "unlisted.md").write_text("# Not in the README\n", encoding="utf-8")

    build = mkdocs_build(project, tmp_path / "site")

    assert build.returncode != 0
    found = "\n".join(warnings(build))
    assert "'missing.md'" in found
    assert "'#nowhere'" in found
    assert 'not included in the "nav"' in found
    assert "- unlisted.md" in build.stderr
