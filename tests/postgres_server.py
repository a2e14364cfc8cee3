"""A private PostgreSQL for fault tests and benchmarks: a cluster of its own (``initdb``) on a free
port of 127.0.0.1, in a folder of its own, that can be frozen (SIGSTOP of the postmaster and its
children, as a hung host would look), thawed, stopped (``pg_ctl stop -m fast``) and started again
on the same port. Never the machine's shared server.

Debian's binaries refuse to run as root (the tests do): they run as the ``postgres`` user through
``runuser``. Tests that use it skip when the binaries are missing."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from tests.server_process import free_port

BIN = Path(os.environ.get("QUOTAWEB_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
USER = "postgres"
STARTUP_SECONDS = 60


def postgres_missing() -> str | None:
    """Why a private PostgreSQL cannot be started here, or None."""
    if not (BIN / "initdb").exists() or not (BIN / "pg_ctl").exists():
        return f"PostgreSQL's initdb and pg_ctl are not in {BIN} (apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "runuser is missing: initdb refuses to run as root"
    return None


def peers_missing() -> str | None:
    """Why the tests of several ``serve`` peers do not run in this pass, or None. They start a
    PostgreSQL of their own whatever database the suite uses, so running them in both of
    ``.ci/run``'s passes would only repeat them: they run in the suite's PostgreSQL pass
    (``DATABASE_URL`` naming PostgreSQL), where the peers' feature lives."""
    missing = postgres_missing()
    if missing is not None:
        return missing
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        return ("the serve-peer tests run once, in the suite's PostgreSQL pass "
                "(DATABASE_URL=postgres://...; docs/testing.md)")
    return None


class PostgresServer:
    def __init__(self) -> None:
        self.port = free_port()
        # Not under pytest's tmp_path: the postgres user must reach it, and root's is private.
        self.folder = Path(tempfile.mkdtemp(prefix="quotaweb-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        if os.geteuid() == 0:
            shutil.chown(self.folder, USER, USER)
        self._run(str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")

    def _run(self, *command: str, timeout: float = STARTUP_SECONDS) -> None:
        prefix = ["runuser", "-u", USER, "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=timeout)

    def url(self, database: str = "quotaweb") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c fsync=off -c shared_buffers=16MB -c max_connections=60"
        )
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o",
                  options, "-w", "-t", str(STARTUP_SECONDS), "start")

    def create_database(self, name: str = "quotaweb") -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m <mode>``: ``fast`` ends every session at once (rolling back what is
        not committed) and shuts down cleanly."""
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def _pids(self) -> list[int]:
        """The postmaster, then its children."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
        return [postmaster, *map(int, children)]

    def freeze(self) -> None:
        """Every process of the server stopped (SIGSTOP), the postmaster first so that it forks
        no new one: connections are accepted by the kernel and nothing answers."""
        for pid in self._pids():
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in reversed(self._pids()):
            # A backend whose client just left may be gone between the listing and the signal.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def close(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.thaw()
                self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
