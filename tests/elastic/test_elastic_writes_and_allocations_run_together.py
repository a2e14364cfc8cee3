"""Elastic writes (demand, cluster total, the switch), configuration applies and a scheduler's
allocations run at once on a real server without waiting on each other for long, and nothing
acknowledged is lost: at the end the server's usage is exactly the acknowledged allocations',
every queue's demand the last acknowledged one, and a restart computes the same runtimes.

The server runs on a SQLite file, or on a PostgreSQL database of its own when the suite runs on
PostgreSQL (``DATABASE_URL``): the lock order (``quotaweb.engine.gateway``) must hold on both.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Iterator

from tests.configs import ELASTIC_YAML
from tests.elastic.support import ALLOCATIONS, DEMAND, ELASTIC, SETTINGS, TOTAL, gpus
from tests.server_process import ServerProcess, free_port, postgres_database
from trackers import REASONS

LOAD_SECONDS = 6.0
# A write that waited on the other kind of work would take seconds (SQLite's busy timeout is
# 20 s); every answer here must come well within that.
ANSWER_LIMIT_SECONDS = 2.0
LEAVES = ["root.a", "root.b", "root.c", "root.d", "root.e.e1", "root.e.e2"]
CONFIG = "/api/v1/config"
# The same document with one weight changed: a real change every other put.
WEIGHTED_YAML = ELASTIC_YAML.replace(
    "- name: a\n", '- name: a\n            properties: {elastic.shared-weight: "gpu=7"}\n'
)


class Outcomes:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.problems: list[str] = []
        self.live: dict[str, tuple[str, int]] = {}  # key -> (queue, gpus)
        self.demand: dict[str, int] = {}
        self.slowest: dict[str, float] = {}
        self.counts: dict[str, int] = {}

    def note(self, what: str, seconds: float) -> None:
        with self.lock:
            self.slowest[what] = max(self.slowest.get(what, 0.0), seconds)
            self.counts[what] = self.counts.get(what, 0) + 1


class Caller:
    """One client's connection to the server; every call's time is noted under its name."""

    def __init__(self, server, token: str, outcomes: Outcomes) -> None:
        self.server, self.token, self.outcomes = server, token, outcomes
        self.connection = server.connection(timeout=25)

    def __call__(self, what: str, method: str, path: str, body=None):
        started = time.monotonic()
        status, answer = self.server.request(method, path, body, self.token, self.connection)
        self.outcomes.note(what, time.monotonic() - started)
        if status >= 500:
            self.outcomes.problems.append(f"{what}: {status} {answer}")
        return status, answer


def _allocator(call: Caller, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    outcomes = call.outcomes
    step = 0
    while not stop.is_set():
        step += 1
        with outcomes.lock:
            mine = [key for key in outcomes.live if key.startswith(f"s{seed}-")]
        if mine and rng.random() < 0.45:
            key = rng.choice(mine)
            if call("release", "DELETE", f"{ALLOCATIONS}/{key}")[0] == 204:
                with outcomes.lock:
                    outcomes.live.pop(key)
            continue
        key, queue, count = f"s{seed}-{step}", rng.choice(LEAVES), rng.randrange(1, 6)
        body = {"allocationKey": key, "applicationId": f"app-{seed}-{step % 3}",
                "queuePath": queue, "user": f"user{seed}", "groups": [],
                "resource": gpus(count)}
        status, answer = call("allocate", "POST", ALLOCATIONS, body)
        if status == 201:
            with outcomes.lock:
                outcomes.live[key] = (queue, count)
        elif status != 409 or answer.get("reason") not in REASONS:
            outcomes.problems.append(f"allocate {key}: {status} {answer}")


def _elastic_writer(call: Caller, stop: threading.Event) -> None:
    rng = random.Random(99)
    step = 0
    while not stop.is_set():
        step += 1
        queue = rng.choice(LEAVES)
        count = rng.choice([0, rng.randrange(1, 60)])
        body = {"queuePath": queue, "resource": gpus(count) if count else {}}
        if call("demand", "PUT", DEMAND, body)[0] == 200:
            call.outcomes.demand[queue] = count
        if step % 5 == 0:
            call("total", "PUT", TOTAL, gpus(rng.randrange(60, 200)))
        if step % 7 == 0:
            call("switch", "PUT", SETTINGS, {"enabled": step % 14 != 0})


def _applier(call: Caller, stop: threading.Event) -> None:
    step = 0
    while not stop.is_set():
        step += 1
        text = WEIGHTED_YAML if step % 2 else ELASTIC_YAML
        status, answer = call("apply", "PUT", CONFIG, {"yaml": text})
        if status != 200:
            call.outcomes.problems.append(f"apply: {status} {answer}")


@contextlib.contextmanager
def _database() -> Iterator[str | None]:
    url = os.environ.get("DATABASE_URL")
    if url is None:
        yield None
        return
    with postgres_database(url) as own:
        yield own


def _figures(view: dict) -> dict:
    """The view without its times (a restart computes again, and over-use starts its clock
    again)."""
    figures = {key: value for key, value in view.items()
               if key not in ("computedAt", "generation", "queues")}
    figures["queues"] = [{key: value for key, value in row.items() if key != "overSince"}
                         for row in view["queues"]]
    return figures


def test_elastic_writes_applies_and_allocations_flow_together_and_nothing_is_lost(tmp_path):
    with _database() as database_url:
        server = ServerProcess(tmp_path, free_port(), config_yaml=ELASTIC_YAML,
                               database_url=database_url)
        with server.running():
            token = server.token("admin")
            assert server.request("PUT", TOTAL, gpus(150), token)[0] == 200
            assert server.request("PUT", SETTINGS, {"enabled": True}, token)[0] == 200
            outcomes = Outcomes()
            stop = threading.Event()
            def caller() -> Caller:
                return Caller(server, token, outcomes)

            workers = [
                threading.Thread(target=_allocator, args=(caller(), stop, seed))
                for seed in range(3)
            ] + [
                threading.Thread(target=_elastic_writer, args=(caller(), stop)),
                threading.Thread(target=_applier, args=(caller(), stop)),
            ]
            for worker in workers:
                worker.start()
            time.sleep(LOAD_SECONDS)
            stop.set()
            for worker in workers:
                worker.join(timeout=60)

            assert outcomes.problems == []
            assert min(outcomes.counts.get(kind, 0) for kind in
                       ("allocate", "release", "demand", "apply")) >= 5, outcomes.counts
            slow = {what: seconds for what, seconds in outcomes.slowest.items()
                    if seconds > ANSWER_LIMIT_SECONDS}
            assert slow == {}, outcomes.slowest

            view = server.request("GET", ELASTIC, None, token)[1]
            rows = {row["queuePath"]: row for row in view["queues"]}
            expected_used = dict.fromkeys(LEAVES, 0)
            for queue, count in outcomes.live.values():
                expected_used[queue] += count
            assert {path: rows[path]["used"].get("gpu", 0) for path in LEAVES} == expected_used
            assert {path: rows[path]["demand"].get("gpu", 0)
                    for path in outcomes.demand} == outcomes.demand

            server.kill()
            server.start()
            server.wait_ready()
            after = server.request("GET", ELASTIC, None, token)[1]
            assert _figures(after) == _figures(view)
