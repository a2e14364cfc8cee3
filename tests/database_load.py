"""Allocating clients against a real server process whose database is made to fail, and what they
were answered: for the database fault tests and benchmarks/database_faults.py.

Each client allocates and releases its own keys, one request at a time, and records every answer
(its start, how long it took, its status and Retry-After). Its model of the ledger follows only
what was acknowledged: a 2xx allocate is live, a 2xx release is gone, a 503 changed nothing."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from dataclasses import dataclass, field

from tests.server_process import ServerProcess

LOAD_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: load
"""

ALLOCATIONS = "/api/v1/partitions/default/allocations"
# A client gives up on an answer after this long: far past any bound, so a hang shows as one.
CLIENT_TIMEOUT_SECONDS = 30


@dataclass
class Answer:
    started: float
    seconds: float
    method: str
    path: str
    status: int
    retry_after: str | None
    body: bytes


def exchange(server: ServerProcess, method: str, path: str, *, token: str = "",
             body: dict | None = None) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", server.port,
                                            timeout=CLIENT_TIMEOUT_SECONDS)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    started = time.monotonic()
    try:
        connection.request(method, path, json.dumps(body).encode() if body else None, headers)
        response = connection.getresponse()
        data = response.read()
        return Answer(started, time.monotonic() - started, method, path, response.status,
                      response.getheader("Retry-After"), data)
    finally:
        connection.close()


@dataclass
class Client:
    server: ServerProcess
    token: str
    name: str
    answers: list[Answer] = field(default_factory=list)
    live: dict[str, dict] = field(default_factory=dict)
    released: set[str] = field(default_factory=set)

    def run(self, stop: threading.Event, *, limit_seconds: float = 120) -> None:
        rng = random.Random(self.name)
        step = 0
        ends = time.monotonic() + limit_seconds
        while not stop.is_set() and time.monotonic() < ends:
            step += 1
            if self.live and rng.random() < 0.4:
                key = rng.choice(sorted(self.live))
                answer = exchange(self.server, "DELETE", f"{ALLOCATIONS}/{key}", token=self.token)
                if 200 <= answer.status < 300:
                    del self.live[key]
                    self.released.add(key)
            else:
                key = f"{self.name}-{step}"
                body = {
                    "allocationKey": key, "applicationId": f"{self.name}-app{rng.randrange(3)}",
                    "queuePath": "root.load", "user": self.name, "groups": ["load"],
                    "resource": {"memory": rng.randrange(1, 64) * 2**20},
                }
                answer = exchange(self.server, "POST", ALLOCATIONS, token=self.token, body=body)
                if 200 <= answer.status < 300:
                    self.live[key] = body
            self.answers.append(answer)
            if answer.status == 503:
                # As a scheduler told Retry-After would, only much sooner (to keep the load on).
                time.sleep(0.05)


def run_clients(clients: list[Client], stop: threading.Event) -> list[threading.Thread]:
    threads = [threading.Thread(target=client.run, args=(stop,), daemon=True)
               for client in clients]
    for thread in threads:
        thread.start()
    return threads


def first_success_after(answers: list[Answer], moment: float) -> float | None:
    """Seconds from ``moment`` to the end of the first 2xx answer to a request sent after it."""
    ends = [a.started + a.seconds for a in answers if a.started >= moment and a.status < 300]
    return min(ends) - moment if ends else None


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0
