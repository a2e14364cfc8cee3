// A form marked data-busy says what it is doing once sent (an upload of a large configuration or
// a rollback can take seconds), and cannot be sent twice meanwhile.
document.querySelectorAll("form[data-busy]").forEach((form) => {
  form.addEventListener("submit", (event) => {
    if (event.defaultPrevented) return;
    const status = document.createElement("p");
    status.className = "notice";
    status.setAttribute("role", "status");
    status.textContent = form.dataset.busy;
    form.append(status);
    // Disabled after this tick, so the clicked button's name and value are still sent.
    setTimeout(() => form.querySelectorAll("button").forEach((button) => {
      button.disabled = true;
    }));
  });
});
