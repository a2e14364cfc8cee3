// Live usage pages: one websocket per page (/ws/usage/{partition}/) carrying the page's scopes;
// snapshots and updates are applied to a small model and only the rows that changed are touched.
//
// The server renders the first state (the page works without this script). The rules that turn
// usage into rows (effective limits, most constrained limit, bar colours, human units) are those
// of quotaweb/usage/limits.py and rows.py, and trackers/resources.py: keep them in step. Each
// row carries a signature of its numbers (data-sig), computed the same way on both sides, so the
// first snapshot leaves unchanged server-rendered rows alone.

// The socket sends a heartbeat every 2 s (quotaweb/usage/consumers.py, HEARTBEAT_SECONDS):
// hearing nothing for this long means a frozen server or a dead connection, and the page says
// its figures are stale well within 5 s.
const SILENT_MS = 4_500;
// A frozen server still accepts connections and never answers them: a socket not open within
// this long is dropped and tried again. Longer than the server takes to open one under a crowd
// (daphne gives up after 5 s): a page that dropped an opening still on its way and opened
// another put one more in the server's queue, and a crowd of pages doing so fed a reconnect
// storm. A frozen server that wakes answers the opening already waiting.
const OPEN_WAIT_MS = 6_000;
// A snapshot asked for and not come within this long (jittered ±25 %) is asked for again, then
// after twice as long, up to the maximum. The server asks the engine owner again by itself
// after 4 s (quotaweb/usage/consumers.py, SNAPSHOT_WAIT_SECONDS): this is the page's fallback,
// and a resync while the server waits is merged into its request. The jitter keeps 1,000 pages
// whose snapshots were lost together from asking together; the backoff keeps a page well
// within the server's allowance (QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE, 30 a minute).
const SNAPSHOT_WAIT_MS = 8_000;
const SNAPSHOT_WAIT_MAX_MS = 60_000;
// Capped low, so a page is live again within about a second of the server coming back.
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 1_000;
// The activity feed as quotaweb/usage/page_selectors.py (EVENT_ROWS) and rows.py
// (GROUP_SECONDS) draw it: rows of one application's events, newest first.
const EVENT_ROWS = 50;
const GROUP_SECONDS = 10;
const APPLICATIONS = "applications";
// Close codes of quotaweb/usage/consumers.py that retrying cannot fix.
const GIVE_UP = new Map([
  [4401, "log in again to see live figures"],
  [4403, "this view is not available to you"],
  [4404, "this partition no longer exists"],
]);
// A page with a view of its own (static/js/elastic.js) registers it here under the name in its
// data-view, before or after this script runs: { snapshot(scope, data) -> state,
// update(scope, state, message) -> state, render(page, state, kit) }. The connection, the
// badge, resyncs and reconnects stay this script's.
const VIEWS = (globalThis.quotawebLiveViews ??= {});
// Subscriptions a socket may hold (quotaweb/usage/consumers.py, MAX_SCOPES): a tree page adds one
// per queue opened (static/js/usage-tree.js) and stops following more beyond it.
const MAX_SCOPES = 64;

function ownView(name) {
  return Object.hasOwn(VIEWS, name) ? VIEWS[name] : null;
}

// -- human units (trackers/resources.py) ------------------------------------------------------

// Binary units, as admins write memory (512Gi reads 512 GiB).
const BYTE_STEP = 1024;
const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

