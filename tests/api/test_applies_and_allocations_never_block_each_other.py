"""Configuration applies and a scheduler's allocations never wait on each other for long.

A real server (``manage.py demo``, the sampler every second) takes allocations and releases from
three API clients and a batch client while an admin, through the API and the browser, puts whole
versions, rolls back, edits a queue and a limit, and applies a staged draft, over and over. Every
apply answers within 2 s, nothing answers 5xx, no allocation is refused for anything but a quota
rule, and at the end the engines hold exactly the acknowledged allocations, the ledger holds
exactly their keys, and the configuration rows equal the active version.

The server runs on a SQLite file, or on a PostgreSQL database of its own when the suite runs on
PostgreSQL (``DATABASE_URL``): the lock order must hold on both.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

from tests.api.allocation_support import usage_expected, usage_served
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port, postgres_database
from trackers import REASONS

LOAD_SECONDS = 8.0
APPLY_LIMIT_SECONDS = 2.0
# Long enough to tell a stall (SQLite's busy timeout is 20 s) from a slow answer, short enough
# to bound the test.
REQUEST_TIMEOUT = 25.0
ALLOCATIONS = "/api/v1/partitions/default/allocations"
ENG_LIMIT = "/api/v1/partitions/default/queues/root.eng/limits/0/"
ENG_QUEUE = "/api/v1/partitions/default/queues/root.eng/"
ENG_PAGE = "/config/queues/default/root.eng/"
DEMO_ADMIN_PASSWORD = "quota-admin-demo"
# The same document with the ml group's cap moved: a real change every other put.
ALTERNATE_YAML = CAPPED_YAML.replace("maxresources: {memory: 16Gi}",
                                     "maxresources: {memory: 18Gi}")
USERS = [("alice", ["ml"]), ("bob", ["ml"]), ("carol", []), ("dave", ["ops"])]


class Outcomes:
    """What every client saw, shared between threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.problems: list[str] = []
        self.applies: list[tuple[str, float, int]] = []
        self.live: dict[str, dict] = {}
        self.allocated = self.denied = self.released = 0

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


