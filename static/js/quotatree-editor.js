// The quota tree editor (/trees/new/, /trees/<tree>/edit/): rows and resource columns are added
// in the page, each row's parent choices follow the names typed, and labels follow the names.
//
// Without this script the page works the same: "Add a node" and "Add a resource" are submit
// buttons the server answers with one more row or column, and the parent choices are those of
// the names as last submitted. The inputs' names are those of quotaweb/quotatrees/forms.py
// (node-<row>-name, node-<row>-parent, node-<row>-hard, node-<row>-quota-<column>,
// node-<row>-remove, resource-<column>): keep them in step.

const ROOT_CHOICE = "none: this is the root";
const NEW_QUOTA = "0";

const form = document.querySelector("[data-tree-editor]");

function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined));
  return element;
}

function number(name, at) {
  return Number(name.split("-")[at]);
}

function rows() {
  return [...form.querySelectorAll("[data-node-rows] > tr")];
}

function columns() {
  return [...form.querySelectorAll("[data-resource-input]")];
}

function nodeName(row) {
  return row.querySelector("[data-node-name]").value.trim();
}

function removed(row) {
  return row.querySelector("[data-node-remove]").checked;
}

function rowLabel(row) {
  return nodeName(row) || `row ${number(row.dataset.row, 0) + 1}`;
}

function names() {
  return rows().filter((row) => !removed(row)).map(nodeName).filter(Boolean);
}

function setLabel(input, text) {
  const label = form.querySelector(`label[for="${input.id}"]`);
  if (!label) return;
  const hidden = label.querySelector(".visually-hidden");
  (hidden ?? label).textContent = text;
}

// Labels say which node (and which resource) an input is for.
function relabel(row) {
  const named = rowLabel(row);
  setLabel(row.querySelector("[data-node-parent]"), `Parent of ${named}`);
  setLabel(row.querySelector("[data-node-hard]"), `${named} is hard`);
  setLabel(row.querySelector("[data-node-remove]"), `Remove ${named}`);
  const resourceOf = new Map(columns().map((input, position) => [
    number(input.name, 1), input.value.trim() || `resource ${position + 1}`,
  ]));
  for (const input of row.querySelectorAll("[data-node-quota]")) {
    setLabel(input, `Quota of ${resourceOf.get(number(input.name, 3))} for ${named}`);
  }
}

// Each row's parent select offers the root choice and every other node; a parent no row has
// stays shown as such, so nothing typed is lost.
function syncParents() {
  const all = names();
  for (const row of rows()) {
    const select = row.querySelector("[data-node-parent]");
    const current = select.value;
    const own = nodeName(row);
    const choices = [["", ROOT_CHOICE], ...all.filter((name) => name !== own).map((n) => [n, n])];
    if (current && !all.includes(current)) choices.push([current, `${current} (no such node)`]);
    const same = choices.length === select.options.length
      && choices.every(([value, text], i) => select.options[i].value === value
        && select.options[i].text === text);
    if (same) continue;
    select.replaceChildren(...choices.map(([value, text]) => h("option", { value }, text)));
    select.value = current;
  }
}

function renamed(input) {
  const was = input.dataset.was ?? "";
  const now = input.value.trim();
  input.dataset.was = now;
  if (was && was !== now) {
    // Children keep following a renamed node.
    for (const select of form.querySelectorAll("[data-node-parent]")) {
      if (select.value === was && now) {
        if (![...select.options].some((option) => option.value === now)) {
          select.append(h("option", { value: now }, now));
        }
        select.value = now;
      }
    }
  }
  relabel(input.closest("tr"));
  syncParents();
}

function checkCell(name, label, text, attrs) {
  const id = `id_${name}`;
  return h("td", null,
    h("input", { type: "checkbox", name, id, ...attrs }),
    h("label", { class: "tq-check", for: id },
      h("span", { class: "visually-hidden" }, label), h("span", { "aria-hidden": "true" }, text)));
}

function quotaCell(row, column) {
  const name = `node-${row}-quota-${column}`;
  return h("td", { class: "num" },
    h("label", { class: "visually-hidden", for: `id_${name}` }, ""),
    h("input", {
      type: "text", inputmode: "numeric", name, id: `id_${name}`, value: NEW_QUOTA,
      autocomplete: "off", size: 8, "data-node-quota": true,
    }));
}

function addRow() {
  const index = Math.max(-1, ...rows().map((row) => Number(row.dataset.row))) + 1;
  const label = `row ${index + 1}`;
  const nameId = `id_node-${index}-name`;
  const row = h("tr", { "data-row": index },
    h("td", null,
      h("label", { class: "visually-hidden", for: nameId }, `Name of node ${index + 1}`),
      h("input", {
        type: "text", name: `node-${index}-name`, id: nameId, autocomplete: "off",
        spellcheck: "false", "data-node-name": true,
      })),
    h("td", null,
      h("label", { class: "visually-hidden", for: `id_node-${index}-parent` }, `Parent of ${label}`),
      h("select", { name: `node-${index}-parent`, id: `id_node-${index}-parent`, "data-node-parent": true })),
    checkCell(`node-${index}-hard`, `${label} is hard`, "hard", { "data-node-hard": true }),
    columns().map((input) => quotaCell(index, number(input.name, 1))),
    checkCell(`node-${index}-remove`, `Remove ${label}`, "remove", { "data-node-remove": true }));
  form.querySelector("[data-node-rows]").append(row);
  relabel(row);
  syncParents();
  row.querySelector("[data-node-name]").focus();
}

function addResource() {
  const list = form.querySelector("[data-resource-list]");
  const column = Math.max(-1, ...columns().map((input) => number(input.name, 1))) + 1;
  const position = columns().length;
  const name = `resource-${column}`;
  list.append(h("div", { class: "field", "data-column": name },
    h("label", { for: `id_${name}` }, `Resource ${position + 1}`),
    h("input", {
      type: "text", name, id: `id_${name}`, autocomplete: "off", spellcheck: "false",
      "data-resource-input": true,
    })));
  const head = form.querySelector("[data-node-table] thead tr");
  head.insertBefore(h("th", { scope: "col", class: "num", "data-column-head": name }, "(unnamed)"),
    head.lastElementChild);
  for (const row of rows()) {
    row.insertBefore(quotaCell(Number(row.dataset.row), column), row.lastElementChild);
    relabel(row);
  }
  form.querySelector(`#id_${CSS.escape(name)}`).focus();
}

function resourceRenamed(input) {
  const head = form.querySelector(`[data-column-head="${CSS.escape(input.name)}"]`);
  if (head) head.textContent = input.value.trim() || "(unnamed)";
  for (const row of rows()) relabel(row);
}

if (form) {
  for (const input of form.querySelectorAll("[data-node-name]")) {
    input.dataset.was = input.value.trim();
  }
  form.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.matches("[data-add-row]")) {
      event.preventDefault();
      addRow();
    } else if (button.matches("[data-add-resource]")) {
      event.preventDefault();
      addResource();
    }
  });
  form.addEventListener("input", (event) => {
    const input = event.target;
    if (input.matches("[data-node-name]")) renamed(input);
    else if (input.matches("[data-resource-input]")) resourceRenamed(input);
  });
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (input.matches("[data-node-remove]")) {
      input.closest("tr").classList.toggle("tq-removing", input.checked);
      syncParents();
    }
  });
  syncParents();
}
