// The configuration's queue tree. The server sends only what is open (quotaweb/config/
// tree_window.py): a closed queue's list holds a link to the page focused on it, whose
// data-children names the fragment of its children, loaded here when the queue is opened; a
// long level's "Show more" loads its next page in place. Without scripts both links work as
// they are.
//
// Typing in the search box filters the queues loaded so far by name, on top of the server-side
// ?q= search (the Search button), which looks through every queue. Matching queues are
// highlighted, their ancestors opened, the rest hidden.

const DELAY_MS = 150;

async function fetchItems(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
  // A lapsed session is sent to the login page: the plain link does the same, and better.
  if (!response.ok || response.redirected) throw new Error(`${response.status} from ${url}`);
  const template = document.createElement("template");
  template.innerHTML = await response.text();
  return [...template.content.children];
}

async function replace(item, link, url) {
  item.setAttribute("aria-busy", "true");
  try {
    item.replaceWith(...await fetchItems(url));
  } catch (error) {
    console.warn("queue tree:", error.message);
    location.assign(link.href);
  }
}

// A closed queue opened: its children replace the link that stood for them.
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.open) return;
  const link = details.querySelector(":scope > ul > li.cq-load > a[data-children]");
  if (link) replace(link.parentElement, link, link.dataset.children);
}, true);

document.addEventListener("click", (event) => {
  const link = event.target.closest?.("li.cq-more a[data-more]");
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  replace(link.closest("li"), link, link.dataset.more);
});

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

function filter(query, status) {
  // Read each time: opening queues loads more of them.
  const items = Array.from(document.querySelectorAll("li.cq"));
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
  status.textContent = query === ""
    ? ""
    : `${matches} of the queues shown match “${query}”; Search looks through every queue.`;
}

function setUp(form) {
  const input = form.querySelector("input[type=search]");
  const status = form.querySelector("[data-search-status]");
  let timer = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => filter(input.value.trim().toLowerCase(), status), DELAY_MS);
  });
}

const form = document.querySelector("[data-tree-search]");
if (form) setUp(form);
