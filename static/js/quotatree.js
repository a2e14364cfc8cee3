// The quota tree pages (/trees/<tree>/ and /trees/forests/<forest>/) follow the live socket's
// "tree:<name>" scopes.
//
// static/js/live.js keeps the connection (subscribe, resync after a gap, reconnect, the
// live/reconnecting/stale badge); this module registers the pages' view with it and draws what
// each scope brings: a snapshot ({tree, feed}; null once the tree is gone), then updates with
// every node when the tree changed, its header, and the new feed entries. The server renders
// the first state; rows, bars, words and signatures are those of
// quotaweb/quotatrees/page_selectors.py and the templates under templates/quotatrees/: keep
// them in step. A node whose signature is unchanged is left as it was drawn.
//
// The scope's nodes list consumer ids only. What a row says about a consumer (its group, so
// "borrowing from <group>", its priority and request) comes from the page's first map and, for
// a consumer it has not seen, from GET /api/v1/quota-trees/<tree>/allocations.

const PREFIX = "tree:";
const FEED_SHOWN = 100;
const KIND_TEXT = {
  allocated: "placed",
  forced: "forced",
  trial: "tried",
  rejected: "rejected",
  preempted: "preempted",
  released: "released",
  undone: "trial undone",
  unplaced: "not placed again",
};
const HOW_TEXT = {
  root: "pushed out at the root to make room",
  priority: "preempted by a higher priority on its own path",
  forest: "preempted on another tree of its forest, so removed here too",
};
const MODE_TEXT = {
  normal: "Normal: an allocation is placed at the lowest node from its group up where it fits, "
    + "borrowing unused quota through soft nodes (never above a hard one), and a higher "
    + "priority may preempt.",
  maintenance: "Maintenance: allocations are forced at their group without any check (quotas "
    + "may be exceeded) and trials are refused. Use it while loading consumers that already "
    + "run, then switch back to normal.",
};
const HARD_TITLE = "hard: consumers below cannot borrow above this node";
const SOFT_TITLE = "soft: consumers below may borrow unused quota above this node";

// -- what the page knows of each consumer -------------------------------------------------------

function startingMap() {
  const script = document.getElementById("tq-consumers");
  const map = new Map();
  if (!script) return map;
  const data = JSON.parse(script.textContent);
  for (const [tree, consumers] of Object.entries(data)) {
    map.set(tree, new Map(Object.entries(consumers)));
  }
  return map;
}

const known = startingMap(); // tree -> Map(id -> {group, priority, request})
const fetching = new Set(); // trees whose consumers are being fetched
const fetchedAt = new Map(); // tree -> the generation last fetched for
let last = null; // {page, state, kit} of the last render, to draw again after a fetch

function infoOf(tree) {
  if (!known.has(tree)) known.set(tree, new Map());
  return known.get(tree);
}

