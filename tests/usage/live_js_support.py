"""Runs ``static/js/live.js``'s page connection in Node with a fake socket and clock (tests
skip without Node): ``run_live_js`` runs a test's script after ``live.start()`` and returns
what it wrote (JSON). The script sees ``sockets`` (every socket the page opened), ``now``,
``timers``, ``context``, ``drawn``, ``badge`` and ``live``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

LIVE_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "live.js"

PRELUDE = r"""
const fs = require("fs");
const vm = require("vm");
let now = 0;
let timers = [];
const element = () => ({ setAttribute() {}, append() {}, after() {}, dataset: {},
                          classList: { add() {}, remove() {} } });
const sockets = [];
class WebSocket {
  static OPEN = 1;
  constructor(url) { this.url = url; this.sent = []; this.readyState = 0; this.on = {};
                     sockets.push(this); }
  addEventListener(name, handler) { this.on[name] = handler; }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.on.open(); }
  deliver(message) { this.on.message({ data: JSON.stringify(message) }); }
}
const context = {
  console: { warn() {} }, WebSocket, location: { protocol: "http:", host: "example" },
  document: { querySelectorAll: () => [], createElement: element },
  window: {}, requestAnimationFrame: (fn) => fn(), Math,
  setTimeout: (fn, ms) => { const t = { at: now + ms, fn }; timers.push(t); return t; },
  clearTimeout: (t) => { timers = timers.filter((x) => x !== t); },
};
const Live = vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8") + "\n;Live", context);
const drawn = [];
const page = { root: { dataset: {} }, partition: "default", scopes: ["user:alice"],
               render: (state) => drawn.push(state.get("user:alice")) };
const badge = element();
const live = new Live(page, badge);
live.start();
"""


def run_live_js(folder: Path, script: str) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    path = folder / "live_test.js"
    path.write_text(PRELUDE + script)
    run = subprocess.run([node, str(path), str(LIVE_JS)], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(run.stdout)
