"""``static/js/live.js`` recovers from a snapshot that never comes, without a reload: it asks
for it again (``resync``) within ``SNAPSHOT_WAIT_MS`` and a jitter, with backoff; updates wait
for the snapshot, then flow; a refusal's ``retryAfter`` is respected. Runs the page's
connection in Node with a fake socket and clock (skipped without Node)."""

from __future__ import annotations

from tests.usage.live_js_support import run_live_js

LATE_SNAPSHOT = r"""
const socket = sockets[0];
socket.open();
// Time passes with the server's heartbeat every 2 s; the resyncs the page sent meanwhile.
function wait(ms) {
  const until = now + ms;
  const before = socket.sent.length;
  while (now < until) {
    now = Math.min(until, now + 100);
    if (now % 2000 === 0) socket.deliver({ type: "heartbeat" });
    for (const t of timers.filter((x) => x.at <= now)) { context.clearTimeout(t); t.fn(); }
  }
  return socket.sent.slice(before).filter((m) => m.type === "resync").map(() => now);
}
const out = { subscribed: socket.sent.map((m) => m.type) };
socket.deliver({ type: "update", scope: "user:alice", seq: 1, changed: [{ n: 1 }], removed: [] });
out.drawnWhileWaiting = drawn.length;
out.quiet = wait(5_900).length;
out.firstAsk = wait(4_200).length;
out.secondAsk = wait(20_000).length;
socket.deliver({ type: "snapshot", scope: "user:alice", seq: 1, data: { n: 1 } });
socket.deliver({ type: "update", scope: "user:alice", seq: 2, changed: [{ n: 2 }], removed: [] });
out.drawn = drawn;
out.state = badge.dataset.state;
out.afterSnapshot = wait(60_000).length;
// A gap: asked again at once; refused, it waits the retryAfter (20 s) before asking again.
socket.deliver({ type: "update", scope: "user:alice", seq: 9, changed: [], removed: [] });
socket.deliver({ type: "error", scope: "user:alice", message: "too often", retryAfter: 20 });
out.beforeRetryAfter = wait(19_900).length;
out.afterRetryAfter = wait(10_200).length;
out.sameSocket = sockets.length;
process.stdout.write(JSON.stringify(out));
"""


def test_a_late_snapshot_is_asked_for_again_and_updates_flow_after_it(tmp_path):
    out = run_live_js(tmp_path, LATE_SNAPSHOT)

    assert out["subscribed"] == ["subscribe"]
    # An update before the snapshot is not applied (the snapshot is what it builds on)...
    assert out["drawnWhileWaiting"] == 0
    # ...and the snapshot is asked for again after 6-10 s, then after 12-20 s more.
    assert out["quiet"] == 0
    assert out["firstAsk"] == 1
    assert out["secondAsk"] == 1
    # When it comes, the page is live and the next update applies on top of it.
    assert out["drawn"] == [{"n": 1}, {"n": 2}]
    assert out["state"] == "live"
    assert out["afterSnapshot"] == 0
    assert out["beforeRetryAfter"] == 0
    assert out["afterRetryAfter"] == 1
    assert out["sameSocket"] == 1