function trimNumber(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

// Python's f"{x:.1f}": like toFixed(1), except that an exact tie goes to the even digit.
function oneDecimal(x) {
  const exact = x.toFixed(30);
  const [whole, fraction] = exact.split(".");
  if (/^\d50*$/.test(fraction) && Number(fraction[0]) % 2 === 0) return `${whole}.${fraction[0]}`;
  return x.toFixed(1);
}

function bytes(value) {
  let unit = 0;
  let scaled = value;
  while (unit < BYTE_UNITS.length - 1 && Number(oneDecimal(scaled)) >= BYTE_STEP) {
    scaled /= BYTE_STEP;
    unit += 1;
  }
  return `${trimNumber(oneDecimal(scaled))} ${BYTE_UNITS[unit]}`;
}

function isBytesType(kind) {
  return kind.includes("memory") || kind.includes("storage");
}

function formatQuantity(kind, value) {
  if (value < 0) return `-${formatQuantity(kind, -value)}`;
  if (kind === "vcore") {
    const cores = Math.floor(value / 1000);
    const milli = String(value % 1000).padStart(3, "0");
    return `${trimNumber(`${cores}.${milli}`)} vcore`;
  }
  return isBytesType(kind) ? bytes(value) : String(value);
}

function formatResource(resource) {
  const kinds = Object.keys(resource).sort();
  if (kinds.length === 0) return "nothing";
  return kinds.map((kind) => {
    const text = formatQuantity(kind, resource[kind]);
    return kind === "vcore" ? text : `${kind} ${text}`;
  }).join(", ");
}

// The exact values behind formatResource, for hover (trackers.resources.format_resource_raw).
function formatResourceRaw(resource) {
  return Object.keys(resource).sort()
    .map((kind) => `${kind} ${resource[kind]}${unit(kind)}`).join(", ");
}

function quantity(kind, value) {
  return kind === APPLICATIONS ? String(value) : formatQuantity(kind, value);
}

function unit(kind) {
  if (kind === "vcore") return " millicores";
  return isBytesType(kind) ? " bytes" : "";
}

function amount(map, kind) {
  return map && Object.hasOwn(map, kind) ? map[kind] : 0;
}

function byText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// -- bars (limits.Bar) ------------------------------------------------------------------------

// written: the limit as configured at source (null when unknown); above: source is a level
// above the row's own. They let the text explain a limit of 0 or a parent's cap (limits.Bar).
function makeBar(kind, used, limit, source = "", written = null, above = false) {
  const over = limit !== null && used > limit;
  let ratio = 0;
  if (limit !== null) {
    const shown = Math.max(limit, 0);
    if (shown > 0) ratio = used / shown;
    else if (used > 0 || over) ratio = Infinity;
  }
  return { kind, used, limit, source, written, above, over, ratio };
}

function barLevel(bar) {
  if (bar.limit === null) return "none";
  if (bar.over) return "over";
  return [90, 75, 60].map(String).find((t) => bar.ratio * 100 >= Number(t)) ?? "ok";
}

function barWidth(bar) {
  if (bar.limit === null) return 0;
  return bar.ratio >= 1 ? 100 : Math.max(0, Math.floor(bar.ratio * 100));
}

function barText(bar) {
  const used = quantity(bar.kind, bar.used);
  if (bar.limit === null) return `${used} · no limit`;
  const limit = quantity(bar.kind, Math.max(bar.limit, 0));
  let text;
  if (bar.written === 0) {
    text = bar.used ? `not allowed · ${used} in use` : "not allowed";
  } else if (bar.over) {
    text = `${used} of ${limit} · over by ${quantity(bar.kind, bar.used - bar.limit)}`;
  } else {
    text = `${used} of ${limit} · ${Math.floor(bar.ratio * 100)} %`;
  }
  if (!bar.above) return text;
  text = `${text} · capped by ${bar.source}`;
  if (!bar.written || bar.written === bar.limit) return text;
  return `${text}: ${quantity(bar.kind, bar.written)} less `
    + `${quantity(bar.kind, bar.written - bar.limit)} in use elsewhere`;
}

function writtenDiffers(bar) {
  return bar.written !== null && bar.written !== bar.limit;
}

function barTitle(bar) {
  const u = unit(bar.kind);
  if (bar.limit === null) return `${bar.kind}: ${bar.used}${u} used, no limit`;
  const title = `${bar.kind}: ${bar.used}${u} used of ${bar.limit}${u}, `
    + `${bar.limit - bar.used}${u} left; tightest limit at ${bar.source}`;
  return writtenDiffers(bar) ? `${title}, which sets ${bar.written}${u}` : title;
}

function barSig(bar) {
  const sig = `${bar.kind}=${bar.used}/${bar.limit === null ? "-" : bar.limit}@${bar.source}`;
  return writtenDiffers(bar) ? `${sig}^${bar.written}` : sig;
}

function barLabel(bar) {
  return bar.kind === APPLICATIONS ? "apps" : bar.kind;
}

// -- trees (limits: levels, effective limits, most constrained) --------------------------------

function entityLevel(node) {
  const apps = node.runningApplications ?? [];
  return {
    path: node.queuePath, usage: node.resourceUsage ?? {}, running: apps.length,
    cap: node.maxResources ?? null, maxApps: node.maxApplications ?? 0, apps,
  };
}

function queueLevel(node) {
  return {
    path: node.queuename, usage: node.allocatedResource ?? {}, running: node.runningApps ?? 0,
    cap: node.maxResource ?? null, maxApps: node.maxRunningApps ?? 0, apps: [],
  };
}

function walk(root) {
  const out = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    out.push(node);
    stack.push(...[...(node.children ?? [])].reverse());
  }
  return out;
}

function bySegments(a, b) {
  const x = a.split(".");
  const y = b.split(".");
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) return byText(x[i], y[i]);
  }
  return x.length - y.length;
}

function levelsOf(nodes, shape) {
  return new Map(nodes.map((node) => {
    const level = shape(node);
    return [level.path, level];
  }));
}

function ordered(levels) {
  return [...levels.keys()].sort(bySegments).map((path) => levels.get(path));
}

function chainOf(levels, path) {
  const segments = path.split(".");
  const chain = [];
  for (let n = 1; n <= segments.length; n += 1) {
    const level = levels.get(segments.slice(0, n).join("."));
    if (level) chain.push(level);
  }
  return chain;
}

function effective(chain, kind) {
  const node = chain[chain.length - 1];
  const isApps = kind === APPLICATIONS;
  const used = isApps ? node.running : amount(node.usage, kind);
  let best = null;
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const level = chain[i];
    let written;
    let room;
    if (isApps) {
      if (!level.maxApps) continue;
      written = level.maxApps;
      room = written - level.running;
    } else {
      if (!level.cap || !Object.hasOwn(level.cap, kind)) continue;
      written = level.cap[kind];
      room = written - amount(level.usage, kind);
    }
    if (best === null || used + room < best.limit) {
      best = { limit: used + room, source: level.path, written };
    }
  }
  if (best === null) return makeBar(kind, used, null);
  return makeBar(kind, used, best.limit, best.source, best.written, best.source !== node.path);
}

