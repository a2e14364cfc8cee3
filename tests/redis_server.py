"""A private ``redis-server`` for fault tests: on a free port, nothing kept on disk (as the
deployment's Redis here), in a folder of its own; it can be killed and started again on the same
port. Tests that use it skip when ``redis-server`` is not installed."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.server_process import free_port

STARTUP_SECONDS = 20


def redis_server_path() -> str | None:
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )


def redis_server_or_skip() -> str:
    path = redis_server_path()
    if path is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    return path


class RedisServer:
    def __init__(self, folder: Path, binary: str) -> None:
        self.folder, self.binary = folder, binary
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = (folder / f"redis-{self.port}.log").open("ab")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            cwd=self.folder, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"redis-server exited while starting; see {self.log.name}")
            if self._answers():
                return
            time.sleep(0.05)
        raise AssertionError("redis-server did not start answering")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """As a crash would: every client's connection drops, and all data is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def close(self) -> None:
        self.kill()
        self.log.close()
