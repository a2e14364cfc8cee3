// The elastic quota page (/elastic/<partition>/) follows the live socket's "elastic" scope.
//
// static/js/live.js keeps the connection (subscribe, resync after a gap, reconnect, the
// live/reconnecting/stale badge); this module registers the page's view with it and draws what
// the scope brings: a snapshot (the REST shape of GET .../elastic) and updates with the queues
// whose figures changed and the partition's settings. The server renders the first state; the
// rows here are those of quotaweb/elastic/page_selectors.py and templatetags/elastic_rows.py
// (which resources a queue shows, its notes, the bar and its text, the signature): keep them in
// step. A queue whose signature is unchanged is left as the server drew it.

const SCOPE = "elastic";
const SIG_FIELDS = [
  "min", "max", "sharedWeight", "autoScaleMin", "request", "limitedRequest", "used", "runtime",
  "lent", "borrowed", "unallocated",
];
const NOTE_ROOT = "The root: its runtime is the pool, the cluster total less what system queues "
  + "use, and its children share it.";
const NOTE_SYSTEM = "System queue: its usage comes off the pool and it takes no part in the fair "
  + "split; its runtime is reported as its max.";
const NOTE_NO_MAX = "No max: it takes no part in sharing, so it has no runtime and elastic quota "
  + "does not hold it back.";
const NOTE_KEEPS = "Does not lend: it keeps its whole min even while it asks for less.";
const EXPLAIN_TITLE = "How this runtime came about, step by step";
const SCALED_TITLE = "its siblings' mins add up to more than their parent shares, so each is "
  + "scaled down by the same factor";
// Above its runtime is an alarm only while elastic quota is on.
const TAG_OVER_ON = "over its runtime by ";
const TAG_OVER_OFF = ["above its runtime by ", " (not enforced: elastic quota is off)"];
const CAPPED_TITLE = "the request above the max does not count";

// -- rows (page_selectors.queue_row) -----------------------------------------------------------

function mapSig(values) {
  if (!values) return "";
  return Object.keys(values).sort().map((kind) => `${kind}:${values[kind]}`).join(",");
}

function rowSig(row) {
  const flags = `${Number(row.leaf)}${Number(row.system)}${Number(row.allowLent)}`;
  return [row.queuePath, flags, ...SIG_FIELDS.map((name) => mapSig(row[name])),
    mapSig(row.overUsed)].join("|");
}

// The row's signature with the switch in it (elastic_rows.row_state_sig).
function stateSig(sig, enabled) {
  return `${sig}|${enabled ? "on" : "off"}`;
}

// The factor a min was scaled by, two significant digits (page_selectors.scale_factor).
function scaleFactor(min, scaled) {
  return min ? String(Number((scaled / min).toPrecision(2))) : "0";
}

function queueKinds(row) {
  const kinds = new Set();
  for (const name of ["min", "max", "runtime", "used", "request"]) {
    for (const kind of Object.keys(row[name] ?? {})) kinds.add(kind);
  }
  return [...kinds].sort();
}

function queueNotes(row) {
  if (row.parent === null) return [NOTE_ROOT];
  const notes = [];
  if (row.system) notes.push(NOTE_SYSTEM);
  else if (Object.keys(row.max).length === 0) notes.push(NOTE_NO_MAX);
  if (!row.allowLent && !row.system) notes.push(NOTE_KEEPS);
  return notes;
}

function get(map, kind) {
  return map && Object.hasOwn(map, kind) ? map[kind] : null;
}

function lines(row) {
  const isRoot = row.parent === null;
  return queueKinds(row).map((kind) => {
    const min = get(row.min, kind);
    const scaled = get(row.autoScaleMin, kind);
    const runtime = get(row.runtime, kind);
    const line = {
      kind, min, runtime,
      scaledMin: min !== null && scaled !== null && scaled !== min ? scaled : null,
      max: get(row.max, kind),
      weight: get(row.sharedWeight, kind),
      request: get(row.request, kind) ?? 0,
      limitedRequest: get(row.limitedRequest, kind) ?? 0,
      used: get(row.used, kind) ?? 0,
      lent: get(row.lent, kind) ?? 0,
      borrowed: get(row.borrowed, kind) ?? 0,
      unallocated: row.leaf ? null : get(row.unallocated, kind) ?? 0,
      bar: null,
    };
    if (runtime !== null && !isRoot && !row.system) {
      line.bar = {
        kind, min: min ?? 0, runtime, used: line.used, request: line.limitedRequest,
        lent: line.lent, borrowed: line.borrowed,
      };
    }
    return line;
  });
}

// -- bars (page_selectors.Bar) -----------------------------------------------------------------

// Whole percent, rounded down (page_selectors.Bar.pct).
function pct(value, scale) {
  return Math.floor((value * 100) / scale);
}

