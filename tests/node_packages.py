"""The node packages the tests use (package.json pins them, package-lock.json locks the tree):
installed with ``npm ci`` into node_modules/ the first time a test needs one, or when the
version there is not the pinned one. Without node and npm a test is skipped, except under
CI=true, where it fails: CI must exercise them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# npm ci of the whole lock file; bounded like every wait.
NPM_CI_TIMEOUT_SECONDS = 300


def missing_tool(message: str) -> None:
    """Skip the test for a tool this machine lacks, or fail it under CI."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def node_package(name: str) -> Path:
    """The folder of package ``name`` at the version package.json pins, installed if needed."""
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"][name]
    installed = ROOT / "node_modules" / name
    manifest = installed / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text())["version"] != pinned:
        npm = shutil.which("npm")
        if npm is None:
            missing_tool(f"npm is needed to install {name} (package.json) for this test")
        subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=ROOT, check=True,
            capture_output=True, timeout=NPM_CI_TIMEOUT_SECONDS,
        )
    return installed
