"""The big usage pages with 10,000 users: HTML size and server time of the users, groups, queue and
activity pages (medians), against the budgets of issue 14 (under 300 KB of HTML, under 1 s).

In this process, on a fresh SQLite database in a temporary directory: 10,000 users (50 of them
named in a limit of their own, the rest under the user wildcard), each running one application of
two allocations in ``root.eng.ml`` or ``root.eng.web``, a quarter counted against one of 50
groups; 20,000 allocations in all (the feed keeps the newest 10,000 events), and two usage
samples, so the users page draws its sparklines. Each page goes through Django's test ``Client``
logged in as a viewer (the whole request: middleware, selector, template), several times.

Run: ``.venv/bin/python benchmarks/pages.py [--runs 7]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_TMP = tempfile.TemporaryDirectory(prefix="quotaweb-bench-")
os.environ["QUOTAWEB_DATA_DIR"] = _TMP.name
os.environ["DJANGO_SETTINGS_MODULE"] = "quotaweb.settings"
os.environ.setdefault("QUOTAWEB_DEBUG", "0")
os.environ.setdefault("QUOTAWEB_SECRET_KEY", "benchmark-only-not-a-secret")
os.environ.setdefault("QUOTAWEB_LOG_LEVEL", "WARNING")
os.environ.pop("DATABASE_URL", None)
# The host the test Client sends; a benchmark outside the test runner has to allow it itself.
os.environ["QUOTAWEB_ALLOWED_HOSTS"] = "testserver"

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from quotaweb.allocations.services import allocations_batch, batch_request  # noqa: E402
from quotaweb.config.services import config_apply  # noqa: E402
from quotaweb.core.services import engines_start  # noqa: E402
from quotaweb.usage.services import usage_sample  # noqa: E402

USERS = 10_000
GROUPS = 50
NAMED = 50
GiB = 2**30
SIZE_BUDGET = 300 * 1024
TIME_BUDGET = 1.0
CONFIG = f"""\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {{memory: 1000Ti, vcore: "10000000"}}
            limits:
              - limit: teams
                groups: [{", ".join(f"team{g:02d}" for g in range(GROUPS))}]
                maxresources: {{memory: 100Ti}}
              - limit: named
                users: [{", ".join(f"user-{n:05d}" for n in range(NAMED))}]
                maxresources: {{memory: 64Gi}}
              - limit: everyone
                users: ["*"]
                maxresources: {{memory: 32Gi}}
                maxapplications: 4
            queues:
              - name: ml
              - name: web
"""


def load() -> None:
    """The configuration, the engines and 20,000 allocations, as two batches; then two samples."""
    call_command("migrate", verbosity=0, interactive=False)
    config_apply(yaml_text=CONFIG, author=None, base_version=None)
    engines_start()
    operations = []
    for n in range(USERS):
        user = f"user-{n:05d}"
        groups = [f"team{n % GROUPS:02d}"] if n % 4 == 0 else []
        queue = "root.eng.ml" if n % 2 else "root.eng.web"
        operations.extend({
            "op": "allocate", "allocationKey": f"{user}-{part}", "applicationId": f"app-{n}",
            "queuePath": queue, "user": user, "groups": groups,
            "resource": {"memory": (1 + n % 8) * GiB, "vcore": 500},
        } for part in range(2))
    for start in range(0, len(operations), 10_000):
        chunk = operations[start:start + 10_000]
        allocations_batch(partition="default", operations=batch_request({"operations": chunk}))
    now = timezone.now()
    for minutes in (2, 1):
        usage_sample(now=now - timedelta(minutes=minutes))


def viewer_client() -> Client:
    user = get_user_model().objects.create_user("bench-viewer")
    client = Client()
    client.force_login(user)
    return client


def measure(client: Client, label: str, path: str, params: dict[str, str], runs: int,
            before=None) -> bool:
    times, sizes = [], []
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        response = client.get(path, params)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{path} {params} answered {response.status_code}")
        sizes.append(len(response.content))
    median, size = statistics.median(times), statistics.median(sizes)
    within = median < TIME_BUDGET and size < SIZE_BUDGET
    print(f"  {label:<34} {size / 1024:7.1f} KB ({size / SIZE_BUDGET:4.2f} of 300 KB)   "
          f"median {median * 1000:6.0f} ms ({median / TIME_BUDGET:4.2f} of 1 s)"
          f"{'' if within else '   OVER BUDGET'}")
    return within


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    runs = max(3, args.runs)
    started = time.perf_counter()
    load()
    print(f"{USERS:,} users, {2 * USERS:,} allocations loaded in "
          f"{time.perf_counter() - started:.1f} s; {runs} runs per page, SQLite in {_TMP.name}")
    client = viewer_client()
    users = reverse("usage:users", args=["default"])
    groups = reverse("usage:groups", args=["default"])
    activity = reverse("usage:activity", args=["default"])
    pages = [
        ("users, first page", users, {}),
        ("users, most constrained first", users, {"sort": "usage"}),
        ("users, page 150 of 200", users, {"page": "150"}),
        ("users, name search", users, {"q": "user-01"}),
        ("users, group filter", users, {"group": "team08"}),
        ("groups", groups, {}),
        ("queue used by 5,000 users",
         reverse("usage:queue", args=["default", "root.eng.ml"]), {}),
        ("activity, newest", activity, {}),
        ("activity, queue and time filter", activity, {"queue": "root.eng.ml", "within": "60"}),
        ("activity, older page", activity, {"before": "15000"}),
    ]
    # One warm-up: the first request loads templates and URL patterns.
    client.get(users)
    results = [measure(client, label, path, params, runs) for label, path, params in pages]
    # The list rows are kept between requests (quotaweb.usage.row_cache): the first request after
    # a start or a configuration switch reads every user, later ones only those that changed.
    results.append(measure(client, "users, every row read afresh", users, {}, runs,
                           before=row_cache_clear))
    results.append(measure(client, "users, after 1,000 users changed", users, {}, runs,
                           before=thousand_changes()))
    print("all within budget" if all(results) else "some pages are over budget")


def row_cache_clear() -> None:
    from quotaweb.usage import row_cache

    row_cache._entries.clear()


def thousand_changes():
    """A step that moves one allocation of each of 1,000 users to a new key (a release and an
    allocation), so the next page finds 1,000 users changed."""
    keys = {user: f"user-{user:05d}-1" for user in range(1000)}
    rounds = iter(range(1_000_000))

    def change() -> None:
        n = next(rounds)
        operations = []
        for user, key in keys.items():
            keys[user] = f"user-{user:05d}-again-{n}"
            operations.append({"op": "release", "allocationKey": key})
            operations.append({
                "op": "allocate", "allocationKey": keys[user], "applicationId": f"app-{user}",
                "queuePath": "root.eng.ml" if user % 2 else "root.eng.web",
                "user": f"user-{user:05d}", "groups": [f"team{user % GROUPS:02d}"] if user % 4 == 0
                else [], "resource": {"memory": GiB, "vcore": 500},
            })
        allocations_batch(partition="default",
                          operations=batch_request({"operations": operations}))

    return change


if __name__ == "__main__":
    main()
