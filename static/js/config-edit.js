// Edit forms of a queue page: users and groups as token inputs, and a confirmation before a
// destructive staging. Without this script the forms still work: the inputs take names
// separated by commas and the server reads them the same way.

const SEPARATORS = /[\s,]+/;

function tokenInput(input) {
  const box = document.createElement("div");
  box.className = "tokens";
  const list = document.createElement("ul");
  list.className = "token-list";
  list.setAttribute("aria-label", `${input.labels[0]?.textContent ?? "names"} entered`);
  const entry = document.createElement("input");
  entry.type = "text";
  entry.className = "token-entry";
  entry.setAttribute("aria-label", `Add to ${input.labels[0]?.textContent ?? "names"}`);
  entry.placeholder = "type a name, then Enter";
  input.type = "hidden";
  input.after(box);
  box.append(list, entry);

  const names = () => input.value.split(SEPARATORS).filter(Boolean);
  const store = (values) => { input.value = values.join(", "); render(); };

  function render() {
    list.replaceChildren(...names().map((name, index) => {
      const item = document.createElement("li");
      item.className = name === "*" ? "token wildcard" : "token";
      item.dataset.token = name;
      item.textContent = name;
      if (name === "*") item.title = "wildcard: everyone not named before it; must come last";
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "token-remove";
      remove.textContent = "×";
      remove.setAttribute("aria-label", `Remove ${name}`);
      remove.addEventListener("click", () => {
        const values = names();
        values.splice(index, 1);
        store(values);
        entry.focus();
      });
      item.append(remove);
      return item;
    }));
  }

  function commit() {
    const added = entry.value.split(SEPARATORS).filter(Boolean);
    if (added.length) store([...names(), ...added]);
    entry.value = "";
  }

  entry.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      commit();
    } else if (event.key === "Backspace" && !entry.value && names().length) {
      store(names().slice(0, -1));
    }
  });
  entry.addEventListener("blur", commit);
  // A name typed but not yet committed still counts when the form is sent.
  input.form.addEventListener("submit", commit);
  render();
}

document.querySelectorAll("input[data-tokens]").forEach(tokenInput);

document.querySelectorAll("form[data-confirm]").forEach((form) => {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});

// An editor that came back with errors is open: bring its first error into view.
document.querySelector("details.editor[open] .field-error, [data-problems]")
  ?.scrollIntoView({ block: "center" });
