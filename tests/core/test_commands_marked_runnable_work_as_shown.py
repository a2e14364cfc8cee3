"""Every shell block the README or a guide in docs/ marks as runnable (an HTML comment
``<!-- runnable -->`` on the line before a ```bash block: invisible on GitHub and on the site)
works exactly as shown. Each page's blocks run in order, as a reader would type them, in a folder
of their own that stands in for a clone where ``bash bin/run`` has run once: the project's files,
the demo's database (migrated, the demo logins, the sample configuration as version 1) and no
quotaweb variable set. Only commands that neither serve nor run for long are marked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- runnable -->"
# On a line of its own; in a code span it is only being talked about.
MARKER_LINE = re.compile(rf"^{re.escape(MARKER)}$", re.MULTILINE)
RUNNABLE_BLOCK = re.compile(rf"^{re.escape(MARKER)}\n```bash\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# A page's blocks together; each manage.py command takes a second or two here.
PAGE_TIMEOUT_SECONDS = 180
# What bin/run leaves in data/ before it serves (manage.py demo, without the server).
DEMO_STATE = """
from django.core.management import call_command
from quotaweb.accounts.services import accounts_demo_ensure
call_command("migrate", verbosity=0)
accounts_demo_ensure()
call_command("import_config", "quotaweb/samples/queues.yaml", comment="the sample")
"""


def runnable_blocks(text: str) -> list[str]:
    return RUNNABLE_BLOCK.findall(text)


def reader_environment(data_dir: Path) -> dict[str, str]:
    """The test run's environment less everything quotaweb or Django would read, with the data
    folder (the SQLite database) in the sandbox rather than the repository's data/."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("QUOTAWEB_", "DJANGO_"))
        and name not in {"DATABASE_URL", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"}
    }
    return {**kept, "QUOTAWEB_DATA_DIR": str(data_dir)}


def clone_of(folder: Path) -> Path:
    """A folder with the repository's files linked in, and .venv the one running these tests,
    so that what a block writes there leaves the repository alone."""
    folder.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in {".venv", "data", "site", ".git"}:
            (folder / entry.name).symlink_to(entry)
    (folder / ".venv").symlink_to(Path(sys.prefix))
    return folder


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("demo-data")
    made = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", DEMO_STATE],
        cwd=ROOT,
        env={**reader_environment(data), "QUOTAWEB_DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT_SECONDS,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    return data


def pages_with_runnable_blocks() -> list[Path]:
    return [page for page in PAGES if runnable_blocks(page.read_text(encoding="utf-8"))]


def test_every_marker_stands_before_a_bash_block():
    # A marker before anything else would leave its block unrun without a word.
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert len(MARKER_LINE.findall(text)) == len(runnable_blocks(text)), page.name


def test_the_guides_do_mark_commands():
    # The test below would pass on pages where the marker is never found.
    assert {"configuration.md", "demo.md"} <= {page.name for page in pages_with_runnable_blocks()}


@pytest.mark.parametrize(
    "page", pages_with_runnable_blocks(), ids=lambda page: str(page.relative_to(ROOT))
)
def test_the_commands_marked_runnable_work_as_shown(page, demo_data, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo_data, data)
    script = "\n".join(runnable_blocks(page.read_text(encoding="utf-8")))

    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=clone_of(tmp_path / "clone"),
        env=reader_environment(data),
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT_SECONDS,
        check=False,
    )

    assert run.returncode == 0, f"{script}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
