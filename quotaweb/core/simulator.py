"""Simulated scheduler load: users with bursty applications, some asking beyond their limits.

One piece (a little over 700 lines): the population, the application model, the pacing and the
two targets are one simulation and change together; split, each part would need the others.

A ``Simulator`` plays one partition. Its people come from the active configuration: every user and
group named in a limit, plus generated users (``user-01`` ...) who fall under the wildcard limits.
Each submits applications to a few leaf queues: an application is a burst of identical
allocations (memory in GiB, vcore in millicores, a GPU where the queue has them) that runs for a
while and is then released as a whole. Greedy users ask for more than their limits allow, so
denials show up beside the admissions.

The simulator sends its operations to a ``Target``: ``InProcessTarget`` calls the allocation
services (the path the API takes, so the ledger, the events and the metrics see every operation)
and ``HttpTarget`` calls the API of a running server. It never sleeps: ``step(now)`` does what is
due by ``now`` at ``rate`` operations per second (one allocation, or one application's release),
so tests drive it with a made-up clock; ``drive`` steps simulators in real time. A configuration
change is picked up when the engine's version moves; a refused operation is logged and skipped.

``SimulatorThread`` is the demo's load: one simulator per partition on a daemon thread.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import json
import logging
import math
import random
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

from django.db import DatabaseError, connections

from quotaweb.allocations.models import Allocation
from quotaweb.allocations.services import (
    AllocationInvalid,
    allocation_create,
    allocation_request,
    application_release,
)
from quotaweb.core.ownership import Ownership
from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition, engines_get
from quotaweb.engine.outcomes import AllocationNotFound, KeyConflict
from trackers import ConfigError, QuantityError, TrackersError, parse_config
from trackers.config.model import Partition, Queue
from trackers.names import WILDCARD
from trackers.resources import parse_quantity

logger = logging.getLogger(__name__)

SIM_PREFIX = "sim-"
DEFAULT_RATE = 20.0
MAX_RATE = 1000.0
DEFAULT_USERS = 8
MAX_USERS = 1000
GIB = 2**30

# Real-time driving: how often ``drive`` steps, and how much missed time a late step makes up
# (after a stall the load resumes at its rate instead of firing a flood of operations at once).
TICK_SECONDS = 0.05
MAX_BACKLOG_SECONDS = 1.0
# A release the target refused (the database was busy, say) is tried again this much later.
RETRY_SECONDS = 1.0
# How long the demo's thread spends releasing its applications when the server stops; what is
# left is picked up (and released) by the next start.
DRAIN_SECONDS = 5.0
# How often an HttpTarget asks the server for the active configuration version.
CONFIG_POLL_SECONDS = 5.0
HTTP_TIMEOUT = 10.0

# The load's shape. Run times follow from the rate so that about APPS_PER_USER applications per
# user are running whatever the rate: a faster rate means shorter jobs, not a fuller cluster.
APPS_PER_USER = 2.0
GREEDY_SHARE = 0.2
QUEUES_PER_USER = 3
GENERIC_GROUPS = ("group-a", "group-b", "group-c")
GPU_JOB_SHARE = 0.4
# An application's allocations are identical: (vcore millicores, memory GiB) with weights.
TASK_SHAPES = ((500, 1), (1000, 2), (1000, 4), (2000, 4), (2000, 8), (4000, 16), (8000, 32))
SHAPE_WEIGHTS = (15, 25, 15, 20, 12, 8, 5)
GPU_SHAPES = ((4000, 32), (8000, 64))
TASK_COUNTS = (1, 2, 3, 4, 6, 8)
TASK_WEIGHTS = (25, 25, 20, 15, 10, 5)
# Greedy users pick from the bigger shapes and run twice as many allocations per application.
GREEDY_SHAPE_SHIFT = 2
GREEDY_TASK_FACTOR = 2
MEAN_TASKS = sum(c * w for c, w in zip(TASK_COUNTS, TASK_WEIGHTS, strict=True)) / sum(TASK_WEIGHTS)
# How many applications a user submits at once: usually one, sometimes a few.
WAVE_SIZES = (1, 2, 3, 4)
WAVE_WEIGHTS = (60, 20, 12, 8)

ERR_RATE = "must be a number of operations per second above 0 and at most {max:g}, not {value!r}"
ERR_URL = "{url!r} is not a server address; give one like http://127.0.0.1:8000"
ERR_UNREACHABLE = "cannot reach the server at {url}: {error}"
ERR_TOKEN = "the server at {url} refused the API token (401): {message}"
ERR_FORBIDDEN = (
    "the server at {url} refused the operation (403): {message}; allocating needs the token of "
    "a quota admin"
)
ERR_NOT_QUOTAWEB = "{url} does not answer like a quotaweb server (GET {path} answered {answer})"
ERR_BAD_CONFIG = "the server's active configuration does not parse here: {error}"

# The configuration version before the first read (None is a version: engines loaded unnumbered).
_UNREAD = object()

LOG_CONFIG = "simulator %s: configuration version %s, %d users over %d leaf queues"
LOG_GONE = "simulator %s: the partition is not configured any more; waiting for it to return"
LOG_REFUSED = "simulator %s: %s %s refused: %s"
LOG_ADOPTED = "simulator %s: releasing %d applications left over from an earlier run"
LOG_STARTED = "simulator: %g operations/s over partitions %s"
LOG_CRASHED = "simulator: stopped by an unexpected error; the server goes on without it"
LOG_DRAIN_LATE = "simulator %s: %d applications still running at shutdown; the next start ends them"
LOG_DRAINED = "simulator %s: released its %d running applications (%d allocations) on the way out"


class Refused(Exception):
    """The target did not carry out an operation (not a denial: that is an answer)."""


class PartitionGone(Refused):
    """The partition is not configured (any more)."""


class NotLive(Refused):
    """The application has no live allocation (released already, or its engine was replaced)."""


class LoadAborted(RuntimeError):
    """The target cannot be driven at all: unreachable, or the token is refused."""


def rate_argument(text: str) -> float:
    """``--rate``/``--sim-rate``: operations per second, above 0 and at most ``MAX_RATE``."""
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if not (math.isfinite(rate) and 0 < rate <= MAX_RATE):
        raise argparse.ArgumentTypeError(ERR_RATE.format(max=MAX_RATE, value=text))
    return rate


# -- targets -------------------------------------------------------------------------------------


class Target(Protocol):
    partition: str

    def config(self) -> tuple[int | None, Partition]:
        """(active version, the partition's model); ``PartitionGone``."""

    def allocate(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        """(allowed, the denial's reason) for an allocation body of the API; ``Refused``."""

    def release_application(self, application_id: str) -> int:
        """How many allocations were released; ``NotLive``, ``Refused``."""


class InProcessTarget:
    """This process's engines, through the allocation services (what the API calls)."""

    def __init__(self, partition: str) -> None:
        self.partition = partition

    def config(self) -> tuple[int | None, Partition]:
        try:
            with engines_get().engine(self.partition) as engine:
                return engine.version, engine.config
        except (UnknownPartition, EngineNotLoaded):
            raise PartitionGone(self.partition) from None

    def allocate(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        try:
            admission = allocation_create(
                partition=self.partition, request=allocation_request(body)
            )
        except (UnknownPartition, EngineNotLoaded):
            raise PartitionGone(self.partition) from None
        except (KeyConflict, AllocationInvalid, TrackersError, DatabaseError) as error:
            raise Refused(str(error)) from None
        return admission.allowed, admission.reason

    def release_application(self, application_id: str) -> int:
        try:
            return len(application_release(
                partition=self.partition, application_id=application_id
            ))
        except (AllocationNotFound, UnknownPartition, EngineNotLoaded):
            raise NotLive(application_id) from None
        except (TrackersError, DatabaseError) as error:
            raise Refused(str(error)) from None

    def leftover_applications(self) -> list[str]:
        """Simulated applications in the ledger: at start-up these belong to an earlier run."""
        return list(
            Allocation.objects.filter(
                partition=self.partition, application_id__startswith=SIM_PREFIX
            ).values_list("application_id", flat=True).distinct()
        )


class HttpTarget:
    """A running server's API, with a token, on one kept-alive connection."""

    def __init__(self, *, url: str, token: str, partition: str) -> None:
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError:
            raise ValueError(ERR_URL.format(url=url)) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(ERR_URL.format(url=url))
        self.partition = partition
        self.url = url
        self.partitions: list[str] = []
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname, port
        self._base = parts.path.rstrip("/")
        self._headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self._connection: http.client.HTTPConnection | None = None
        self._next_poll = -math.inf
        self._version: int | None = None
        self._model: Partition | None = None
        self._partition_path = f"{self._base}/api/v1/partitions/{quote(partition, safe='')}"

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=HTTP_TIMEOUT)
        return self._connection

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        encoded = None if body is None else json.dumps(body).encode()
        # One retry on a fresh connection: the server may have closed an idle kept-alive one.
        # Repeating an allocation is safe (its key makes the retry idempotent).
        for attempt in range(2):
            connection = self._connect()
            try:
                connection.request(method, path, encoded, self._headers)
                response = connection.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as error:
                self.close()
                if attempt:
                    raise LoadAborted(ERR_UNREACHABLE.format(url=self.url, error=error)) from None
                continue
            try:
                payload = json.loads(data) if data else None
            except ValueError:
                payload = None
            message = payload.get("message", "") if isinstance(payload, dict) else ""
            if response.status == 401:
                raise LoadAborted(ERR_TOKEN.format(url=self.url, message=message))
            if response.status == 403:
                raise LoadAborted(ERR_FORBIDDEN.format(url=self.url, message=message))
            return response.status, payload
        raise AssertionError("unreachable")  # the loop returns or raises

    def config(self) -> tuple[int | None, Partition]:
        now = time.monotonic()
        if now >= self._next_poll:
            path = f"{self._base}/api/v1/config"
            status, payload = self._request("GET", path)
            if status != 200 or not isinstance(payload, dict) or "yaml" not in payload:
                raise LoadAborted(ERR_NOT_QUOTAWEB.format(
                    url=self.url, path=path, answer=_answer(status, payload)
                ))
            self._next_poll = now + CONFIG_POLL_SECONDS
            # No partitions yet: nothing was read before, whatever the version.
            if payload.get("version") != self._version or not self.partitions:
                try:
                    document = parse_config(payload["yaml"])
                except ConfigError as error:
                    raise LoadAborted(ERR_BAD_CONFIG.format(error=error)) from None
                self._version = payload.get("version")
                self._model = document.partition(self.partition)
                self.partitions = [partition.name for partition in document.partitions]
        if self._model is None:
            raise PartitionGone(self.partition)
        return self._version, self._model

    def allocate(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        status, payload = self._request("POST", f"{self._partition_path}/allocations", body)
        if status in (200, 201):
            return True, None
        if status == 409 and isinstance(payload, dict) and payload.get("allowed") is False:
            return False, payload.get("reason")
        if status == 404:
            self._next_poll = -math.inf  # the configuration changed: read it on the next step
            raise PartitionGone(self.partition)
        raise Refused(_answer(status, payload))

    def release_application(self, application_id: str) -> int:
        path = f"{self._partition_path}/applications/{quote(application_id, safe='')}"
        status, payload = self._request("DELETE", path)
        if status == 200 and isinstance(payload, dict):
            return len(payload.get("released", ()))
        if status == 404:
            raise NotLive(application_id)
        raise Refused(_answer(status, payload))


def _answer(status: int, payload: Any) -> str:
    message = payload.get("message", "") if isinstance(payload, dict) else ""
    return f"HTTP {status} {message}".rstrip()


# -- the people and their jobs --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SimUser:
    name: str
    groups: tuple[str, ...]
    queues: tuple[str, ...]
    greedy: bool


@dataclass(frozen=True, slots=True)
class Population:
    users: tuple[SimUser, ...]
    leaves: tuple[str, ...]
    # Leaf queue path -> the accelerator type (say nvidia.com/gpu) it offers.
    accelerators: dict[str, str]


def population_build(partition: Partition, *, generated: int, seed: str) -> Population:
    """The users of a partition: everyone named in its limits plus ``generated`` wildcard users,
    each with groups, a few leaf queues (under where their limits are) and a greedy streak or not.
    The same configuration and seed give the same population."""
    rng = random.Random(seed)
    queues = list(partition.queues())
    leaves = tuple(queue.path for queue in queues if not queue.children)
    names: dict[str, None] = {}
    groups: dict[str, None] = {}
    for queue in queues:
        for limit in queue.limits:
            names.update((user, None) for user in limit.users if user != WILDCARD)
            groups.update((group, None) for group in limit.groups if group != WILDCARD)
    names.update((f"user-{number:02d}", None) for number in range(1, generated + 1))
    everyone = list(names)
    members: dict[str, list[str]] = {name: [] for name in everyone}
    # Every named group gets a few members, so its limits are exercised.
    for group in groups:
        for name in rng.sample(everyone, k=min(len(everyone), rng.randint(1, 3))):
            members[name].append(group)
    users = []
    for name in everyone:
        user_groups = members[name] or [rng.choice(GENERIC_GROUPS)]
        home = _home_leaves(queues, leaves, name, user_groups)
        picked = rng.sample(home, k=min(len(home), QUEUES_PER_USER))
        users.append(SimUser(
            name=name, groups=tuple(user_groups), queues=tuple(picked),
            greedy=rng.random() < GREEDY_SHARE,
        ))
    accelerators = {
        queue.path: kind
        for queue in queues if not queue.children
        for kind in sorted({*queue.max, *queue.guaranteed} - {"memory", "vcore"})[:1]
        if _offered(queue, kind)
    }
    return Population(users=tuple(users), leaves=leaves, accelerators=accelerators)


def _home_leaves(
    queues: list[Queue], leaves: tuple[str, ...], user: str, groups: list[str]
) -> list[str]:
    """The leaves under the queues whose limits name the user or one of their groups (people
    submit where their teams are); every leaf for someone only root's limits or wildcards cover."""
    homes = [
        queue.path for queue in queues
        if queue.path != "root" and any(
            user in limit.users or set(groups) & set(limit.groups) for limit in queue.limits
        )
    ]
    return [
        leaf for leaf in leaves
        if not homes or any(leaf == home or leaf.startswith(home + ".") for home in homes)
    ]


def _offered(queue: Queue, kind: str) -> bool:
    try:
        return any(
            parse_quantity(amounts[kind], kind) > 0
            for amounts in (queue.max, queue.guaranteed) if kind in amounts
        )
    except QuantityError:
        return False


@dataclass(slots=True)
class _Job:
    application_id: str
    user: SimUser
    queue_path: str
    resource: dict[str, int]
    tasks: int
    run_seconds: float
    sent: int = 0
    admitted: int = 0


@dataclass
class SimulatorStats:
    allocated: int = 0
    denied: Counter[str] = field(default_factory=Counter)
    released: int = 0
    applications: int = 0
    refused: int = 0

    @property
    def denied_total(self) -> int:
        return sum(self.denied.values())

    def summary(self) -> str:
        asked = self.allocated + self.denied_total
        share = f" ({self.denied_total / asked:.0%})" if asked else ""
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.denied.most_common())
        return (
            f"{self.allocated} allocated in {self.applications} applications, "
            f"{self.denied_total} denied{share}{f': {reasons}' if reasons else ''}, "
            f"{self.released} released, {self.refused} refused"
        )


# -- the simulator -------------------------------------------------------------------------------


class Simulator:
    """Load on one partition of ``target`` at ``rate`` operations per second (see the module)."""

    def __init__(
        self, target: Target, *, rate: float, seed: int | None = None,
        users: int = DEFAULT_USERS, run_id: str | None = None,
    ) -> None:
        self.target = target
        self.rate = rate
        self.stats = SimulatorStats()
        # Keys carry a run id: a retry inside a run repeats its key, another run never does.
        self.run_id = run_id or secrets.token_hex(3)
        self._seed = f"{seed}:{target.partition}" if seed is not None else secrets.token_hex(8)
        self._rng = random.Random(self._seed)
        self._generated = users
        self._version: object = _UNREAD
        self._population: Population | None = None
        self._paused = False
        self._last: float | None = None
        self._budget = 0.0
        self._applications = 0
        self._pending: deque[_Job] = deque()
        # (release time, application id): one entry per application that holds allocations.
        self._due: list[tuple[float, str]] = []

    @property
    def live_applications(self) -> int:
        return len(self._due)

    def step(self, now: float) -> None:
        """Carry out the operations due by ``now`` (seconds on any steady clock)."""
        previous, self._last = self._last, now
        if previous is not None:
            self._budget = min(
                self._budget + (now - previous) * self.rate,
                max(1.0, self.rate * MAX_BACKLOG_SECONDS),
            )
        if not self._refresh():
            self._budget = 0.0
            return
        while self._budget >= 1:
            self._budget -= 1
            self._operate(now)

    def adopt(self, application_ids: Iterable[str], now: float) -> None:
        """Schedule the release of applications started by an earlier run, spread over a usual
        run time from ``now``."""
        ids = list(application_ids)
        if not ids or not self._refresh():
            return
        logger.info(LOG_ADOPTED, self.target.partition, len(ids))
        span = self._mean_run_seconds()
        for application_id in ids:
            heapq.heappush(self._due, (now + self._rng.uniform(0, span), application_id))

    def drain(self, *, deadline: float | None = None) -> int:
        """Release every running application now (until ``deadline`` on ``time.monotonic``);
        answers how many are left running."""
        self._pending.clear()
        applications, released = len(self._due), self.stats.released
        while self._due and (deadline is None or time.monotonic() < deadline):
            _, application_id = heapq.heappop(self._due)
            self._release(application_id, retry_at=None)
        if self._due:
            logger.warning(LOG_DRAIN_LATE, self.target.partition, len(self._due))
        else:
            logger.info(LOG_DRAINED, self.target.partition, applications,
                        self.stats.released - released)
        return len(self._due)

    # -- internals ---------------------------------------------------------------------------

    def _refresh(self) -> bool:
        """Follow the configuration: a new version gives a new population. False while the
        partition is not configured."""
        try:
            version, model = self.target.config()
        except PartitionGone:
            if not self._paused:
                logger.warning(LOG_GONE, self.target.partition)
                self._paused = True
                self._pending.clear()
            return False
        self._paused = False
        if version != self._version or self._population is None:
            self._version = version
            self._population = population_build(
                model, generated=self._generated, seed=f"{self._seed}:population"
            )
            # Jobs planned for the old configuration may name queues that are gone.
            self._pending.clear()
            logger.info(
                LOG_CONFIG, self.target.partition, version, len(self._population.users),
                len(self._population.leaves),
            )
        return True

    def _operate(self, now: float) -> None:
        if self._due and self._due[0][0] <= now:
            _, application_id = heapq.heappop(self._due)
            self._release(application_id, retry_at=now + RETRY_SECONDS)
            return
        if not self._pending:
            self._plan_wave()
        if self._pending:
            self._allocate(now)

    def _mean_run_seconds(self) -> float:
        users = len(self._population.users) if self._population else 0
        return max(1.0, APPS_PER_USER * users * (MEAN_TASKS + 1) / self.rate)

    def _plan_wave(self) -> None:
        """One user submits one or a few applications at once."""
        population = self._population
        if population is None or not population.users:
            return
        rng = self._rng
        user = rng.choice(population.users)
        mean = self._mean_run_seconds()
        for _ in range(rng.choices(WAVE_SIZES, WAVE_WEIGHTS)[0]):
            queue_path = rng.choice(user.queues)
            accelerator = population.accelerators.get(queue_path)
            tasks = rng.choices(TASK_COUNTS, TASK_WEIGHTS)[0]
            if accelerator is not None and rng.random() < GPU_JOB_SHARE:
                vcore, memory = rng.choice(GPU_SHAPES)
                resource = {
                    "vcore": vcore, "memory": memory * GIB, accelerator: 2 if user.greedy else 1
                }
                tasks = 1 if tasks < 4 else 2
            else:
                index = rng.choices(range(len(TASK_SHAPES)), SHAPE_WEIGHTS)[0]
                if user.greedy:
                    index = min(index + GREEDY_SHAPE_SHIFT, len(TASK_SHAPES) - 1)
                vcore, memory = TASK_SHAPES[index]
                resource = {"vcore": vcore, "memory": memory * GIB}
            if user.greedy:
                tasks *= GREEDY_TASK_FACTOR
            self._applications += 1
            self._pending.append(_Job(
                application_id=f"{SIM_PREFIX}{self.run_id}-{self._applications:06d}",
                user=user, queue_path=queue_path, resource=resource, tasks=tasks,
                run_seconds=min(4 * mean, max(0.2 * mean, rng.expovariate(1 / mean))),
            ))

    def _allocate(self, now: float) -> None:
        job = self._pending[0]
        body = {
            "allocationKey": f"{job.application_id}-{job.sent}",
            "applicationId": job.application_id, "queuePath": job.queue_path,
            "user": job.user.name, "groups": list(job.user.groups), "resource": job.resource,
        }
        job.sent += 1
        if job.sent == job.tasks:
            self._pending.popleft()
        try:
            allowed, reason = self.target.allocate(body)
        except PartitionGone:
            self._version = _UNREAD  # read the configuration again on the next step
            self._pending.clear()
            return
        except Refused as error:
            self.stats.refused += 1
            logger.warning(LOG_REFUSED, self.target.partition, "allocation",
                           body["allocationKey"], error)
            allowed, reason = False, None
        if allowed:
            self.stats.allocated += 1
            if not job.admitted:
                self.stats.applications += 1
                heapq.heappush(self._due, (now + job.run_seconds, job.application_id))
            job.admitted += 1
            return
        if reason is not None:
            self.stats.denied[reason] += 1
        # A scheduler stops placing an application's allocations once one does not fit; the
        # application runs with what it got.
        if self._pending and self._pending[0] is job:
            self._pending.popleft()

    def _release(self, application_id: str, *, retry_at: float | None) -> None:
        if self._pending and self._pending[0].application_id == application_id:
            self._pending.popleft()
        try:
            self.stats.released += self.target.release_application(application_id)
        except NotLive:
            logger.debug(LOG_REFUSED, self.target.partition, "release", application_id, "gone")
        except Refused as error:
            self.stats.refused += 1
            logger.warning(LOG_REFUSED, self.target.partition, "release", application_id, error)
            if retry_at is not None:
                heapq.heappush(self._due, (retry_at, application_id))


class Stepped(Protocol):
    def step(self, now: float) -> None: ...


def drive(
    simulators: Sequence[Stepped], *, stop: threading.Event, duration: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Step ``simulators`` in real time until ``stop`` is set or ``duration`` seconds passed."""
    end = None if duration is None else clock() + duration
    while True:
        now = clock()
        for simulator in simulators:
            simulator.step(now)
        if end is not None and now >= end:
            return
        wait = TICK_SECONDS if end is None else min(TICK_SECONDS, end - now)
        if stop.wait(max(0.0, wait)):
            return


# -- the demo's background load -------------------------------------------------------------------


class SimulatorThread:
    """One in-process simulator per partition, sharing ``rate``, on a daemon thread that stops
    with the process at the latest. ``stop()`` releases what it runs and closes its database
    connection; the next start releases what a crash left behind.

    It adopts every simulated application in the ledger and releases them all as it stops, so
    only the process that owns the database's engines may run one: ``ownership`` is that claim
    (``core.ownership``), which a process refused at start-up never holds."""

    def __init__(
        self, *, ownership: Ownership, rate: float, seed: int | None = None,
        users: int = DEFAULT_USERS,
    ) -> None:
        partitions = engines_get().partitions()
        self.ownership = ownership
        self.rate = rate
        self.partitions = partitions
        self.targets = [InProcessTarget(partition) for partition in partitions]
        self.simulators = [
            Simulator(target, rate=rate / len(partitions), seed=seed, users=users)
            for target in self.targets
        ]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quotaweb-simulator", daemon=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        logger.info(LOG_STARTED, self.rate, ", ".join(self.partitions))
        self._thread.start()

    def stop(self, *, timeout: float = DRAIN_SECONDS + 5) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            now = time.monotonic()
            for target, simulator in zip(self.targets, self.simulators, strict=True):
                simulator.adopt(target.leftover_applications(), now)
            drive(self.simulators, stop=self._stop)
            deadline = time.monotonic() + DRAIN_SECONDS
            for simulator in self.simulators:
                simulator.drain(deadline=deadline)
        except Exception:
            # Refusals are handled per operation; this is a bug, and a demo's load is not worth
            # taking the server down for.
            logger.exception(LOG_CRASHED)
        finally:
            # This thread's own connections: nothing else would ever close them.
            connections.close_all()


def simulator_start(
    *, ownership: Ownership, rate: float = DEFAULT_RATE, seed: int | None = None,
    users: int = DEFAULT_USERS,
) -> SimulatorThread:
    """Start the demo's load on every partition of the engines this process owns."""
    runner = SimulatorThread(ownership=ownership, rate=rate, seed=seed, users=users)
    runner.start()
    return runner
