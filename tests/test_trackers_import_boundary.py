"""``trackers`` is a plain library: it must import nothing from Django or quotaweb."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRACKERS = ROOT / "trackers"
FORBIDDEN = ("django", "quotaweb", "channels", "channels_redis", "daphne", "rest_framework")


def test_importing_every_trackers_module_loads_no_web_framework():
    pytest.importorskip("trackers")
    script = textwrap.dedent(
        f"""
        import importlib, pkgutil, sys
        import trackers
        for info in pkgutil.walk_packages(trackers.__path__, "trackers."):
            importlib.import_module(info.name)
        forbidden = {FORBIDDEN!r}
        leaked = sorted(
            name for name in sys.modules
            if name.split(".")[0] in forbidden
        )
        print("\\n".join(leaked))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"trackers pulled in: {result.stdout.split()}"


def imported_roots(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def test_no_trackers_source_file_names_a_web_framework_import():
    sources = sorted(TRACKERS.rglob("*.py"))
    assert sources, "trackers/ has no Python files"

    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {root}"
        for path in sources
        for line, root in imported_roots(path)
        if root in FORBIDDEN
    ]
    assert offences == []
