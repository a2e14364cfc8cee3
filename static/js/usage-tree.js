// A usage tree opens and closes queues in place: a closed queue's arrow loads the rows of its
// children (usage:tree-fragment, quotaweb/usage/tree_window.py) and a level's "Show more" its
// next page, instead of following the link (which opens the overview on that queue and works
// without scripts). Each queue opened becomes one more live scope, queue:<path>, and closing it
// drops the scopes of everything under it: the socket (live.js) follows only what is shown.

function encodedPath(path) {
  // As Django's reverse() writes it, like live.js: / : @ and the sub-delimiters stay.
  return encodeURIComponent(path)
    .replace(/%(2F|3A|40|24|26|2B|2C|3B|3D)/g, (escape) => decodeURIComponent(escape));
}

function rescope(table, detail) {
  const root = table.closest("[data-live]");
  if (root) root.dispatchEvent(new CustomEvent("quotaweb:scopes", { detail }));
}

async function fetchRows(table, path, page) {
  const url = table.dataset.fragmentUrl.replace("__path__", encodedPath(path))
    + (page > 1 ? `?page=${page}` : "");
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
  // A lapsed session is sent to the login page: the plain link does the same, and better.
  if (!response.ok || response.redirected) throw new Error(`${response.status} from ${url}`);
  const template = document.createElement("template");
  template.innerHTML = await response.text();
  return [...template.content.children];
}

function mark(twisty, open) {
  twisty.setAttribute("aria-expanded", String(open));
  const [icon, label] = twisty.children;
  icon.textContent = open ? "▾" : "▸";
  const text = label.textContent.replace(/^(Open|Close)/, open ? "Close" : "Open");
  label.textContent = text;
  twisty.title = text;
}

// The rows under the queue at ``path``: its descendants and the pager rows of their levels.
function rowsUnder(row, path) {
  const out = [];
  for (let next = row.nextElementSibling; next; next = next.nextElementSibling) {
    const key = next.dataset.key ?? next.dataset.moreOf;
    if (key !== path && !key.startsWith(`${path}.`)) break;
    out.push(next);
  }
  return out;
}

async function toggle(table, twisty) {
  const path = twisty.dataset.expand;
  const row = twisty.closest("tr");
  if (twisty.getAttribute("aria-expanded") === "true") {
    const under = rowsUnder(row, path);
    const closed = under
      .filter((tr) => tr.querySelector('a[data-expand][aria-expanded="true"]'))
      .map((tr) => `queue:${tr.dataset.key}`);
    under.forEach((tr) => tr.remove());
    mark(twisty, false);
    rescope(table, { remove: [`queue:${path}`, ...closed] });
    return;
  }
  row.setAttribute("aria-busy", "true");
  try {
    row.after(...await fetchRows(table, path, 1));
  } catch (error) {
    console.warn("usage tree:", error.message);
    location.assign(twisty.href);
    return;
  } finally {
    row.removeAttribute("aria-busy");
  }
  mark(twisty, true);
  rescope(table, { add: [`queue:${path}`] });
}

async function more(table, link) {
  const row = link.closest("tr");
  try {
    row.replaceWith(...await fetchRows(table, link.dataset.more, Number(link.dataset.page)));
  } catch (error) {
    console.warn("usage tree:", error.message);
    location.assign(link.href);
  }
}

for (const table of document.querySelectorAll("table[data-tree]")) {
  table.addEventListener("click", (event) => {
    const twisty = event.target.closest("a[data-expand]");
    const link = event.target.closest("a[data-more]");
    if (!twisty && !link) return;
    // A new tab or window asked for: the link as it is.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (twisty) toggle(table, twisty);
    else more(table, link);
  });
}
