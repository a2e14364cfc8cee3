"""Config administration at scale: import, validate, the queue tree page, edits and a rollback.

Medians of several runs, in this process, on a fresh SQLite database in a temporary directory,
with a config of 10,111 queues and 50,555 limit entries (``configs.wide_config``):

* ``import_config FILE`` through ``call_command`` (validate + store the version + write the rows),
  each run on a new, empty database;
* ``validate_config FILE`` through ``call_command``;
* the queue tree page ``/config/``, the whole request through Django's test ``Client`` logged in
  as a quota admin, at least 5 renders: the full tree, then with a search (``?q=``) that matches
  a few queues and opens their ancestors;
* one ``queue_update`` (a leaf queue's max), one ``limit_update`` (a limit entry's max
  applications) and ``config_rollback`` to the version before, through the services, with the
  engines loaded (as in the server, so each edit also switches the engines);
* ``PUT /api/v1/config`` of the whole document (one limit changed each time, so every run
  stores and applies a version) and its ``?dry_run=1``, the whole request through the test
  ``Client`` as the quota admin, engines loaded, and what its unknown-resource-type warnings
  cost on their own (two walks of the parsed models, no parse).

Run: ``.venv/bin/python benchmarks/config_admin.py [--runs 3]``.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

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

from configs import wide_config  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from quotaweb.accounts.services import quota_admins_group_ensure  # noqa: E402
from quotaweb.config import services  # noqa: E402
from quotaweb.config.resource_types import document_resource_type_warnings  # noqa: E402
from quotaweb.config.selectors import (  # noqa: E402
    active_version,
    config_tree,
    version_model,
)
from quotaweb.engine.gateway import engines_load, engines_reset  # noqa: E402

LEAF = "root.root-1.root-1-2.root-1-2-3.root-1-2-3-4"
PARENT = "root.root-1.root-1-2"
# Matches root-1-2-3 and its 9 children, deep in the tree: their 4 ancestors open.
TREE_QUERY = "root-1-2-3"
TREE_RENDERS = 5
TREE_TARGET = 1.0
IMPORT_VALIDATE_TARGET = 5.0


def fresh_database(index: int) -> None:
    """Point the default connection at a new SQLite file and migrate it (not timed)."""
    for connection in connections.all():
        connection.close()
    connections["default"].settings_dict["NAME"] = str(Path(_TMP.name) / f"bench-{index}.sqlite3")
    call_command("migrate", verbosity=0, interactive=False)


def timed(action, *args, **kwargs) -> float:
    start = time.perf_counter()
    action(*args, **kwargs)
    return time.perf_counter() - start


def report(label: str, samples: list[float], *, target: float | None = None) -> float:
    median = statistics.median(samples)
    spread = ", ".join(f"{s * 1000:.0f}" for s in samples)
    against = f"   {median / target:.2f} of the {target:g} s target" if target else ""
    print(f"  {label:<34} median {median * 1000:7.0f} ms   (runs: {spread}){against}")
    return median


def admin_client() -> Client:
    """A client logged in as a quota admin through the group, like the tests' ``admin``."""
    user = get_user_model().objects.create_user("bench-admin")
    user.groups.add(quota_admins_group_ensure())
    client = Client()
    client.force_login(user)
    return client


def tree_get(client: Client, query: str) -> None:
    response = client.get(reverse("config:tree"), {"q": query} if query else {})
    # A login redirect or an error page would be timed as if it were the tree.
    if response.status_code != 200:
        raise SystemExit(f"/config/?q={query} answered {response.status_code}, not the tree")


def config_put(client: Client, text: str, query: str = "") -> None:
    response = client.put(
        reverse("api-config") + query, text, content_type="application/yaml"
    )
    if response.status_code != 200:
        raise SystemExit(f"PUT /api/v1/config{query} answered {response.status_code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = max(3, args.runs)

    text = wide_config((10, 10, 10, 9), 5)
    path = Path(_TMP.name) / "wide.yaml"
    path.write_text(text, encoding="utf-8")
    print(
        f"config: 10,111 queues, 50,555 limit entries, {len(text) / 1e6:.1f} MB YAML; "
        f"{runs} runs, SQLite in {_TMP.name}"
    )

    quiet = io.StringIO()
    import_times, validate_times = [], []
    for run in range(runs):
        engines_reset()
        fresh_database(run)
        import_times.append(
            timed(call_command, "import_config", str(path), comment="bench", stdout=quiet)
        )
        validate_times.append(timed(call_command, "validate_config", str(path), stdout=quiet))

    client = admin_client()
    renders = max(TREE_RENDERS, args.runs)
    tree_times = [timed(tree_get, client, "") for _ in range(renders)]
    search_times = [timed(tree_get, client, TREE_QUERY) for _ in range(renders)]
    matches = config_tree(query=TREE_QUERY)["matches"]

    # The edits run where the engines live (the server), so each also switches the engines.
    version = active_version()
    engines_load(yaml_text=version.yaml, version=version.number)
    queue_times, limit_times, rollback_times = [], [], []
    for run in range(runs):
        base = active_version().number
        queue_times.append(timed(
            services.queue_update, partition="default", queue_path=LEAF,
            values={"max": {"memory": f"{200 + run}Gi"}},
            author=None, comment="bench queue_update", base_version=base,
        ))
        base = active_version().number
        limit_times.append(timed(
            services.limit_update, partition="default", queue_path=PARENT, index=0,
            values={"max_applications": 150 - run},
            author=None, comment="bench limit_update", base_version=base,
        ))
        base = active_version().number
        rollback_times.append(timed(
            services.config_rollback, version=base - 1, author=None, base_version=base,
        ))
    put_times, dry_run_times = [], []
    for run in range(runs):
        changed = text.replace("maxapplications: 200\n", f"maxapplications: {190 - run}\n", 1)
        put_times.append(timed(config_put, client, changed))
        dry_run_times.append(timed(config_put, client, text, "?dry_run=1"))
    model = version_model(active_version())
    warning_times = [
        timed(document_resource_type_warnings, active=model, candidate=model)
        for _ in range(renders)
    ]
    engines_reset()

    print("management commands (call_command, in-process):")
    imported = report("import_config (fresh database)", import_times)
    validated = report("validate_config", validate_times)
    both = imported + validated
    print(f"  {'import + validate':<34} median {both * 1000:7.0f} ms   "
          f"{both / IMPORT_VALIDATE_TARGET:.2f} of the {IMPORT_VALIDATE_TARGET:g} s target")
    print(f"queue tree page, test Client as a quota admin, {renders} renders:")
    report("/config/ (every queue)", tree_times, target=TREE_TARGET)
    report(f"/config/?q={TREE_QUERY} ({matches} matches)", search_times, target=TREE_TARGET)
    print("services, engines loaded:")
    report("queue_update (one queue's max)", queue_times)
    report("limit_update (one entry's max apps)", limit_times)
    report("config_rollback (previous version)", rollback_times)
    print("API, test Client as a quota admin, engines loaded:")
    report("PUT /api/v1/config (whole document)", put_times)
    report("PUT /api/v1/config?dry_run=1", dry_run_times)
    report("its resource type warnings", warning_times)


if __name__ == "__main__":
    main()
