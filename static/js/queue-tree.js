// Live filtering of the queue tree by name, on top of the server-side ?q= search (which works
// without scripts). Matching queues are highlighted, their ancestors opened, the rest hidden.
// One pass over the list items per keystroke (debounced): fine at 10,000 queues.

const DELAY_MS = 150;

function highlight(link, name, query) {
  const at = query ? name.indexOf(query) : -1;
  if (at < 0) {
    link.textContent = name;
    return;
  }
  const mark = document.createElement("mark");
  mark.textContent = name.slice(at, at + query.length);
  link.replaceChildren(name.slice(0, at), mark, name.slice(at + query.length));
}

function filter(items, query, status) {
  let matches = 0;
  const keep = new Set();
  for (const item of items) {
    const name = item.dataset.name;
    const hit = query !== "" && name.includes(query);
    item.classList.toggle("match", hit);
    highlight(item.querySelector(".cq-name"), name, query);
    if (hit) {
      matches += 1;
      // Keep the queue and every ancestor list item visible and open.
      for (let node = item; node && node.matches("li.cq"); node = node.parentElement.closest("li.cq")) {
        if (keep.has(node)) break;
        keep.add(node);
        const details = node.querySelector(":scope > details");
        if (details && node !== item) details.open = true;
      }
    }
  }
  for (const item of items) {
    item.hidden = query !== "" && !keep.has(item);
  }
  status.textContent = query === "" ? "" : `${matches} queue${matches === 1 ? "" : "s"} match “${query}”.`;
}

function setUp(form) {
  const input = form.querySelector("input[type=search]");
  const status = form.querySelector("[data-search-status]");
  const items = Array.from(document.querySelectorAll("li.cq"));
  let timer = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => filter(items, input.value.trim().toLowerCase(), status), DELAY_MS);
  });
}

const form = document.querySelector("[data-tree-search]");
if (form) setUp(form);
