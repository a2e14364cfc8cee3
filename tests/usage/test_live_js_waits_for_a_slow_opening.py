"""``static/js/live.js`` does not drop an opening the server is still working on: under a crowd
a server takes seconds to open a socket (daphne gives up after 5 s), and a page that dropped
its opening and opened another fed a reconnect storm. An opening that never comes (a frozen
server) is still dropped and tried again."""

from __future__ import annotations

from tests.usage.live_js_support import run_live_js

# Time passes, 100 ms at a time (no heartbeats: the socket is not open).
WAIT = r"""
function wait(ms) {
  const until = now + ms;
  while (now < until) {
    now = Math.min(until, now + 100);
    for (const t of timers.filter((x) => x.at <= now)) { context.clearTimeout(t); t.fn(); }
  }
}
"""

SLOW_OPENING = r"""
const out = {};
wait(4_500);
out.openingsAfter4500ms = sockets.length;
sockets[0].open();
out.subscribed = sockets[0].sent.map((m) => m.type);
wait(1_000);
out.openingsOnceOpen = sockets.length;
process.stdout.write(JSON.stringify(out));
"""

NEVER_OPENS = r"""
wait(8_000);
process.stdout.write(JSON.stringify({ openings: sockets.length }));
"""


def test_an_opening_that_takes_seconds_is_waited_for(tmp_path):
    out = run_live_js(tmp_path, WAIT + SLOW_OPENING)

    assert out == {"openingsAfter4500ms": 1, "subscribed": ["subscribe"], "openingsOnceOpen": 1}


def test_an_opening_that_never_comes_is_tried_again(tmp_path):
    out = run_live_js(tmp_path, WAIT + NEVER_OPENS)

    assert out["openings"] == 2
