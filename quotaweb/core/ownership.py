"""Claims a process makes before it loads anything: its port, and the database's engines.

``manage.py serve`` and ``demo`` (and ``simulate --in-process``) load engines from the ledger and
write to it. Two such processes on one database give contradictory answers, and the one that
loses cannot be allowed to touch the ledger on its way out: once a ``demo`` that could not bind
its port had started its simulator, adopted the other process's simulated applications and
released them all as it stopped, while the other process's engine still counted them.

So a command claims, first of all and in this order:

- ``port_claim``: its listening socket, bound and listening at once, and handed to daphne
  (``serving.serve``) instead of daphne binding later, so no other process can take the port in
  between; a busy port is refused before anything is read or loaded.
- ``ownership_claim``: the right to load engines on the database. On SQLite an exclusive
  ``flock`` on ``<database file>.lock``, held until the process ends (the kernel drops it when
  the process dies, ``kill -9`` included, so a lock file left behind never blocks a restart),
  with the holder's pid, host, address and start in the file; a second process is refused at
  once and told who holds it. On PostgreSQL (``serve`` with ``lease``) the process becomes a
  peer: it claims its name (``QUOTAWEB_NODE_NAME``, default its address) in the lease table,
  refused when a live process holds that name; which partitions it owns is then decided by the
  leases (``core.peers``). Its name is claimed once the
  database is known to be migrated (``LeaseStore.open``).

What only the owner may run (the simulator, the owner's threads) takes the ``Ownership`` as an
argument, so a process that was refused never gets to start it, nor to stop it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS

from quotaweb.leases.store import LeaseStore

ERR_PORT = (
    "Cannot listen on {address}: {reason}. Nothing was loaded; stop what listens there or "
    "choose another --port."
)
REASON_IN_USE = "the port is in use (another server listens there)"
# A busy port is most often a second start beside a running server: name it when it is ours.
REASON_IN_USE_BY_HOLDER = "the port is in use; this database is held by {holder}"
ERR_HELD = (
    "The database {database} is in use by another quotaweb process: {holder}. Nothing was "
    "loaded or changed. One process at a time owns a SQLite database's engines: stop that "
    "process first, or give this one a database of its own (DATABASE_URL)."
)
ERR_LOCK_FILE = "Cannot open the lock file {path} of the database: {error}"
HOLDER_TEXT = "pid {pid} on host {hostname} ({command}, {address}), since {since}"
# The lock is taken a moment before its holder writes who it is.
HOLDER_UNWRITTEN = "a process that is starting (it has not written its pid yet)"
NO_ADDRESS = "no port"
LOCK_SUFFIX = ".lock"


@dataclass(frozen=True)
class Holder:
    """Who claims a database: written into its lock file, read back by whoever is refused."""

    pid: int
    hostname: str
    command: str
    address: str
    since: str

    def text(self) -> str:
        return HOLDER_TEXT.format(**asdict(self))


@dataclass(frozen=True)
class Ownership:
    """This process may load the database's engines and write its ledger (made only by
    ``ownership_claim``). ``lock_path`` is None where nothing is locked (PostgreSQL);
    ``leases``, this peer's side of the lease table when it shares the partitions with peers."""

    database: str
    holder: Holder
    lock_path: Path | None
    leases: LeaseStore | None = None


# Lock file path -> its descriptor, open (so locked) until the process ends. A command run
# again in the same process (the tests' call_command) finds its own lock here.
_locks: dict[Path, int] = {}


def listen_address(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{shown}:{port}"


def port_claim(*, host: str, port: int, backlog: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening, for ``serving.serve`` to serve on;
    ``CommandError`` naming the address when it cannot be had (busy, or not this machine's).

    Listening starts now: connections made while the engines load wait in the backlog and are
    answered once the server runs. ``SO_REUSEADDR`` as Twisted sets it: a restart need not wait
    for the last run's closed connections, while a port another socket listens on stays busy."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((bare, port))
        listening.listen(backlog)
    except OSError as exc:
        listening.close()
        if exc.errno == errno.EADDRINUSE:
            holder = live_holder()
            reason = (REASON_IN_USE if holder is None
                      else REASON_IN_USE_BY_HOLDER.format(holder=holder.text()))
        else:
            reason = exc.strerror or str(exc)
        raise CommandError(
            ERR_PORT.format(address=listen_address(host, port), reason=reason)
        ) from None
    return listening


def sqlite_lock_path(alias: str = DEFAULT_DB_ALIAS) -> Path | None:
    """``<database file>.lock`` on SQLite, None on PostgreSQL."""
    database = settings.DATABASES[alias]
    if "sqlite" not in database["ENGINE"]:
        return None
    path = Path(database["NAME"]).resolve()
    return path.with_name(path.name + LOCK_SUFFIX)


def live_holder(alias: str = DEFAULT_DB_ALIAS) -> Holder | None:
    """Who the database's lock file names, while that process still runs on this host (read
    only: taking the lock to look, even for a moment, could refuse a server starting now)."""
    lock_path = sqlite_lock_path(alias)
    try:
        holder = Holder(**json.loads(lock_path.read_bytes())) if lock_path else None
    except (OSError, ValueError, TypeError):
        return None
    if holder is None or holder.hostname != socket.gethostname():
        return None
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # another user's process, alive
    return holder


def ownership_claim(
    *, command: str, address: str | None, alias: str = DEFAULT_DB_ALIAS, lease: bool = False
) -> Ownership:
    """Claim the database's engines for this process (``command`` and its listening ``address``
    name it to whoever is refused later); ``CommandError`` naming the holder when another
    process has them. Call before reading the configuration or loading anything. With
    ``lease`` on PostgreSQL, join the peers instead (module docstring)."""
    database = settings.DATABASES[alias]
    holder = Holder(
        pid=os.getpid(), hostname=socket.gethostname(), command=command,
        address=address or NO_ADDRESS,
        since=datetime.now(UTC).replace(microsecond=0).isoformat(),
    )
    lock_path = sqlite_lock_path(alias)
    if lock_path is not None:
        path = str(Path(database["NAME"]).resolve())
        _sqlite_lock(lock_path, database=path, holder=holder)
        return Ownership(database=path, holder=holder, lock_path=lock_path)
    leases = None
    if lease:
        leases = LeaseStore(
            name=settings.QUOTAWEB_NODE_NAME or holder.address,
            address=settings.QUOTAWEB_PEER_ADDRESS or holder.address,
            ttl_ms=settings.QUOTAWEB_LEASE_MS,
        )
    return Ownership(
        database=str(database["NAME"]), holder=holder, lock_path=None, leases=leases
    )


def _sqlite_lock(lock_path: Path, *, database: str, holder: Holder) -> None:
    descriptor = _locks.get(lock_path)
    if descriptor is None:
        try:
            # Not inherited by child processes (PEP 446): the lock lives exactly as long as this
            # process.
            descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise CommandError(ERR_LOCK_FILE.format(path=lock_path, error=exc)) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held_by = lock_holder_text(descriptor)
            os.close(descriptor)
            raise CommandError(ERR_HELD.format(database=database, holder=held_by)) from None
        _locks[lock_path] = descriptor
    text = json.dumps(asdict(holder)).encode()
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, text + b"\n", 0)


def lock_holder_text(descriptor: int) -> str:
    """Who wrote the lock file open at ``descriptor``, as the refusal names them."""
    data = os.pread(descriptor, 4096, 0)
    try:
        return Holder(**json.loads(data)).text()
    except (ValueError, TypeError):
        return HOLDER_UNWRITTEN
