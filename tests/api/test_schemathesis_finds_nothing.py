"""schemathesis, the OpenAPI fuzzer, against a live server with every one of its checks: every
operation of /api/v1/ and /ws/v1/ answers only documented statuses with bodies that fit the
schema, never 5xx, accepts what the schema allows and refuses what it does not.

It runs the ``st`` command as a user would, against a server started the documented production
way (``serve``, migrated, one admin whose token the fuzzer sends), bounded by example counts so
the run takes a few minutes at most; any finding fails the test with schemathesis' own report.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.configs import ELASTIC_YAML
from tests.server_process import ServerProcess, free_port

# Examples per operation and phase: enough to reach every parameter and body shape, small
# enough that the 68 operations (about 4,700 cases) take a minute or two on two cores.
MAX_EXAMPLES = 40
CONFIG = Path(__file__).with_name("schemathesis.toml")
RUN_SECONDS = 600


@pytest.fixture
def server(tmp_path: Path):
    process = ServerProcess(tmp_path, free_port(), config_yaml=ELASTIC_YAML, production=True)
    process.migrate()
    token = process.create_admin("fuzzer", "fuzz-only-password-3141")
    with process.running("serve"):
        yield process, token


def test_schemathesis_with_every_check_finds_nothing(server, tmp_path: Path):
    process, token = server
    base = f"http://127.0.0.1:{process.port}"
    command = [
        str(Path(sys.executable).with_name("st")), "--config-file", str(CONFIG),
        "run", f"{base}/api/schema/?format=json",
        "--url", base,
        "--header", f"Authorization: Token {token}",
        "--checks", "all",
        "--include-path-regex", "^/(api|ws)/v1/",
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-examples", str(MAX_EXAMPLES),
        "--generation-deterministic",
        "--workers", "1",
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_SECONDS, check=False,
        env={**os.environ, "NO_COLOR": "1"}, cwd=tmp_path,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-20000:]
    # Every generated case passed every check (warnings, such as "mostly rejected generated data"
    # for the documents judged as a whole, are not failures).
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts is not None, report[-20000:]
    assert counts[1] == counts[2], report[-20000:]
    assert int(counts[1]) > 1000, report[-20000:]
