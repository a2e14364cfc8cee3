"""Odd readings explained (issue 14, item 9): a limit of 0 reads "not allowed" instead of
"0 of 0 · 0 %", and an effective limit below the one written (a level above caps it and other
queues use part of that) names the level and how much is in use elsewhere, so "1 of 74" under
an 80-application limit says why. ``static/js/live.js`` draws the same texts (run in Node)."""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from quotaweb.usage.limits import APPLICATIONS, CAPPED_BY, Bar, Level, tree_row
from tests.configs import ODD_READINGS_YAML
from tests.usage.pages import GiB, allocate, row
from trackers.resources import NOT_ALLOWED

LIVE_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "live.js"
OVERVIEW = reverse("usage:overview", args=["default"])

# The overview's rows as live.js draws them from the queue tree on stdin: [path, sig, texts].
NODE_SCRIPT = r"""
const fs = require("fs");
const vm = require("vm");
const context = {
  document: { querySelector: () => null, querySelectorAll: () => [] }, window: {}, console,
};
const api = vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8") + `
;({ treeRow, levelsOf, walk, queueLevel, barText, barTitle })`, context);
const levels = api.levelsOf(api.walk(JSON.parse(fs.readFileSync(0, "utf8"))), api.queueLevel);
process.stdout.write(JSON.stringify([...levels.keys()].map((path) => {
  const row = api.treeRow(levels, path);
  const bars = [...row.bars, row.apps];
  return [path, row.sig, bars.map(api.barText), bars.map(api.barTitle)];
})));
"""


def _levels(*levels: Level) -> dict[str, Level]:
    return {level.path: level for level in levels}


def test_a_limit_of_nothing_reads_not_allowed():
    assert Bar("nvidia.com/gpu", 0, 0, "root.nlp", 0).text == NOT_ALLOWED
    assert Bar("nvidia.com/gpu", 2, 0, "root.nlp", 0).text == f"{NOT_ALLOWED} · 2 in use"
    # Set above the row: the bar says where.
    levels = _levels(
        Level("root", {}, 0, {"nvidia.com/gpu": 0}, 0),
        Level("root.nlp", {}, 0, None, 0),
    )
    (gpu,) = tree_row(levels, "root.nlp").bars
    assert gpu.text == f"{NOT_ALLOWED} · {CAPPED_BY.format(source='root')}"


def test_a_bar_that_does_not_know_the_written_limit_reads_as_before():
    # Quota trees draw a quota of 0 that soft nodes may borrow beyond: not a refusal.
    assert Bar("gpu", 0, 0).text == "0 of 0 · 0 %"


def test_a_parents_cap_shared_with_other_queues_says_how_much_is_used_elsewhere():
    levels = _levels(
        Level("root", {}, 7, None, 0),
        Level("root.research", {"memory": 8 * GiB}, 7, {"memory": 256 * GiB}, 80),
        Level("root.research.nlp", {"memory": 2 * GiB}, 1, None, 80),
    )
    nlp = tree_row(levels, "root.research.nlp")
    assert nlp.apps.text == "1 of 74 · 1 % · capped by root.research: 80 less 6 in use elsewhere"
    assert nlp.apps.title.endswith("tightest limit at root.research, which sets 80")
    (memory,) = nlp.bars
    assert memory.text == (
        "2 GiB of 250 GiB · 0 % · capped by root.research: 256 GiB less 6 GiB in use elsewhere"
    )
    # The queue's own cap reads plainly; a parent's cap nobody else uses names only the parent.
    assert tree_row(levels, "root.research").apps.text == "7 of 80 · 8 %"
    alone = _levels(
        Level("root.research", {}, 1, None, 80),
        Level("root.research.nlp", {}, 1, None, 0),
    )
    assert tree_row(alone, "root.research.nlp").apps == Bar(
        APPLICATIONS, 1, 80, "root.research", 80, above=True
    )
    assert tree_row(alone, "root.research.nlp").apps.text == (
        "1 of 80 · 1 % · capped by root.research"
    )


def test_the_over_limit_list_says_a_limit_of_nothing_is_not_allowed():
    from datetime import UTC, datetime

    from quotaweb.usage.rows import OverRow

    now = datetime.now(UTC)
    over = OverRow("user", "nia", "root.research.nlp", now, now, {"nvidia.com/gpu": 1},
                   {"nvidia.com/gpu": 0}, 1, 0)
    assert [bar.text for bar in over.bars] == [f"{NOT_ALLOWED} · 1 in use"]


@pytest.fixture
def odd(db):
    """``ODD_READINGS_YAML`` with six one-GiB applications in vision and one of 2 GiB in nlp."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=ODD_READINGS_YAML, author=None, base_version=None)
    engines_start()
    for n in range(6):
        assert allocate(f"v{n}", user="vic", app=f"vision-{n}", queue="root.research.vision",
                        groups=()).allowed
    assert allocate("n0", user="nia", app="nlp-0", queue="root.research.nlp", memory=2 * GiB,
                    groups=()).allowed


def _bars(page: str, key: str) -> list[str]:
    return [html_lib.unescape(text)
            for text in re.findall(r'<span class="ubar-text">([^<]*)</span>', row(page, key))]


def test_the_overview_explains_a_forbidden_gpu_and_a_shared_cap(viewer_client, odd):
    page = viewer_client.get(OVERVIEW).content.decode()
    assert _bars(page, "root.research.nlp") == [
        "2 GiB of 250 GiB · 0 % · capped by root.research: 256 GiB less 6 GiB in use elsewhere",
        NOT_ALLOWED,
        "1 of 74 · 1 % · capped by root.research: 80 less 6 in use elsewhere",
    ]
    assert "0 of 0" not in page
    assert _bars(page, "root.research.vision")[-1] == (
        "6 of 79 · 7 % · capped by root.research: 80 less 1 in use elsewhere"
    )


def test_the_config_page_says_a_max_of_nothing_is_not_allowed(viewer_client, odd):
    url = reverse("config:queue", args=["default", "root.research.nlp"])
    page = viewer_client.get(url).content.decode()
    assert f"effective nvidia.com/gpu 0 ({NOT_ALLOWED}), from this queue" in page


def test_the_live_script_explains_the_same_way(viewer_client, odd):
    from quotaweb.config.queue_tree import partition_queues

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    result = subprocess.run(
        [node, "-e", NODE_SCRIPT, str(LIVE_JS)],
        input=json.dumps(partition_queues(partition="default")), capture_output=True, text=True,
        check=True, timeout=60,
    )
    page = viewer_client.get(OVERVIEW).content.decode()
    drawn_by_script = json.loads(result.stdout)
    for path, sig, texts, titles in drawn_by_script:
        drawn = row(page, path)
        assert f'data-sig="{html_lib.escape(sig)}"' in drawn
        assert texts == _bars(page, path)
        drawn_titles = re.findall(r'<div class="ubar [^"]*" title="([^"]*)"', drawn)
        assert titles == [html_lib.unescape(title) for title in drawn_titles]
    assert any(NOT_ALLOWED in texts for _, _, texts, _ in drawn_by_script)
    assert any("in use elsewhere" in text for _, _, texts, _ in drawn_by_script for text in texts)