function treeRow(levels, path) {
  const chain = chainOf(levels, path);
  const kinds = new Set(Object.keys(chain[chain.length - 1].usage));
  for (const level of chain) for (const kind of Object.keys(level.cap ?? {})) kinds.add(kind);
  const bars = [...kinds].sort().map((kind) => effective(chain, kind));
  const apps = effective(chain, APPLICATIONS);
  return {
    path, depth: path.split(".").length - 1, name: path.split(".").pop(), bars, apps,
    sig: [...bars, apps].map(barSig).join(";"),
  };
}

function mostConstrained(levels) {
  let worst = null;
  for (const level of levels) {
    const cap = level.cap ?? {};
    const bars = Object.keys(cap).sort()
      .map((kind) => makeBar(kind, amount(level.usage, kind), cap[kind], level.path, cap[kind]));
    if (level.maxApps) {
      bars.push(makeBar(APPLICATIONS, level.running, level.maxApps, level.path, level.maxApps));
    }
    for (const bar of bars) if (worst === null || bar.ratio > worst.ratio) worst = bar;
  }
  return worst;
}

function entityRow(name, obj) {
  const levels = levelsOf(walk(obj.queues), entityLevel);
  const root = levels.get("root");
  const constrained = mostConstrained(ordered(levels));
  const groups = [...new Set(Object.values(obj.groups ?? {}))].sort();
  const usage = root.usage;
  const usageSig = Object.keys(usage).sort().map((kind) => `${kind}=${usage[kind]}`).join(",");
  return {
    name, constrained, running: root.running, usage, groups, paths: new Set(levels.keys()),
    sig: [constrained ? barSig(constrained) : "-", root.running, usageSig, groups.join(",")]
      .join("|"),
  };
}

// An update replaces a user or group object, never changes it: what is computed from one object
// is kept with it, so a redraw of 10,000 users recomputes only those that changed.
const derived = new WeakMap();

function derive(obj, name, compute) {
  let entry = derived.get(obj);
  if (!entry) {
    entry = new Map();
    derived.set(obj, entry);
  }
  if (!entry.has(name)) entry.set(name, compute());
  return entry.get(name);
}

function appQueues(levels) {
  // An application runs in one leaf and every ancestor lists it too: the deepest comes last.
  const where = new Map();
  for (const level of ordered(levels)) for (const app of level.apps) where.set(app, level.path);
  return [...where.entries()].sort((a, b) => byText(a[0], b[0]));
}

// -- DOM ----------------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  const present = (child) => child !== null && child !== undefined && child !== false;
  element.append(...children.flat(Infinity).filter(present));
  return element;
}

// Sizes that figures decide are classes of static/css/sizes.css (quotaweb/css_sizes.py): the
// Content-Security-Policy allows no inline style.
const DEPTH_MAX = 24;

function depthClass(depth) {
  return `depth-${Math.max(0, Math.min(depth, DEPTH_MAX))}`;
}

// prefix "w" (width) or "left"; percent whole, 0-100.
function percentClass(prefix, percent) {
  return `${prefix}-${Math.max(0, Math.min(percent, 100))}`;
}

function pad(number) {
  return String(number).padStart(2, "0");
}