async function fetchConsumers(page, tree, generation) {
  fetching.add(tree);
  fetchedAt.set(tree, generation);
  try {
    const url = page.url("allocations", tree);
    const response = await fetch(url, {
      credentials: "same-origin", headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    const { consumers } = await response.json();
    const info = infoOf(tree);
    for (const c of consumers) {
      info.set(c.id, { group: c.groupID, priority: c.priority, request: c.request });
    }
  } catch (error) {
    console.warn("quota tree consumers:", error);
  } finally {
    fetching.delete(tree);
    if (last) view.render(last.page, last.state, last.kit);
  }
}

// -- rows (page_selectors.node_rows) -------------------------------------------------------------

function kv(values) {
  return Object.keys(values ?? {}).sort().map((key) => `${key}=${values[key]}`).join(",");
}

// A tree resource as a product resource type (quotaweb/quotatrees/units.py: TREE_TYPES).
const TREE_TYPES = { cpu: "vcore" };

function treeQuantity(kit, kind, value) {
  return kit.formatQuantity(TREE_TYPES[kind] ?? kind, value);
}

function resourceText(values, kit) {
  const keys = Object.keys(values ?? {}).sort();
  return keys.length
    ? keys.map((key) => `${key} ${treeQuantity(kit, key, values[key])}`).join(", ")
    : "nothing";
}

function placedSig(placed) {
  if (placed.group === null) return `${placed.id}@?`;
  return `${placed.id}@${placed.group}#${placed.priority}#${kv(placed.request)}`;
}

function treeOrder(nodes) {
  const names = new Set(nodes.map((node) => node.name));
  const children = new Map();
  for (const node of nodes) {
    const parent = node.parent !== null && names.has(node.parent) ? node.parent : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(node);
  }
  const out = [];
  const seen = new Set();
  const stack = [...(children.get(null) ?? [])].reverse().map((node) => [node, 0]);
  while (stack.length) {
    const [node, depth] = stack.pop();
    if (seen.has(node.name)) continue;
    seen.add(node.name);
    out.push([node, depth]);
    for (const child of [...(children.get(node.name) ?? [])].reverse()) {
      stack.push([child, depth + 1]);
    }
  }
  for (const node of nodes) if (!seen.has(node.name)) out.push([node, 0]);
  return out;
}

function makeBar(kind, allocated, quota, kit) {
  const q = (value) => treeQuantity(kit, kind, value);
  const over = allocated > quota;
  let ratio = 0;
  if (quota > 0) ratio = allocated / quota;
  else if (allocated > 0) ratio = Infinity;
  let level = "ok";
  if (over) level = "over";
  else level = [90, 75, 60].map(String).find((t) => ratio * 100 >= Number(t)) ?? "ok";
  const width = ratio >= 1 ? 100 : Math.max(0, Math.floor(ratio * 100));
  const text = over
    ? `${q(allocated)} of ${q(quota)} · over by ${q(allocated - quota)}`
    : `${q(allocated)} of ${q(quota)} · ${Math.floor(ratio * 100)} %`;
  const head = `${kind}: ${q(allocated)} allocated of a quota of ${q(quota)}`;
  const title = over
    ? `${head}, ${q(allocated - quota)} over quota`
    : `${head}, ${q(quota - allocated)} left`;
  return { kind, over, level, width, text, title };
}

function nodeRows(tree, nodes, kit) {
  const info = infoOf(tree);
  return treeOrder(nodes).map(([node, depth]) => {
    const consumers = node.consumers.map((id) => {
      const known = info.get(id);
      return known
        ? { id, ...known, borrowing: known.group !== node.name }
        : { id, group: null, priority: null, request: {}, borrowing: false };
    });
    const kinds = [...new Set([...Object.keys(node.quota), ...Object.keys(node.allocated)])].sort();
    const bars = kinds.map((kind) => makeBar(
      kind, node.allocated[kind] ?? 0, node.quota[kind] ?? 0, kit));
    const slack = Object.keys(node.slack).sort().map((kind) => ({ kind, value: node.slack[kind] }));
    const sig = [node.name, node.parent ?? "", node.hard ? "hard" : "soft", kv(node.quota),
      kv(node.allocated), kv(node.slack), consumers.map(placedSig).join(" ")].join("|");
    return { node, depth, consumers, bars, slack, sig, over: bars.some((bar) => bar.over) };
  });
}

function barElement(bar, kit) {
  const { h, percentClass } = kit;
  return h("div", { class: `ubar lvl-${bar.level}`, title: bar.title },
    h("span", { class: "ubar-label" }, bar.kind),
    h("span", { class: "ubar-track", "aria-hidden": "true" },
      h("span", { class: `ubar-fill ${percentClass("w", bar.width)}` })),
    h("span", { class: "ubar-text" }, bar.text));
}

function nodeElement(page, row, kit) {
  const { h, depthClass } = kit;
  const { node } = row;
  const hint = (text) => h("span", { class: "hint" }, text);
  return h("tr", {
    "data-key": node.name, "data-sig": row.sig,
    class: `${depthClass(row.depth)}${row.over ? " tq-over" : ""}`,
  },
  h("th", { scope: "row", class: "qname" }, h("span", { class: "tq-name" }, node.name), " ",
    node.hard
      ? h("span", { class: "tag tq-hard", title: HARD_TITLE }, "hard")
      : h("span", { class: "tag quiet", title: SOFT_TITLE }, "soft")),
  h("td", { class: "bars" }, row.bars.length
    ? row.bars.map((bar) => barElement(bar, kit)) : hint("no resources")),
  h("td", { class: "tq-slack" }, row.slack.map(({ kind, value }) => h("div",
    { class: value < 0 ? "negative" : null },
    h("span", { class: "tq-kind" }, kind), ` ${treeQuantity(kit, kind, value)}`,
    value < 0 ? [" ", h("span", { class: "tag over" }, "over-committed"), " ",
      hint(`its children are promised ${treeQuantity(kit, kind, -value)} more than it has`)]
      : null))),
  h("td", { class: "tq-consumers" }, row.consumers.length
    ? h("ul", { class: "plain" }, row.consumers.map((placed) => h("li", {
      title: placed.group === null ? null
        : `priority ${placed.priority}, asks for ${resourceText(placed.request, kit)}`,
    }, page.link("consumer", placed.id),
    placed.borrowing
      ? [" ", h("span", { class: "tag tq-borrow" }, "borrowing"), " ", hint(`from ${placed.group}`)]
      : null)))
    : hint("none")));
}

// -- the feed (page_selectors.feed_rows) ---------------------------------------------------------

function reasonOf(event) {
  if (event.message) return event.message;
  const steps = event.steps ?? [];
  const placed = steps.filter((step) => step.startsWith("placed at")
    || step.startsWith("maintenance mode:"));
  if (placed.length) return placed[placed.length - 1];
  return steps.length ? steps[steps.length - 1] : "";
}

function feedElement(page, event, kit) {
  const { h, clock } = kit;
  const at = new Date(event.at * 1000);
  let places = Object.entries(event.nodes ?? {}).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const preemption = event.preemption;
  if (preemption && !places.length) places = [[preemption.tree, preemption.node]];
  const where = places.length
    ? places.map(([tree, node], i) => [i ? ", " : "", h("code", null, node), " ",
      h("span", { class: "hint" }, `in ${tree}`)])
    : h("span", { class: "hint" }, (event.trees ?? []).join(", "));
  const why = preemption
    ? ["by ", page.link("consumer", preemption.by),
      ` (priority ${preemption.byPriority} against its ${preemption.priority}) at `,
      h("code", null, preemption.node), `: ${HOW_TEXT[preemption.how] ?? preemption.how}`]
    : reasonOf(event);
  const steps = event.steps ?? [];
  return h("tr", {
    class: `ev tq-ev-${event.kind}`, "data-key": event.seq, "data-sig": event.seq,
  },
  h("td", null, h("time", { datetime: at.toISOString() }, clock(at))),
  h("td", null, h("span", { class: "ev-kind" }, KIND_TEXT[event.kind] ?? event.kind)),
  h("td", null, page.link("consumer", event.consumer)),
  h("td", null, where),
  h("td", null, why, steps.length
    ? h("details", { class: "tq-steps" }, h("summary", null, "Steps"),
      h("ol", null, steps.map((step) => h("li", null, step))))
    : null));
}

// -- drawing -------------------------------------------------------------------------------------

function drawHeader(page, section, tree, data, kit) {
  const { h, replaceField } = kit;
  const { header } = data;
  const consumers = data.nodes.reduce((sum, node) => sum + node.consumers.length, 0);
  replaceField(section, "mode", header.mode);
  replaceField(section, "version", header.version === null ? "–" : String(header.version));
  replaceField(section, "consumers", String(consumers));
  replaceField(section, "resources", header.resourceNames.join(", "));
  if (header.version !== null) {
    const parts = [`Version ${header.version} saved`];
    if (header.versionAuthor) parts.push(` by ${header.versionAuthor}`);
    const by = header.versionCreated
      ? [parts.join(""), " at ",
        h("time", { datetime: header.versionCreated }, kit.clock(new Date(header.versionCreated))), "."]
      : [`${parts.join("")}.`];
    replaceField(section, "version-by", ...by);
  }
  // The tree page's own mode words and switch (a forest page's switch is the forest's).
  const meaning = page.root.querySelector("[data-mode-meaning]");
  const words = MODE_TEXT[header.mode] ?? "";
  if (meaning && page.scopes.length === 1 && meaning.textContent !== words) {
    meaning.textContent = words;
  }
  const switcher = document.querySelector(`[data-mode-for="${CSS.escape(PREFIX + tree)}"]`);
  if (switcher) {
    const other = header.mode === "maintenance" ? "normal" : "maintenance";
    replaceField(switcher, "mode-word", header.mode);
    switcher.querySelector("[data-mode-value]").value = other;
    const button = switcher.querySelector("[data-mode-button]");
    const label = `Switch to ${other} mode`;
    if (button.textContent !== label) button.textContent = label;
  }
}

function drawTree(page, section, tree, data, kit) {
  kit.toggle(section, "[data-tree-gone]", data.gone);
  if (data.gone) return;
  drawHeader(page, section, tree, data, kit);
  const rows = nodeRows(tree, data.nodes, kit);
  kit.reconcile(section.querySelector("tbody[data-nodes]"), rows.map((row) => ({
    key: row.node.name, sig: row.sig, build: () => nodeElement(page, row, kit),
  })));
  // Consumers this page has not met: ask the API once per change of the tree.
  const info = infoOf(tree);
  const here = new Set(data.nodes.flatMap((node) => node.consumers));
  for (const id of [...info.keys()]) if (!here.has(id)) info.delete(id);
  const missing = [...here].some((id) => !info.has(id));
  if (missing && !fetching.has(tree) && fetchedAt.get(tree) !== data.header.generation) {
    fetchConsumers(page, tree, data.header.generation);
  }
}

function drawFeed(page, state, kit) {
  const body = page.root.querySelector("tbody[data-feed]");
  if (!body) return;
  const events = new Map();
  for (const [scope, data] of state) {
    if (!scope.startsWith(PREFIX) || !data || data.gone) continue;
    for (const [seq, event] of data.feed) events.set(seq, event);
  }
  if (!events.size && body.rows.length) return; // nothing received yet: keep what was drawn
  const newest = [...events.values()].sort((a, b) => b.seq - a.seq).slice(0, FEED_SHOWN);
  kit.reconcile(body, newest.map((event) => ({
    key: String(event.seq), sig: String(event.seq), build: () => feedElement(page, event, kit),
  })));
  kit.toggle(page.root, "[data-feed-empty]", body.rows.length === 0);
}

function fromData(data) {
  const { nodes, ...header } = data.tree;
  return { gone: false, header, nodes, feed: new Map(data.feed.map((event) => [event.seq, event])) };
}

const view = {
  snapshot(scope, data) {
    if (!scope.startsWith(PREFIX)) return data;
    return data ? fromData(data) : { gone: true, header: null, nodes: [], feed: new Map() };
  },

  update(scope, state, message) {
    if (!scope.startsWith(PREFIX) || !state) return state;
    let current = state;
    if (current.gone) {
      // The tree came back (deleted and created again): start over from what this brings.
      if (!message.tree) return current;
      current = { gone: false, header: message.tree, nodes: [], feed: new Map() };
    }
    if (message.changed?.length) current.nodes = message.changed;
    if (message.tree) current.header = message.tree;
    for (const event of message.events ?? []) current.feed.set(event.seq, event);
    const extra = current.feed.size - FEED_SHOWN;
    if (extra > 0) {
      const oldest = [...current.feed.keys()].sort((a, b) => a - b).slice(0, extra);
      for (const seq of oldest) current.feed.delete(seq);
    }
    return current;
  },

  render(page, state, kit) {
    last = { page, state, kit };
    for (const section of page.root.querySelectorAll("[data-tree]")) {
      const tree = section.dataset.tree;
      const data = state.get(PREFIX + tree);
      if (data) drawTree(page, section, tree, data, kit);
    }
    drawFeed(page, state, kit);
  },
};

(globalThis.quotawebLiveViews ??= {}).quotatree = view;
