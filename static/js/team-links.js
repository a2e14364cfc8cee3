// The team links page: the name field suggests the names the chosen partition knows for the
// chosen kind, and each link has a copy button that says, also to screen readers, what it did.

const COPIED = "Link copied to the clipboard.";
const COPY_FAILED = "Could not copy: the link is selected, copy it with Ctrl+C.";

const form = document.querySelector("form[data-form=team-link]");
if (form) {
  const partition = form.elements.partition;
  const kind = form.elements.kind;
  const name = form.elements.name;
  const unknown = form.querySelector("[data-unknown-name]");
  const listId = () => `team-names-${partition.value}-${kind.value}`;
  const known = () => [...(document.getElementById(listId())?.options ?? [])].map((o) => o.value);
  const check = () => {
    unknown.hidden = !name.value || known().includes(name.value);
  };
  const follow = () => {
    name.setAttribute("list", listId());
    check();
  };
  partition.addEventListener("change", follow);
  kind.addEventListener("change", follow);
  name.addEventListener("input", check);
  follow();
}

function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

// navigator.clipboard exists only on secure pages (HTTPS or localhost); elsewhere the old
// selection command still works in every browser quotaweb supports.
async function copy(element) {
  const text = element.textContent.trim();
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused: fall through to the selection.
    }
  }
  selectText(element);
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
}

const status = document.querySelector("[data-copy-status]");
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const ok = await copy(document.getElementById(button.dataset.copy));
    // Emptied first so the same message twice is still announced.
    status.textContent = "";
    status.textContent = ok ? COPIED : COPY_FAILED;
    button.textContent = ok ? "Copied" : "Copy";
  });
}
