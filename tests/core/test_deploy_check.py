"""The production environment docs/deployment.md documents passes Django's deployment checklist:
``manage.py check --deploy --fail-level WARNING`` reports nothing with it."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "deployment.md"
MARKER = "<!-- production-env"


def documented_environment() -> dict[str, str]:
    """The ``KEY=value`` lines of the code block that follows the marker in the guide."""
    text = GUIDE.read_text(encoding="utf-8")
    after = text[text.index(MARKER):]
    block = re.search(r"```ini\n(.*?)```", after, re.DOTALL).group(1)
    env = {}
    for line in block.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip()
    return env


def test_the_guide_documents_a_complete_production_environment():
    env = documented_environment()

    assert env["QUOTAWEB_HTTPS"] == "1"
    assert env["DATABASE_URL"].startswith("postgres://")
    assert "QUOTAWEB_DEBUG" not in env
    assert {"QUOTAWEB_SECRET_KEY", "QUOTAWEB_ALLOWED_HOSTS", "QUOTAWEB_CSRF_TRUSTED_ORIGINS",
            "QUOTAWEB_ENGINE_OWNER", "REDIS_URL"} <= set(env)


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def production_environment(data_dir: Path) -> dict[str, str]:
    """This machine's environment less quotaweb's and Django's own variables, plus the guide's;
    with what the guide says to generate (the key) and a folder of the test's own for data."""
    env = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("QUOTAWEB_", "DJANGO_")) and key not in ("DATABASE_URL", "REDIS_URL")
    }
    env.update(documented_environment())
    env["QUOTAWEB_SECRET_KEY"] = secrets.token_urlsafe(50)
    env["QUOTAWEB_DATA_DIR"] = str(data_dir)
    return env


def test_check_deploy_reports_nothing_with_the_documented_environment(tmp_path):
    result = check_deploy(production_environment(tmp_path))

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr


def test_without_tls_the_checklist_warns(tmp_path):
    env = production_environment(tmp_path)
    env.pop("QUOTAWEB_HTTPS")

    result = check_deploy(env)

    assert result.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr
