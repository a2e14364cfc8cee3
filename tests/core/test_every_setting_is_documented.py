"""Every environment variable quotaweb reads is documented in docs/deployment.md, the guide that
lists them all, and every ``QUOTAWEB_`` variable the README or a guide names exists in the code:
a setting nobody can find is as bad as a documented one that does nothing."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_GUIDE = ROOT / "docs" / "deployment.md"
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_FOLDERS = ("quotaweb", "trackers", "bin", "benchmarks", "tests", ".ci")
QUOTAWEB_NAME = r"QUOTAWEB_[A-Z0-9_]*[A-Z0-9]"
VARIABLE = re.compile(rf"{QUOTAWEB_NAME}|DATABASE_URL|REDIS_URL|PROMETHEUS_MULTIPROC_DIR")


def variables_read(folder: Path) -> set[str]:
    """The variable names the package's code spells out as strings."""
    found = set()
    for source in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and VARIABLE.fullmatch(node.value):
                found.add(node.value)
    return found


def code_text() -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for folder in CODE_FOLDERS
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and path.suffix != ".md" and ".venv" not in path.parts
    )


def test_the_package_does_read_variables():
    # The check below would pass on a scan that found nothing.
    assert {"QUOTAWEB_DEBUG", "DATABASE_URL", "REDIS_URL"} <= variables_read(ROOT / "quotaweb")


def test_every_variable_the_package_reads_is_in_the_deployment_guide():
    guide = SETTINGS_GUIDE.read_text(encoding="utf-8")

    missing = {name for name in variables_read(ROOT / "quotaweb") if f"`{name}`" not in guide}

    assert missing == set()


def test_every_variable_the_guides_name_exists_in_the_code():
    code = code_text()
    named = {
        (guide.name, name)
        for guide in GUIDES
        for name in re.findall(QUOTAWEB_NAME, guide.read_text(encoding="utf-8"))
    }

    assert {(guide, name) for guide, name in named if name not in code} == set()
