// A table wider than the screen scrolls sideways in its box (.table-scroll). A keyboard can
// scroll such a box only once it takes focus, so a box that overflows gets a tab stop and a
// name (its table's caption, else its section's heading); one that fits again loses them.
const BOXES = ".table-scroll";

function nameOf(box) {
  const caption = box.querySelector("caption")?.textContent.trim();
  if (caption) return caption;
  const section = box.closest("[aria-labelledby]");
  const heading = section && document.getElementById(section.getAttribute("aria-labelledby"));
  return heading?.textContent.trim() || "Table";
}

function update(box) {
  const overflows = box.scrollWidth > box.clientWidth + 1;
  if (overflows && !box.hasAttribute("tabindex")) {
    box.dataset.scrollStop = "";
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", `${nameOf(box)}, scrolls sideways`);
  } else if (!overflows && "scrollStop" in box.dataset) {
    delete box.dataset.scrollStop;
    ["tabindex", "role", "aria-label"].forEach((name) => box.removeAttribute(name));
  }
}

const resized = new ResizeObserver((entries) => {
  for (const entry of entries) update(entry.target.closest(BOXES));
});
for (const box of document.querySelectorAll(BOXES)) {
  update(box);
  // The box changes size with the window, its table with the rows live updates bring.
  resized.observe(box);
  if (box.firstElementChild) resized.observe(box.firstElementChild);
}
