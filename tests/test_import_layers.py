"""The house runs one way: every import in ``quotaweb`` points to its own app or a lower layer,
and no modules import each other in a circle (docs/development.md, "Layers").

The layers, bottom first (``trackers`` below them all has its own boundary test):

1. the project's own modules beside the settings: ``settings``, ``env``, ``metrics``,
   ``redaction``, ``css_sizes``, ``compression``, ``ldap_settings``, the channel layer, the
   PostgreSQL backend;
2. ``engine`` and ``accounts``;
3. ``config`` and ``allocations``;
4. ``api``, ``usage``, ``teams`` and the engines' own apps;
5. ``core`` and the URL and ASGI wiring (``origins``: which pages may open a socket).

Apps of one layer may use each other one way only (``teams`` shows usage); a cycle between apps
is refused like an arrow up. Imports inside functions count as much as those at the top.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "quotaweb"

LAYERS: dict[str, int] = {
    "settings": 1, "settings_test": 1, "env": 1, "metrics": 1, "channel_layer": 1, "redaction": 1,
    "css_sizes": 1, "compression": 1, "ldap_settings": 1,
    "postgresql": 1,
    "engine": 2, "accounts": 2, "leases": 2,
    "config": 3, "allocations": 3,
    "api": 4, "usage": 4, "teams": 4, "elastic": 4,
    "quotatrees": 4, "whatif": 4,
    "core": 5, "urls": 5, "asgi": 5, "origins": 5, "routing": 5, "wsgi": 5,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def app_of(module: str) -> str | None:
    """``quotaweb.config.selectors`` -> ``config``; None outside quotaweb or for the package."""
    parts = module.split(".")
    if parts[0] != "quotaweb" or len(parts) < 2:
        return None
    return parts[1]


def imports_of(path: Path, module: str) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in the file, relative ones resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield node.lineno, target
            # ``from quotaweb.config import selectors`` imports a module, not a name.
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def source_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts)


def module_graph(files: list[Path]) -> dict[str, dict[str, int]]:
    """Each quotaweb module -> the quotaweb modules it imports (with a line number)."""
    modules = {module_name(path): path for path in files}
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        for line, target in imports_of(path, module):
            if target in modules and target != module:
                edges.setdefault(target, line)
    return graph


def arrows_up(graph: dict[str, dict[str, int]]) -> list[str]:
    found = []
    for module, targets in graph.items():
        source_app = app_of(module)
        for target, line in targets.items():
            target_app = app_of(target)
            if source_app is None or target_app is None or source_app == target_app:
                continue
            if LAYERS[target_app] > LAYERS[source_app]:
                found.append(f"{module}:{line} imports {target} (layer {LAYERS[target_app]} "
                             f"above {source_app}'s {LAYERS[source_app]})")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def app_graph(graph: dict[str, dict[str, int]]) -> dict[str, set[str]]:
    apps: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = app_of(module)
        if source is None:
            continue
        for target in targets:
            target_app = app_of(target)
            if target_app is not None and target_app != source:
                apps.setdefault(source, set()).add(target_app)
    return apps


def test_every_app_has_a_layer():
    apps = {app_of(module_name(path)) for path in source_files()} - {None}
    assert apps - set(LAYERS) == set(), "place the new app in LAYERS and docs/development.md"


def test_no_import_points_to_a_higher_layer():
    assert arrows_up(module_graph(source_files())) == []


def test_no_two_apps_import_each_other():
    assert cycles(app_graph(module_graph(source_files()))) == []


def test_no_modules_import_each_other_in_a_circle():
    graph = module_graph(source_files())
    assert cycles({module: set(targets) for module, targets in graph.items()}) == []


# -- the checks themselves catch what they are for ---------------------------------------------


@pytest.fixture
def bad_tree(tmp_path, monkeypatch):
    """A copy of the package layout with files written by the test."""
    package = tmp_path / "quotaweb"
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)

    def write(relative: str, text: str) -> Path:
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write


def test_an_arrow_up_is_found(bad_tree):
    files = [
        bad_tree("engine/gateway.py", "from quotaweb.config.selectors import active_version\n"),
        bad_tree("config/selectors.py", "active_version = None\n"),
    ]
    assert arrows_up(module_graph(files)) == [
        "quotaweb.engine.gateway:1 imports quotaweb.config.selectors (layer 3 above engine's 2)"
    ]


def test_a_circle_inside_an_app_is_found(bad_tree):
    files = [
        bad_tree("config/selectors.py", "def f():\n    from quotaweb.config import services\n"),
        bad_tree("config/services.py", "from quotaweb.config.selectors import f\n"),
    ]
    assert cycles({m: set(t) for m, t in module_graph(files).items()}) == [
        ["quotaweb.config.selectors", "quotaweb.config.services"]
    ]


def test_two_apps_of_one_layer_importing_each_other_are_found(bad_tree):
    files = [
        bad_tree("usage/views.py", "from quotaweb.teams.models import TeamLink\n"),
        bad_tree("teams/models.py", "TeamLink = None\n"),
        bad_tree("teams/views.py", "from quotaweb.usage import views\n"),
    ]
    graph = module_graph(files)
    assert arrows_up(graph) == []
    assert cycles(app_graph(graph)) == [["teams", "usage"]]