function barFigures(bar) {
  return {
    scale: Math.max(bar.min, bar.runtime, bar.used, bar.request, 1),
    own: bar.runtime - bar.borrowed,
    wanted: Math.max(0, bar.request - bar.runtime),
    over: Math.max(0, bar.used - bar.runtime),
  };
}

function barText(bar, q) {
  const { wanted, over } = barFigures(bar);
  const parts = [`${bar.kind}: runtime ${q(bar.runtime)} against a min of ${q(bar.min)}`];
  if (bar.borrowed) parts.push(`borrows ${q(bar.borrowed)}`);
  if (bar.lent) parts.push(`lends ${q(bar.lent)}`);
  let text = `${parts.join(", ")}; uses ${q(bar.used)}`;
  if (over) text += `, ${q(over)} over its runtime`;
  if (wanted) text += `; asks for ${q(bar.request)}, ${q(wanted)} more than it gets`;
  return text;
}

function barElement(bar, kit) {
  const { h, formatQuantity, percentClass } = kit;
  const q = (value) => formatQuantity(bar.kind, value);
  const { scale, own, wanted, over } = barFigures(bar);
  const at = (value) => pct(value, scale);
  const runtimeAt = at(bar.runtime);
  const parts = [];
  const segment = (name, width, left = null) => {
    if (width <= 0) return;
    const offset = left === null ? "" : ` ${percentClass("left", left)}`;
    parts.push(h("span", { class: `ebar-${name}${offset} ${percentClass("w", at(width))}` }));
  };
  segment("own", own);
  segment("borrowed", bar.borrowed, at(own));
  segment("lent", bar.lent, runtimeAt);
  segment("wanted", wanted, runtimeAt);
  segment("used", bar.used);
  segment("over", over, runtimeAt);
  if (bar.min > 0) {
    parts.push(h("span", { class: `ebar-min ${percentClass("left", at(bar.min))}` }));
  }
  const text = barText(bar, q);
  return h("span", { class: "ebar", role: "img", "aria-label": text, title: text }, parts);
}

// -- the table (templatetags/elastic_rows.py) ---------------------------------------------------

function hint(kit, text, title = null) {
  return kit.h("span", { class: "hint", title }, text);
}

function cells(page, row, line, kit) {
  const { h, formatQuantity } = kit;
  const q = (value) => formatQuantity(line.kind, value);
  const num = (...content) => h("td", { class: "num" }, ...content);
  const min = line.min === null ? [hint(kit, "not set")] : [q(line.min)];
  if (line.scaledMin !== null && line.min !== null) {
    min.push(h("span", { class: "hint escaled", title: SCALED_TITLE },
      `scaled to ${q(line.scaledMin)} (\u00d7${scaleFactor(line.min, line.scaledMin)})`));
  }
  const request = [q(line.request)];
  if (line.limitedRequest < line.request) {
    request.push(hint(kit, ` (capped at ${q(line.limitedRequest)})`, CAPPED_TITLE));
  }
  const explain = `${page.root.dataset.explainUrl}?queue=${encodeURIComponent(row.queuePath)}`
    + `&resource=${encodeURIComponent(line.kind)}`;
  const runtime = line.runtime === null
    ? hint(kit, "not shared",
      `${line.kind} is not in this queue's max, so it takes no part in sharing ${line.kind}`)
    : h("a", { href: explain, title: EXPLAIN_TITLE }, q(line.runtime));
  // Key columns first, in the page header's order (elastic_rows._cells).
  return [
    h("th", { scope: "row", class: "kind" }, line.kind),
    h("td", { class: "num runtime" }, runtime),
    num(q(line.used)),
    h("td", { class: "num emin" }, min),
    num(q(line.lent)),
    num(q(line.borrowed)),
    num(line.unallocated === null ? "" : q(line.unallocated)),
    h("td", { class: "ebar-cell" }, line.bar ? barElement(line.bar, kit) : null),
    num(line.max === null ? hint(kit, "no max") : q(line.max)),
    num(line.weight === null ? hint(kit, "none") : q(line.weight)),
    num(request),
  ];
}

function queueCell(page, row, rowspan, enabled, kit) {
  const { h, formatResource } = kit;
  const name = row.queuePath.split(".").pop();
  const tags = [];
  if (row.system) tags.push(h("span", { class: "tag" }, "system"));
  if (row.overUsed) {
    const over = formatResource(row.overUsed);
    tags.push(enabled
      ? h("span", { class: "tag over" }, `${TAG_OVER_ON}${over}`)
      : h("span", { class: "tag above" }, `${TAG_OVER_OFF[0]}${over}${TAG_OVER_OFF[1]}`));
  }
  return h("th", { scope: "rowgroup", rowspan: rowspan > 1 ? rowspan : null, class: "qname" },
    h("a", { href: page.url("queue", row.queuePath), title: row.queuePath }, name),
    tags.length ? [" ", tags.map((tag, i) => [i ? " " : "", tag])] : null,
    queueNotes(row).map((note) => h("p", { class: "hint enote" }, note)));
}

