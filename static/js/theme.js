// The visitor's theme: the system's unless they chose light or dark with the header's toggle.
// A classic script in <head>, so the choice applies before the page is drawn (no flash).
(() => {
  const KEY = "quotaweb-theme";
  const NEXT = { system: "light", light: "dark", dark: "system" };
  const root = document.documentElement;
  const saved = localStorage.getItem(KEY);
  if (saved === "light" || saved === "dark") root.dataset.theme = saved;

  document.addEventListener("DOMContentLoaded", () => {
    const button = document.querySelector("[data-theme-toggle]");
    if (!button) return;
    const show = () => {
      const theme = root.dataset.theme || "system";
      button.textContent = `Theme: ${theme}`;
      button.setAttribute("aria-label", `Theme: ${theme}. Change the theme`);
    };
    button.addEventListener("click", () => {
      const next = NEXT[root.dataset.theme || "system"];
      if (next === "system") {
        delete root.dataset.theme;
        localStorage.removeItem(KEY);
      } else {
        root.dataset.theme = next;
        localStorage.setItem(KEY, next);
      }
      show();
    });
    show();
    button.hidden = false;
  });
})();
