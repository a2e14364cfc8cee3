"""The server's first render and ``static/js/live.js`` agree: from the same REST shapes the
script computes the same rows (signatures, bar texts and titles) and the same human units as
the pages, so its first snapshot changes nothing that is already right and later updates look
like a reload would. Runs the script's functions in Node (skipped without it)."""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from tests.usage.pages import ODD_USER, GiB, engines_busy

pytestmark = pytest.mark.django_db

LIVE_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "live.js"

# Runs live.js as a plain script (its start-up finds no page: document.querySelector is null)
# and answers, for the data on stdin, what the pages would draw.
NODE_SCRIPT = r"""
const fs = require("fs");
const vm = require("vm");
const document = { querySelector: () => null, querySelectorAll: () => [] };
const context = { document, window: {}, console };
const api = vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8") + `
;({ formatQuantity, formatResource, formatResourceRaw, treeRow, entityRow, levelsOf, walk,
    entityLevel, queueLevel, barText, barTitle, bySegments })`, context);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const bars = (row) => [...row.bars, row.apps];
const tree = (levels) => [...levels.keys()].sort(api.bySegments).map((path) => {
  const row = api.treeRow(levels, path);
  return [path, row.sig, bars(row).map(api.barText), bars(row).map(api.barTitle)];
});
const entities = (objects, key) => objects.map((obj) => {
  const row = api.entityRow(obj[key], obj);
  const shown = row.constrained ? [api.barText(row.constrained)] : [];
  return [row.name, row.sig, shown, row.constrained ? [api.barTitle(row.constrained)] : []];
});
const using = (objects, key, path) => objects.flatMap((obj) => {
  const levels = api.levelsOf(api.walk(obj.queues), api.entityLevel);
  const level = levels.get(path);
  if (!level || !(Object.keys(level.usage).length || level.running)) return [];
  const row = api.treeRow(levels, path);
  return [[obj[key], row.sig, bars(row).map(api.barText), bars(row).map(api.barTitle)]];
});
process.stdout.write(JSON.stringify({
  overview: tree(api.levelsOf(api.walk(input.queues), api.queueLevel)),
  users: entities(input.users, "userName"),
  groups: entities(input.groups, "groupName"),
  user: Object.fromEntries(input.users.map((obj) => [obj.userName,
    tree(api.levelsOf(api.walk(obj.queues), api.entityLevel))])),
  queueUsers: using(input.users, "userName", "root.eng"),
  queueGroups: using(input.groups, "groupName", "root.eng"),
  quantities: input.quantities.map(([kind, value]) => api.formatQuantity(kind, value)),
  usage: input.users.map((obj) => api.formatResource(api.walk(obj.queues)[0].resourceUsage ?? {})),
  raw: input.users.map((obj) => api.formatResourceRaw(api.walk(obj.queues)[0].resourceUsage ?? {})),
}));
"""

QUANTITIES = [
    ("memory", value) for value in (
        0, 1, 999, 1000, 1049, 1050, 1250, 1350, 999_949, 999_950, 1_250_000_000, 1_350_000_000,
        2_250_000_000, 9_500_000_000, GiB, 10 * GiB, 2**40, 2 * 2**40, -3 * GiB, 10**18,
        # Binary steps and their rounding edges: 1023 B, 1 KiB, 1023.9 KiB, 1 MiB, 512 GiB,
        # 1.5 TiB, and ties that round to the even tenth (1.25 KiB -> 1.2, 1.75 KiB -> 1.8).
        1023, 1024, 1_048_524, 1_048_525, 512 * GiB, 1536 * GiB, 1280, 1792, 2**63 - 1,
    )
] + [("vcore", v) for v in (0, 1, 500, 1000, 2500, 100_000, 1_000_001, -1500)] + [
    ("nvidia.com/gpu", 3), ("ephemeral-storage", 1_500_000), ("pods", 0),
]


@pytest.fixture
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node is not installed")
    return path


@pytest.fixture
def data(db):
    """Usage on several levels, a group wildcard, an odd name, and bob above a cap (usage
    restored over it, as after a limit was tightened)."""
    from quotaweb.config.queue_tree import partition_queues

    gateway = engines_busy()
    with gateway.engine("default") as engine:
        engine.restore("root.ops", "app-big", "bob", [], {"memory": 25 * GiB, "vcore": 2500})
    return {
        "queues": partition_queues(partition="default"),
        "users": gateway.users_usage("default"),
        "groups": gateway.groups_usage("default"),
        "quantities": QUANTITIES,
    }


def _from_node(node: str, data: dict) -> dict:
    result = subprocess.run(
        [node, "-e", NODE_SCRIPT, str(LIVE_JS)], input=json.dumps(data), capture_output=True,
        text=True, check=True, timeout=60,
    )
    return json.loads(result.stdout)


def _rows(page: str, rows: str) -> list[list]:
    """``[key, sig, bar texts, bar titles]`` of each row of ``<tbody data-rows=rows>``."""
    body = page.split(f'data-rows="{rows}"', 1)[1].split("</tbody>", 1)[0]
    found = []
    for tr in re.findall(r"<tr.*?</tr>", body, re.S):
        key = re.search(r'data-key="([^"]*)"', tr).group(1)
        sig = re.search(r'data-sig="([^"]*)"', tr).group(1)
        texts = re.findall(r'<span class="ubar-text">([^<]*)</span>', tr)
        titles = re.findall(r'<div class="ubar [^"]*" title="([^"]*)"', tr)
        unescape = html_lib.unescape
        found.append([unescape(key), unescape(sig), [unescape(t) for t in texts],
                      [unescape(t) for t in titles]])
    return found


def _get(client, name: str, *args: str) -> str:
    response = client.get(reverse(name, args=["default", *args]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_script_draws_what_the_server_drew(viewer_client, node, data):
    live = _from_node(node, data)
    assert live["overview"] == _rows(_get(viewer_client, "usage:overview"), "tree")
    assert live["users"] == _rows(_get(viewer_client, "usage:users"), "users")
    assert live["groups"] == _rows(_get(viewer_client, "usage:groups"), "groups")
    for name in ("alice", "bob", ODD_USER):
        assert live["user"][name] == _rows(_get(viewer_client, "usage:user", name), "tree")
    queue = _get(viewer_client, "usage:queue", "root.eng")
    assert live["queueUsers"] == _rows(queue, "users")
    assert live["queueGroups"] == _rows(queue, "groups")
    assert any("over by" in text for row in live["user"]["bob"] for text in row[2])


def test_human_units_match_the_trackers_formatting(node, data):
    from trackers.resources import format_quantity, format_resource, format_resource_raw

    live = _from_node(node, data)
    assert live["quantities"] == [format_quantity(kind, value) for kind, value in QUANTITIES]
    assert live["usage"] == [
        format_resource(user["queues"].get("resourceUsage", {})) for user in data["users"]
    ]
    assert live["raw"] == [
        format_resource_raw(user["queues"].get("resourceUsage", {})) for user in data["users"]
    ]
    assert any("bytes" in raw for raw in live["raw"])