function queueBody(page, row, sig, enabled, kit) {
  const { h, depthClass } = kit;
  const all = lines(row);
  const head = queueCell(page, row, Math.max(1, all.length), enabled, kit);
  const rows = all.length
    ? all.map((line, index) => h("tr", null, index === 0 ? head : null,
      cells(page, row, line, kit)))
    : [h("tr", null, head, h("th", { scope: "row", class: "kind" }, "\u2013"),
      h("td", { colspan: 10, class: "hint" }, "no resource figures"))];
  return h("tbody", {
    class: `equeue ${depthClass(row.queuePath.split(".").length - 1)}`, "data-key": row.queuePath,
    "data-sig": sig,
  }, rows);
}

// The server shows part of the tree (quotaweb/elastic/tree_window.py): the queues it drew are
// redrawn in place when their figures change, and keep their arrows; none are added or removed.
function drawTable(page, rows, enabled, kit) {
  const table = page.root.querySelector("[data-elastic-table]");
  if (!table) return;
  for (const old of table.querySelectorAll("tbody[data-key]")) {
    const row = rows.get(old.dataset.key);
    if (!row) continue;
    const sig = stateSig(rowSig(row), enabled);
    if (old.dataset.sig === sig) continue;
    const fresh = queueBody(page, row, sig, enabled, kit);
    const twisty = old.querySelector("th.qname > .twisty");
    if (twisty) fresh.querySelector("th.qname")?.prepend(twisty);
    old.replaceWith(fresh);
    for (const tr of fresh.rows) kit.flash(tr);
  }
}

// -- the page ------------------------------------------------------------------------------------

function drawSettings(page, settings, kit) {
  const { h, replaceField, toggle, formatResource, clock } = kit;
  const root = page.root;
  const word = settings.enabled ? "on" : "off";
  replaceField(root, "enabled", word);
  replaceField(root, "enabled-word", word);
  replaceField(root, "enabled-meaning", settings.enabled
    ? ["On: an allocation must also fit its leaf queue's runtime, or it is denied with reason ",
      h("code", null, "elasticQuota"), "."]
    : "Off: runtimes are computed and shown here, but not enforced.");
  const hasTotal = Object.keys(settings.clusterTotal).length > 0;
  replaceField(root, "cluster-total", hasTotal ? formatResource(settings.clusterTotal) : "not set");
  replaceField(root, "pool",
    Object.keys(settings.pool).length ? formatResource(settings.pool) : "nothing");
  if (settings.computedAt) {
    const at = new Date(settings.computedAt);
    replaceField(root, "computed", h("time", { datetime: settings.computedAt }, clock(at)));
  }
  toggle(root, "[data-no-total]", !hasTotal);
  const value = root.querySelector("[data-switch-value]");
  if (value) value.value = settings.enabled ? "off" : "on";
  const button = root.querySelector("[data-switch-button]");
  const label = settings.enabled ? "Turn elastic quota off" : "Turn elastic quota on";
  if (button && button.textContent !== label) button.textContent = label;
}

function drawOverUse(page, rows, kit) {
  // The list itself (with what revocation would pick) comes from the server: say when it is
  // out of date.
  const drawn = (page.root.dataset.overPaths ?? "").split(" ").filter(Boolean).sort();
  const now = [...rows.values()].filter((row) => row.overUsed).map((row) => row.queuePath).sort();
  kit.toggle(page.root, "[data-over-changed]", drawn.join(" ") !== now.join(" "));
}

function settingsOf(data) {
  const { queues, ...settings } = data;
  return settings;
}

const view = {
  snapshot(scope, data) {
    if (scope !== SCOPE) return data;
    const rows = new Map(data.queues.map((row) => [row.queuePath, row]));
    return { settings: settingsOf(data), rows };
  },

  update(scope, state, message) {
    if (scope !== SCOPE || !state) return state;
    for (const row of message.changed ?? []) state.rows.set(row.queuePath, row);
    for (const path of message.removed ?? []) state.rows.delete(path);
    if (message.partition) state.settings = message.partition;
    return state;
  },

  render(page, state, kit) {
    const data = state.get(SCOPE);
    if (!data) return;
    drawSettings(page, data.settings, kit);
    drawTable(page, data.rows, data.settings.enabled, kit);
    drawOverUse(page, data.rows, kit);
  },
};

(globalThis.quotawebLiveViews ??= {}).elastic = view;