function clock(date) {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function stamp(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${clock(date)}`;
}

function barElement(bar) {
  return h("div", { class: `ubar lvl-${barLevel(bar)}`, title: barTitle(bar) },
    h("span", { class: "ubar-label" }, barLabel(bar)),
    h("span", { class: "ubar-track", "aria-hidden": "true" },
      h("span", { class: `ubar-fill ${percentClass("w", barWidth(bar))}` })),
    h("span", { class: "ubar-text" }, barText(bar)));
}

function barsCell(bars) {
  return h("td", { class: "bars" },
    bars.length ? bars.map(barElement) : h("span", { class: "hint" }, "nothing used, no limit"));
}

// Put rows (each {key, sig, build}) into tbody in order, touching only what changed: a row
// whose signature is unchanged stays as it is; a changed row gets only its changed cells.
function reconcile(tbody, rows) {
  const existing = new Map([...tbody.rows].map((tr) => [tr.dataset.key, tr]));
  let cursor = tbody.firstElementChild;
  for (const row of rows) {
    let tr = existing.get(row.key);
    existing.delete(row.key);
    if (!tr) {
      tr = row.build();
      flash(tr);
    } else if (tr.dataset.sig !== row.sig) {
      const fresh = row.build();
      [...fresh.children].forEach((cell, index) => {
        const old = tr.children[index];
        if (!old) tr.append(cell);
        // data-keep: a cell the server drew from samples (a sparkline), not from live figures.
        else if (old.innerHTML !== cell.innerHTML && !cell.hasAttribute("data-keep")) {
          old.replaceWith(cell);
        }
      });
      for (const name of ["class", "data-sig"]) {
        const value = fresh.getAttribute(name);
        if (value === null) tr.removeAttribute(name);
        else tr.setAttribute(name, value);
      }
      flash(tr);
    }
    if (tr === cursor) cursor = cursor.nextElementSibling;
    else tbody.insertBefore(tr, cursor);
  }
  for (const tr of existing.values()) tr.remove();
}

function flash(element) {
  element.classList.remove("changed");
  // Restart the animation: reading offsetWidth makes the browser see the class removed.
  void element.offsetWidth;
  element.classList.add("changed");
}

// The usage field in binary units, with the exact values on hover as the server draws them.
function replaceUsage(root, usage) {
  replaceField(root, "usage", formatResource(usage));
  const field = root.querySelector('[data-field="usage"]');
  if (field) field.title = formatResourceRaw(usage);
}

function replaceField(root, name, ...content) {
  const field = root.querySelector(`[data-field="${name}"]`);
  if (!field) return;
  const fresh = h("span", null, ...content);
  if (field.textContent.trim() !== fresh.textContent.trim()) {
    field.replaceChildren(...fresh.childNodes);
  }
}

// The wildcard user or group as trackers/names.py shows it: a bare "*" read like a group name.
function shownName(name) {
  return name === "*" ? "everyone (*)" : name;
}

function toggle(root, selector, shown) {
  const element = root.querySelector(selector);
  if (element) element.hidden = !shown;
}

// What a registered view may use of this script.
const KIT = {
  h, reconcile, flash, replaceField, toggle, formatQuantity, formatResource, clock, depthClass,
  percentClass,
};

// -- the page -----------------------------------------------------------------------------------

class Page {
  constructor(root) {
    this.root = root;
    this.partition = root.dataset.partition;
    this.scopes = root.dataset.scopes.split(" ").filter(Boolean);
    // A busy feed moves faster than anyone reads: the pause button holds the rows still; the
    // newest events are kept and drawn on resuming.
    this.paused = false;
    const pause = root.querySelector("[data-pause]");
    if (pause) {
      pause.hidden = false;
      pause.addEventListener("click", () => {
        this.paused = !this.paused;
        pause.setAttribute("aria-pressed", String(this.paused));
        pause.textContent = this.paused ? "Resume the feed" : "Pause the feed";
        if (!this.paused) this.activity(this.lastEvents);
      });
    }
  }

  url(kind, name) {
    const template = this.root.dataset[`${kind}Url`];
    // A team dashboard seen without an account gives none: the usage pages need a login.
    if (!template) return null;
    // As Django's reverse() writes them: / : @ and the sub-delimiters stay as they are.
    const encoded = encodeURIComponent(name)
      .replace(/%(2F|3A|40|24|26|2B|2C|3B|3D)/g, (escape) => decodeURIComponent(escape));
    return template.replace(kind === "queue" ? "__path__" : "__name__", encoded);
  }

  link(kind, name, text = shownName(name)) {
    const href = this.url(kind, name);
    return href ? h("a", { href }, text) : text;
  }

  treeRowElement(row, { linked = true } = {}) {
    const href = linked ? this.url("queue", row.path) : null;
    return h("tr", { "data-key": row.path, "data-sig": row.sig, class: depthClass(row.depth) },
      h("th", { scope: "row", class: "qname" },
        href ? h("a", { href, title: row.path }, row.name) : row.name),
      barsCell(row.bars),
      h("td", { class: "apps" }, barElement(row.apps)));
  }

  treeRows(levels) {
    return [...levels.keys()].sort(bySegments).map((path) => {
      const row = treeRow(levels, path);
      return { key: row.path, sig: row.sig, build: () => this.treeRowElement(row) };
    });
  }

  constrained(bar) {
    if (!bar) return h("span", { class: "hint" }, "no limit applies");
    return [barElement(bar),
      h("span", { class: "hint" }, `${barLabel(bar)} at `, this.link("queue", bar.source))];
  }

  rows(name) {
    return this.root.querySelector(`tbody[data-rows="${name}"]`);
  }

  // A team dashboard reads its group's scope only, which does not say who runs what: it keeps
  // the user the server drew for an application (its row's signature ends with it).
  drawnUser(app) {
    const row = this.rows("apps")?.querySelector(`tr[data-key="${CSS.escape(app)}"]`);
    const user = row?.dataset.sig.split("|").at(-1);
    return user && user !== "-" ? user : undefined;
  }

  // Draw everything the known scopes allow; a view with several scopes draws each part once
  // its scope has arrived.
  render(state) {
    const view = this.root.dataset.view;
    if (view === "overview") this.overview(state);
    else if (view === "users" || view === "groups") this.entities(view, state);
    else if (view === "user") this.user(state.get(this.scopes[0]));
    else if (view === "group") this.group(state);
    else if (view === "queue") this.queue(state);
    else if (view === "activity") this.activity(state.get("events"));
    else ownView(view)?.render(this, state, KIT);
  }

  // A tree page shows part of the tree (quotaweb/usage/tree_window.py): one queue:<path> scope
  // per open queue, each the queue and its children. Rows are neither added nor removed here
  // (usage-tree.js does that); a shown row whose figures changed gets new cells.
  overview(state) {
    const levels = new Map();
    for (const [scope, nodes] of state) {
      if (!scope.startsWith("queue:") || !nodes) continue;
      for (const node of nodes.values()) levels.set(node.queuename, queueLevel(node));
    }
    for (const tr of this.rows("tree").querySelectorAll("tr[data-key]")) {
      if (!levels.has(tr.dataset.key)) continue;
      const row = treeRow(levels, tr.dataset.key);
      if (tr.dataset.sig === row.sig) continue;
      // The name cell keeps its open/close link.
      const [, bars, apps] = this.treeRowElement(row).children;
      tr.children[1].replaceWith(bars);
      tr.children[2].replaceWith(apps);
      tr.dataset.sig = row.sig;
      flash(tr);
    }
    const root = levels.get("root");
    if (!root) return;
    replaceField(this.root, "running", String(root.running));
    replaceUsage(this.root, root.usage);
    toggle(this.root, "[data-idle]", Object.keys(root.usage).length === 0 && root.running === 0);
  }

  // A list page shows one page of rows in the order the server chose; each row follows its own
  // user:<name> or group:<name> scope and keeps its place (a reload brings a fresh order).
  entities(kind, state) {
    const tbody = this.rows(kind);
    const single = kind === "users" ? "user" : "group";
    reconcile(tbody, [...tbody.rows].map((tr) => {
      const name = tr.dataset.key;
      const scope = `${single}:${name}`;
      if (!state.has(scope)) return { key: name, sig: tr.dataset.sig, build: () => tr };
      // null: no usage, application or limit of its own any more.
      const obj = state.get(scope) ?? { queues: { queuePath: "root" } };
      const row = derive(obj, "row", () => entityRow(name, obj));
      return { key: name, sig: row.sig, build: () => this.entityRowElement(kind, row) };
    }));
  }

  entityRowElement(kind, row) {
    const usersList = kind === "users";
    return h("tr", { "data-key": row.name, "data-sig": row.sig },
      h("th", { scope: "row" }, this.link(usersList ? "user" : "group", row.name)),
      h("td", { "data-label": "Most constrained" }, this.constrained(row.constrained)),
      h("td", { class: "num", "data-label": "Running" }, String(row.running)),
      h("td", { class: "in-use", "data-label": "In use" }, formatResource(row.usage)),
      usersList ? h("td", { class: "spark", "data-keep": true, "data-label": "Last hour" }) : null,
      usersList ? h("td", { "data-label": "Groups" }, row.groups.length
        ? row.groups.map((name, i) => [i ? ", " : "", this.link("group", name)])
        : h("span", { class: "hint" }, "none")) : null);
  }

  // The tree, applications and summary of one user or group object (null once it is gone).
  entity(obj, appCells) {
    toggle(this.root, "[data-gone]", !obj);
    if (!obj) return null;
    const levels = levelsOf(walk(obj.queues), entityLevel);
    reconcile(this.rows("tree"), this.treeRows(levels));
    const root = levels.get("root");
    replaceField(this.root, "running", String(root.running));
    replaceUsage(this.root, root.usage);
    replaceField(this.root, "constrained", this.constrained(mostConstrained(ordered(levels))));
    const apps = appQueues(levels);
    reconcile(this.rows("apps"), apps.map(([app, queue]) => {
      const [other, otherSig] = appCells(app);
      return {
        key: app, sig: `${queue}|${otherSig}`,
        build: () => h("tr", { "data-key": app, "data-sig": `${queue}|${otherSig}` },
          h("th", { scope: "row" }, h("code", null, app)),
          h("td", null, this.link("queue", queue)),
          h("td", null, other)),
      };
    }));
    toggle(this.root, "[data-empty-apps]", apps.length === 0);
    return obj;
  }

  user(obj) {
    if (obj === undefined) return;
    const links = obj?.groups ?? {};
    const shown = this.entity(obj, (app) => {
      const group = Object.hasOwn(links, app) ? links[app] : null;
      return group
        ? [this.link("group", group), `${group}|-`]
        : [h("span", { class: "hint" }, "no group"), "-|-"];
    });
    if (!shown) return;
    const groups = [...new Set(Object.values(links))].sort();
    replaceField(this.root, "groups", groups.length
      ? groups.map((name, i) => [i ? ", " : "", this.link("group", name)]) : "no group");
  }

  group(state) {
    const name = this.root.dataset.name;
    const own = this.scopes[0];
    // The group wildcard has no scope of its own: its page picks it out of the groups list.
    let obj = state.get(own);
    if (own === "groups") obj = obj ? obj.get(name) ?? null : undefined;
    const users = state.get("users");
    const owners = new Map();
    const members = [];
    const byName = [...(users ?? new Map()).entries()].sort((a, b) => byText(a[0], b[0]));
    for (const [user, userObj] of byName) {
      const apps = Object.entries(userObj.groups ?? {}).filter(([, g]) => g === name)
        .map(([app]) => app).sort();
      if (!apps.length) continue;
      members.push({ user, apps });
      for (const app of apps) owners.set(app, user);
    }
    // A team dashboard reads only its group's scope: it draws without the members' names.
    const needsUsers = this.scopes.includes("users");
    if (obj !== undefined && (users || !needsUsers)) {
      this.entity(obj, (app) => {
        const user = owners.get(app) ?? this.drawnUser(app);
        return user
          ? [this.link("user", user), `-|${user}`]
          : [h("span", { class: "hint" }, "unknown"), "-|-"];
      });
    }
    if (!users) return;
    reconcile(this.rows("members"), members.map(({ user, apps }) => ({
      key: user, sig: apps.join(","),
      build: () => h("tr", { "data-key": user, "data-sig": apps.join(",") },
        h("th", { scope: "row" }, this.link("user", user)),
        h("td", null, apps.map((app, i) => [i ? ", " : "", h("code", null, app)]))),
    })));
    replaceField(this.root, "members", String(members.length));
    toggle(this.root, "[data-empty-members]", members.length === 0);
  }

  queue(state) {
    const path = this.root.dataset.path;
    const queues = state.get("queues");
    if (queues) {
      const levels = levelsOf([...queues.values()], queueLevel);
      if (levels.has(path)) {
        const row = treeRow(levels, path);
        reconcile(this.rows("queue"), [{
          key: path, sig: row.sig,
          build: () => {
            const tr = this.treeRowElement(row, { linked: false });
            tr.removeAttribute("class");
            return tr;
          },
        }]);
      }
    }
    // The users and groups on screen, each from its own scope, in the server's order; one
    // that no longer uses the queue leaves (a reload brings newcomers).
    for (const kind of ["users", "groups"]) {
      const single = kind === "users" ? "user" : "group";
      const tbody = this.rows(kind);
      const using = [];
      for (const tr of tbody.rows) {
        const name = tr.dataset.key;
        const scope = `${single}:${name}`;
        if (!state.has(scope)) {
          using.push({ key: name, sig: tr.dataset.sig, build: () => tr });
          continue;
        }
        const obj = state.get(scope);
        const row = obj && derive(obj, `using ${path}`, () => {
          const levels = levelsOf(walk(obj.queues), entityLevel);
          const level = levels.get(path);
          return level && (Object.keys(level.usage).length || level.running)
            ? treeRow(levels, path) : null;
        });
        if (!row) continue;
        using.push({
          key: name, sig: row.sig,
          build: () => h("tr", { "data-key": name, "data-sig": row.sig },
            h("th", { scope: "row" }, this.link(single, name)),
            barsCell(row.bars),
            h("td", { class: "apps" }, barElement(row.apps))),
        });
      }
      reconcile(tbody, using);
      toggle(this.root, `[data-empty-${kind}]`, using.length === 0);
      this.moreCount(kind, using.length);
    }
  }

  // "The first 5 of the 7 users" follows the rows: rows only leave here (newcomers wait for a
  // reload), and each that leaves no longer uses the queue, so the total drops with it.
  moreCount(kind, shown) {
    const more = this.root.querySelector(`[data-more-${kind}]`);
    if (!more) return;
    const count = Number(more.dataset.count) - (Number(more.dataset.shown) - shown);
    for (const field of more.querySelectorAll("[data-more-shown]")) {
      field.textContent = String(shown);
    }
    for (const field of more.querySelectorAll("[data-more-count]")) {
      field.textContent = String(count);
    }
    more.hidden = count <= shown;
  }

  activity(events) {
    this.lastEvents = events;
    if (!events || this.paused) return;
    const { type = "", user = "", group = "", queue = "", reason = "", within = "" } =
      this.root.dataset;
    const since = within ? Date.now() / 1000 - Number(within) * 60 : null;
    const chosen = [...events.values()]
      .filter((event) => (!type || event.type === type) && (!user || event.user === user)
        && (!group || event.group === group)
        && (!queue || event.queuePath === queue || event.queuePath.startsWith(`${queue}.`))
        && (!reason || event.reason === reason) && (since === null || event.time >= since))
      .sort((a, b) => b.seq - a.seq);
    const fresh = eventRows(chosen).map((row) => ({
      key: String(row.oldest), sig: row.sig, build: () => this.eventElement(row),
    }));
    // The socket knows only the newest events; rows the server drew from before them stay,
    // below the fresh ones, up to a page.
    let known = Infinity;
    for (const seq of events.keys()) known = Math.min(known, seq);
    const tbody = this.rows("events");
    const older = [...tbody.rows].filter((tr) => Number(tr.dataset.key) < known)
      .map((tr) => ({ key: tr.dataset.key, sig: tr.dataset.sig, build: () => tr }));
    const shown = [...fresh, ...older].slice(0, EVENT_ROWS);
    reconcile(tbody, shown);
    toggle(this.root, "[data-empty]", shown.length === 0);
  }

  eventElement(row) {
    const at = new Date(row.ended * 1000);
    const many = row.count > 1;
    return h("tr", { class: `ev ev-${row.type}`, "data-key": row.oldest, "data-sig": row.sig },
      h("td", null, h("time", { datetime: at.toISOString() }, stamp(at))),
      h("td", null, h("span", { class: "ev-kind" }, row.type),
        many ? [" ", h("span", { class: "ev-count" }, `×${row.count}`)] : null,
        row.reason ? [" ", h("span", { class: "hint" }, row.reason)] : null),
      h("td", null, this.link("user", row.user),
        row.group
          ? [" ", h("span", { class: "hint" }, "as"), " ", this.link("group", row.group)]
          : null),
      h("td", null, this.link("queue", row.queue)),
      h("td", null, `${many ? "in all " : ""}${formatResource(row.resource)} `,
        h("span", { class: "hint" }, "· ", h("code", null, row.application)),
        row.message ? h("p", { class: "ev-message" }, row.message) : null));
  }
}

// rows.event_rows: an application's events of one kind, user, group, queue and reason within
// GROUP_SECONDS of each other make one row; at most EVENT_ROWS rows.
function eventRows(events) {
  const rows = [];
  const joining = new Map();
  for (const event of events) {
    const key = JSON.stringify([event.type, event.applicationId, event.user, event.group,
      event.queuePath, event.reason ?? ""]);
    const row = joining.get(key);
    if (row && row.started - event.time <= GROUP_SECONDS) {
      row.count += 1;
      row.oldest = event.seq;
      row.started = event.time;
      for (const [kind, value] of Object.entries(event.resource)) {
        row.resource[kind] = amount(row.resource, kind) + value;
      }
      row.sig = `${row.count}:${row.newest}`;
      continue;
    }
    if (rows.length === EVENT_ROWS) break;
    const fresh = {
      type: event.type, application: event.applicationId, user: event.user,
      group: event.group, queue: event.queuePath, reason: event.reason ?? "",
      message: event.message ?? "", oldest: event.seq, newest: event.seq, started: event.time,
      ended: event.time, resource: { ...event.resource }, count: 1, sig: `1:${event.seq}`,
    };
    rows.push(fresh);
    joining.set(key, fresh);
  }
  return rows;
}

// -- scope state: what a snapshot sets and an update changes ------------------------------------

function fromSnapshot(scope, data) {
  if (scope === "users") return new Map(data.map((obj) => [obj.userName, obj]));
  if (scope === "groups") return new Map(data.map((obj) => [obj.groupName, obj]));
  if (scope === "queues") {
    return new Map(walk(data).map(({ children, ...node }) => [node.queuename, node]));
  }
  if (scope.startsWith("queue:")) return new Map(data.map((node) => [node.queuename, node]));
  if (scope === "events") return new Map(data.map((event) => [event.seq, event]));
  return data; // user:<name> or group:<name>: one object, or null when unknown
}

function withUpdate(scope, current, changed, removed) {
  if (scope === "users" || scope === "groups") {
    const key = scope === "users" ? "userName" : "groupName";
    for (const obj of changed) current.set(obj[key], obj);
    for (const name of removed) current.delete(name);
    return current;
  }
  if (scope === "queues" || scope.startsWith("queue:")) {
    for (const node of changed) current.set(node.queuename, node);
    return current;
  }
  if (scope === "events") {
    for (const event of changed) current.set(event.seq, event);
    return current;
  }
  if (removed.length) return null;
  return changed.length ? changed[changed.length - 1] : current;
}

// -- the connection -----------------------------------------------------------------------------

class Live {
  constructor(page, badge) {
    this.page = page;
    this.badge = badge;
    // The time of the last snapshot or update, shown beside the badge.
    this.updated = h("span", { class: "live-updated hint", "data-live-updated": true });
    badge.after(this.updated);
    this.state = new Map();
    this.seq = new Map();
    this.waiting = new Set();
    // scope -> the timer that asks again for its snapshot
    this.snapshotTimers = new Map();
    this.attempt = 0;
    this.socket = null;
    this.staleSince = null;
    this.lastUpdate = null;
    this.timers = {};
    this.drawing = false;
  }

  // Scopes a page adds or drops while open (a tree page opening or closing a queue).
  rescope({ add = [], remove = [] }) {
    const scopes = this.page.scopes;
    for (const scope of remove) {
      if (!scopes.includes(scope)) continue;
      scopes.splice(scopes.indexOf(scope), 1);
      this.arrived(scope);
      this.state.delete(scope);
      this.seq.delete(scope);
      this.send({ type: "unsubscribe", scope });
    }
    for (const scope of add) {
      if (scopes.includes(scope) || scopes.length >= MAX_SCOPES) continue;
      scopes.push(scope);
      // Not open yet: the opening subscribes to every scope of the page.
      if (this.socket?.readyState !== WebSocket.OPEN) continue;
      this.expect(scope);
      this.send({ type: "subscribe", scope });
    }
  }

  start() {
    this.show("connecting", "connecting…", "Opening the live connection.");
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // A team dashboard has no login: its link token opens the socket (read-only, one scope).
    const token = this.page.root.dataset.token;
    const query = token ? `?token=${encodeURIComponent(token)}` : "";
    const url = `${scheme}://${location.host}/ws/usage/${encodeURIComponent(this.page.partition)}/${query}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    clearTimeout(this.timers.open);
    this.timers.open = setTimeout(() => this.lost(socket, 0), OPEN_WAIT_MS);
    socket.addEventListener("open", () => {
      clearTimeout(this.timers.open);
      this.listen();
      this.waiting = new Set();
      for (const scope of this.page.scopes) {
        this.expect(scope);
        this.send({ type: "subscribe", scope });
      }
    });
    socket.addEventListener("message", (message) => {
      if (socket === this.socket) this.receive(message.data);
    });
    socket.addEventListener("close", (event) => this.lost(socket, event.code));
  }

  // Wait for scope's snapshot: updates wait for it, and it is asked for again when late (or,
  // after a refusal, once the server allows it: notBefore, in ms).
  expect(scope, attempt = 0, notBefore = null) {
    this.waiting.add(scope);
    clearTimeout(this.snapshotTimers.get(scope));
    const wait = notBefore === null
      ? Math.min(SNAPSHOT_WAIT_MAX_MS, SNAPSHOT_WAIT_MS * 2 ** attempt) * (0.75 + Math.random() / 2)
      : notBefore * (1 + Math.random() / 2);
    const socket = this.socket;
    this.snapshotTimers.set(scope, setTimeout(() => {
      if (socket !== this.socket || !this.waiting.has(scope)) return;
      this.send({ type: "resync", scope });
      this.expect(scope, attempt + 1);
    }, wait));
  }

  arrived(scope) {
    this.waiting.delete(scope);
    clearTimeout(this.snapshotTimers.get(scope));
    this.snapshotTimers.delete(scope);
  }

  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  // Anything heard proves the server alive; silence past SILENT_MS drops the socket.
  listen() {
    clearTimeout(this.timers.silent);
    const socket = this.socket;
    this.timers.silent = setTimeout(() => this.lost(socket, 0), SILENT_MS);
  }

  receive(text) {
    this.listen();
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const { type, scope } = message;
    if (type === "snapshot") {
      // Asked for, or sent unasked after a configuration change: it replaces what we have.
      const own = ownView(this.page.root.dataset.view);
      const data = own ? own.snapshot(scope, message.data) : fromSnapshot(scope, message.data);
      this.state.set(scope, data);
      this.seq.set(scope, message.seq);
      this.arrived(scope);
      this.touched();
      if (this.waiting.size === 0) this.live();
      this.draw();
    } else if (type === "update") {
      if (this.waiting.has(scope) || !this.seq.has(scope)) return; // a snapshot is on its way
      const last = this.seq.get(scope);
      if (message.seq <= last) return; // already in what we have
      if (message.seq !== last + 1) {
        // Something was lost: ask for the whole state again.
        this.expect(scope);
        this.send({ type: "resync", scope });
        return;
      }
      this.seq.set(scope, message.seq);
      const { changed, removed } = message;
      const own = ownView(this.page.root.dataset.view);
      const current = this.state.get(scope);
      this.state.set(scope, own
        ? own.update(scope, current, message) : withUpdate(scope, current, changed, removed));
      this.touched();
      this.draw();
    } else if (type === "stale") {
      // The socket is open but the server's figures stopped (its engine owner or Redis is
      // gone); it sends fresh snapshots when they are back, and those make the page live again.
      for (const scope of this.page.scopes) this.expect(scope);
      this.staleSince ??= new Date();
      this.stale(message.reason || "the server's figures stopped");
    } else if (type === "error") {
      console.warn("live usage:", message.message);
      // Asked too often (retryAfter, in seconds): ask again when the server allows it.
      if (message.retryAfter && this.waiting.has(scope)) {
        this.expect(scope, 1, message.retryAfter * 1000);
      }
    }
  }

  touched() {
    this.lastUpdate = new Date();
    this.updated.textContent = `updated ${clock(this.lastUpdate)}`;
    this.updated.title = `The figures on this page are as of ${stamp(this.lastUpdate)}.`;
  }

  draw() {
    // Several messages in one frame make one redraw.
    if (this.drawing) return;
    this.drawing = true;
    requestAnimationFrame(() => {
      this.drawing = false;
      this.page.render(this.state);
    });
  }

  live() {
    this.attempt = 0;
    this.staleSince = null;
    this.show("live", "live", "Connected: figures update as usage changes; the server says it "
      + "is there every 2 s.");
  }

  lost(socket, code) {
    if (socket !== this.socket || socket === null) return; // an old socket closing late
    this.socket = null;
    for (const timer of this.snapshotTimers.values()) clearTimeout(timer);
    this.snapshotTimers.clear();
    clearTimeout(this.timers.silent);
    clearTimeout(this.timers.open);
    socket.close();
    this.staleSince ??= new Date();
    const reason = GIVE_UP.get(code);
    if (reason) {
      this.stale(reason, { retrying: false });
      return;
    }
    this.stale(code ? "the connection closed" : "the server stopped answering");
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt);
    this.attempt += 1;
    // Jitter: a restarted server is not met by every page at the same instant.
    const wait = delay / 2 + Math.random() * (delay / 2);
    clearTimeout(this.timers.retry);
    this.timers.retry = setTimeout(() => this.connect(), wait);
  }

  stale(why, { retrying = true } = {}) {
    const since = clock(this.staleSince);
    const asOf = this.lastUpdate ? ` The figures are as of ${stamp(this.lastUpdate)}.` : "";
    this.show("stale", `stale since ${since}`,
      `Not live since ${since}: ${why}${retrying ? "; reconnecting" : ""}.${asOf}`);
  }

  show(state, text, title) {
    this.badge.dataset.state = state;
    this.badge.textContent = text;
    this.badge.title = title;
  }
}

// The server writes times in its own zone; the reader's is the one that makes sense to them.
// A time the server wrote with its date keeps a date.
function localTimes(root) {
  for (const time of root.querySelectorAll("time[datetime]")) {
    const at = new Date(time.dateTime);
    time.textContent = /\d{4}-\d\d-\d\d/.test(time.textContent) ? stamp(at) : clock(at);
  }
}

// Most pages have one live part; the overview has one per partition, each with its own socket.
for (const root of document.querySelectorAll("[data-live]")) {
  const badge = root.querySelector("[data-live-badge]");
  localTimes(root);
  // A page with nothing to follow (an older page of the activity feed, an empty list) stays as
  // the server drew it.
  if (badge && root.dataset.scopes.trim() && "WebSocket" in window) {
    const live = new Live(new Page(root), badge);
    // A tree page opening or closing a queue (usage-tree.js).
    root.addEventListener("quotaweb:scopes", (event) => live.rescope(event.detail));
    live.start();
  }
}
