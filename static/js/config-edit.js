// Edit forms of a queue page: users and groups as token inputs, the whole hierarchy checked by
// the server while the admin types, and a confirmation before a destructive staging. Without
// this script the forms still work: the inputs take names separated by commas, and the same
// check runs when the form is sent.

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
  const store = (values) => {
    input.value = values.join(", ");
    render();
    input.dispatchEvent(new Event("change", { bubbles: true }));
  };

  function render() {
    list.replaceChildren(...names().map((name, index) => {
      const item = document.createElement("li");
      item.className = name === "*" ? "token wildcard" : "token";
      item.dataset.token = name;
      // The wildcard reads as the pages show it (trackers/names.py), not as a group named "*".
      item.textContent = name === "*" ? "everyone (*)" : name;
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

// -- checks while typing ------------------------------------------------------------------------

const CHECK_DELAY_MS = 600;

function paragraph(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.dataset.live = "";
  p.textContent = text;
  return p;
}

// What a screen reader reads with a field: its hint and the errors it has now, which the
// server's page named by id and which a check while typing replaces.
// A field of resource rows has two inputs a row, all of them described alike.
function describe(field, errorIds) {
  const inputs = field.querySelector("[data-resource-rows]")
    ? [...field.querySelectorAll("[data-resource-rows] input")]
    : [field.querySelector("input:not([type=hidden]), textarea, select")].filter(Boolean);
  const hint = field.querySelector(".hint[id$=_helptext]");
  const ids = [...(hint ? [hint.id] : []), ...errorIds];
  for (const input of inputs) {
    if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
    else input.removeAttribute("aria-describedby");
    if (errorIds.length) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

function showVerdict(form, verdict) {
  form.querySelectorAll(".field-error, .form-error, [data-live]").forEach((node) => node.remove());
  form.querySelectorAll(".has-error").forEach((node) => node.classList.remove("has-error"));
  form.querySelectorAll(".field[data-field]").forEach((field) => describe(field, []));
  for (const [name, messages] of Object.entries(verdict.fields)) {
    const field = form.querySelector(`.field[data-field="${name}"]`);
    if (!field) continue;
    field.classList.add("has-error");
    const help = field.querySelector(".hint");
    const ids = messages.map((message, at) => {
      const error = paragraph("field-error", message);
      error.dataset.errorFor = name;
      error.id = `${field.querySelector("[id]")?.id || name}_live_error_${at}`;
      field.insertBefore(error, help);
      return error.id;
    });
    describe(field, ids);
  }
  const general = [...verdict.form, ...verdict.problems.map(
    (problem) => (problem.path ? `${problem.path}: ${problem.text}` : problem.text),
  )];
  const status = paragraph(verdict.ok ? "hint check-ok" : "form-error", verdict.ok
    ? "Checked against the whole hierarchy: no problems."
    : general.join(" · ") || "The fields marked above have problems: stage anyway and fix them in any order, the draft applies once none is left.");
  status.setAttribute("role", "status");
  status.dataset.check = verdict.ok ? "ok" : "problems";
  form.querySelector("button[name=action]").before(status);
}

function liveCheck(form) {
  const button = form.querySelector("button[name=action]");
  let timer = null;
  let sent = 0;
  const check = async () => {
    const body = new FormData(form);
    body.set("action", button.value);
    body.set("check", "1");
    const mine = ++sent;
    try {
      const response = await fetch(window.location.pathname, {
        method: "POST", body, headers: { Accept: "application/json" },
      });
      // Only the answer to the latest edit counts; an older one arriving late is dropped.
      if (mine === sent && response.ok) showVerdict(form, await response.json());
    } catch {
      // Offline or the server restarting: the check on submit still runs.
    }
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(check, CHECK_DELAY_MS);
  };
  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  form.addEventListener("submit", () => clearTimeout(timer));
}

document.querySelectorAll(
  "form[data-form=queue], form[data-form=child], form[data-form=new-limit], form[data-form^=limit-]",
).forEach((form) => {
  if (form.querySelector(".field")) liveCheck(form);
});