class Api:
    """One kept-alive connection with a token; answers (status, JSON body)."""

    def __init__(self, server: ServerProcess, token: str) -> None:
        self.server, self.token = server, token
        self.connection = server.connection(timeout=REQUEST_TIMEOUT)

    def __call__(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        sent = {"Content-Type": "application/json", "Authorization": f"Token {self.token}",
                **(headers or {})}
        data = json.dumps(body).encode() if body is not None else None
        try:
            self.connection.request(method, path, data, sent)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = self.server.connection(timeout=REQUEST_TIMEOUT)
            raise
        return response.status, (json.loads(raw) if raw else {})


class Browser:
    """A logged-in browser session (cookies and the CSRF token), for the draft pages."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.cookies: dict[str, str] = {}
        page = self.request("GET", "/accounts/login/")[1]
        self.request("POST", "/accounts/login/", {
            "username": "admin", "password": DEMO_ADMIN_PASSWORD,
            "csrfmiddlewaretoken": self._csrf(page),
        })
        assert "sessionid" in self.cookies, "the demo admin could not log in"

    @staticmethod
    def _csrf(page: str) -> str:
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, str]:
        connection = self.server.connection(timeout=REQUEST_TIMEOUT)
        try:
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
                       "Referer": f"http://127.0.0.1:{self.server.port}{path}",
                       "Origin": f"http://127.0.0.1:{self.server.port}"}
            body = None
            if form is not None:
                body = urlencode(form)
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            text = response.read().decode()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key] = rest.split(";", 1)[0]
            return response.status, text
        finally:
            connection.close()

    def post(self, path: str, form: dict) -> int:
        token = self._csrf(self.request("GET", path)[1])
        return self.request("POST", path, {**form, "csrfmiddlewaretoken": token})[0]


def _allocating(server, token, outcomes, stop, seed: int, batch: bool) -> None:
    rng = random.Random(seed)
    api = Api(server, token)
    mine: list[str] = []
    step = 0
    while not stop.is_set():
        step += 1
        try:
            if batch:
                _batch_step(api, rng, outcomes, mine, f"b{seed}-{step}")
            elif mine and rng.random() < 0.45:
                _release(api, outcomes, mine.pop(rng.randrange(len(mine))))
            else:
                _allocate(api, rng, outcomes, mine, f"s{seed}-{step}")
        except (OSError, http.client.HTTPException) as error:
            outcomes.problem(f"allocation client {seed}: {type(error).__name__}: {error}")
            return


def _request_body(rng: random.Random, key: str) -> dict:
    user, groups = rng.choice(USERS)
    return {
        "allocationKey": key, "applicationId": f"{user}-app{rng.randrange(3)}",
        "queuePath": "root.eng", "user": user, "groups": groups,
        "resource": {"memory": rng.randrange(1, 512) * 2**20},
    }


def _judge_admission(outcomes: Outcomes, key: str, sent: dict, status: int, answer: dict,
                     mine: list[str]) -> None:
    if status in (200, 201) and answer.get("allowed", True):
        with outcomes.lock:
            outcomes.live[key] = sent
            outcomes.allocated += 1
        mine.append(key)
    elif status == 409 and answer.get("reason") in REASONS:
        with outcomes.lock:
            outcomes.denied += 1
    else:
        outcomes.problem(f"allocate {key}: {status} {answer}")


def _allocate(api: Api, rng, outcomes: Outcomes, mine: list[str], key: str) -> None:
    sent = _request_body(rng, key)
    status, answer = api("POST", ALLOCATIONS, sent)
    _judge_admission(outcomes, key, sent, status, answer, mine)


def _release(api: Api, outcomes: Outcomes, key: str) -> None:
    status, answer = api("DELETE", f"{ALLOCATIONS}/{key}")
    if status != 204:
        outcomes.problem(f"release {key}: {status} {answer}")
        return
    with outcomes.lock:
        del outcomes.live[key]
        outcomes.released += 1


def _batch_step(api: Api, rng, outcomes: Outcomes, mine: list[str], prefix: str) -> None:
    releases = [mine.pop(0) for _ in range(min(len(mine), 10))]
    allocations = [_request_body(rng, f"{prefix}-{n}") for n in range(10)]
    operations = [{"op": "release", "allocationKey": key} for key in releases]
    operations += [{"op": "allocate", **sent} for sent in allocations]
    status, answer = api("POST", f"{ALLOCATIONS}/batch", {"operations": operations})
    if status != 200:
        outcomes.problem(f"batch {prefix}: {status} {answer}")
        return
    results = answer["results"]
    for key, result in zip(releases, results, strict=False):
        if result.get("status") != 204:
            outcomes.problem(f"batch release {key}: {result}")
            continue
        with outcomes.lock:
            del outcomes.live[key]
            outcomes.released += 1
    for sent, result in zip(allocations, results[len(releases):], strict=True):
        _judge_admission(outcomes, sent["allocationKey"], sent, result.get("status", 0),
                         result, mine)


def _admin_steps(api: Api, browser: Browser) -> Iterator[tuple[str, Callable[[], int]]]:
    """Every kind of configuration write, round and round."""
    turn = 0
    while True:
        turn += 1
        yaml_text = ALTERNATE_YAML if turn % 2 else CAPPED_YAML
        yield "put", lambda y=yaml_text: api(
            "PUT", "/api/v1/config", {"yaml": y, "comment": "soak"})[0]
        yield "rollback", lambda: api("POST", "/api/v1/config/versions/1/rollback", {})[0]
        yield "queue edit", lambda t=turn: api(
            "PATCH", ENG_QUEUE, {"max_applications": 40 + t % 2})[0]
        yield "limit edit", lambda t=turn: api(
            "PATCH", ENG_LIMIT, {"max_resources": {"memory": f"{10 + t % 2}Gi"}})[0]
        yield "draft apply", lambda t=turn: _draft_apply(browser, t)


def _draft_apply(browser: Browser, turn: int) -> int:
    status = browser.post(ENG_PAGE, {
        "action": "limit-save", "index": "0", "limit-0-description": "alice",
        "limit-0-users": "alice", "limit-0-max_resources": f"memory: {12 + turn % 2}Gi",
        "limit-0-max_applications": "2",
    })
    if status not in (200, 302):
        return status
    status = browser.post("/config/draft/", {"action": "apply", "comment": f"draft {turn}"})
    return 200 if status == 302 else status


def _administering(api: Api, browser: Browser, outcomes: Outcomes, stop) -> None:
    for kind, step in _admin_steps(api, browser):
        if stop.is_set():
            return
        started = time.monotonic()
        try:
            status = step()
        except (OSError, http.client.HTTPException) as error:
            outcomes.problem(f"{kind}: {type(error).__name__} after "
                             f"{time.monotonic() - started:.1f} s")
            return
        with outcomes.lock:
            outcomes.applies.append((kind, time.monotonic() - started, status))
        stop.wait(0.05)


@contextlib.contextmanager
def _database() -> Iterator[str | None]:
    url = os.environ.get("DATABASE_URL")
    if url is None:
        yield None
        return
    with postgres_database(url) as own:
        yield own


ROWS_MATCH = (
    "from quotaweb.config.selectors import active_version;"
    "from tests.config_rows import config_from_rows;"
    "from quotaweb.config.selectors import version_model;"
    "print(config_from_rows() == version_model(active_version()))"
)


def test_applies_answer_quickly_while_allocations_flow_and_nothing_is_lost(tmp_path):
    with _database() as database_url:
        server = ServerProcess(
            tmp_path, free_port(), config_yaml=CAPPED_YAML, database_url=database_url,
            env={"QUOTAWEB_TREND_SAMPLE_SECONDS": "1"},
        )
        server.start()
        try:
            server.wait_ready()
            token = server.token("admin")
            outcomes, stop = Outcomes(), threading.Event()
            workers = [
                threading.Thread(target=_allocating,
                                 args=(server, token, outcomes, stop, seed, seed == 3))
                for seed in range(4)
            ]
            workers.append(threading.Thread(
                target=_administering,
                args=(Api(server, token), Browser(server), outcomes, stop),
            ))
            for worker in workers:
                worker.start()
            time.sleep(LOAD_SECONDS)
            stop.set()
            for worker in workers:
                worker.join(timeout=REQUEST_TIMEOUT + 5)
            assert not any(worker.is_alive() for worker in workers), "a client hung"

            assert outcomes.problems == []
            kinds = {kind for kind, _, _ in outcomes.applies}
            assert kinds == {"put", "rollback", "queue edit", "limit edit", "draft apply"}
            assert [a for a in outcomes.applies if a[2] != 200] == []
            slow = [a for a in outcomes.applies if a[1] >= APPLY_LIMIT_SECONDS]
            assert slow == [], f"applies slower than {APPLY_LIMIT_SECONDS} s"
            assert outcomes.allocated > 100
            assert outcomes.denied > 0
            assert outcomes.released > 50

            assert usage_served(server, token) == usage_expected(outcomes.live.values())
            status, listed = server.request(
                "GET", f"{ALLOCATIONS}?per_page=1000", token=token
            )
            assert status == 200
            assert listed["pages"] <= 1
            assert {a["allocationKey"] for a in listed["results"]} == set(outcomes.live)
        finally:
            server.close()
        assert server.manage("shell", "--no-imports", "-c", ROWS_MATCH).strip() == "True"
