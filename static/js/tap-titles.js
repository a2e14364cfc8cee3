// Raw figures sit in title attributes (a bar's exact values, a chart point's reading), which
// only a mouse can read, by hovering. A tap on such an element shows the same text in a bubble
// under it; a tap elsewhere, scrolling or Escape hides it. Controls keep their own tap.
const CONTROLS = "a, button, input, select, textarea, summary, label";

let bubble = null;
let touched = false;

// The title of the tapped element or of the nearest element around it that has one: an
// attribute, or an SVG element's own <title>.
function titleAt(target) {
  for (let node = target; node && node !== document.body; node = node.parentElement) {
    if (node.matches(CONTROLS)) return null;
    const own = node.getAttribute("title");
    if (own) return { node, text: own };
    const svgTitle = node instanceof SVGElement ? node.querySelector(":scope > title") : null;
    if (svgTitle && svgTitle.textContent.trim()) return { node, text: svgTitle.textContent.trim() };
  }
  return null;
}

function hide() {
  bubble?.remove();
  bubble = null;
}

function show({ node, text }) {
  bubble = document.createElement("div");
  bubble.className = "tap-title";
  bubble.setAttribute("role", "status");
  bubble.dataset.tapTitle = "";
  bubble.textContent = text;
  document.body.append(bubble);
  const box = node.getBoundingClientRect();
  const left = Math.min(box.left, document.documentElement.clientWidth - bubble.offsetWidth - 8);
  bubble.style.left = `${window.scrollX + Math.max(8, left)}px`;
  bubble.style.top = `${window.scrollY + box.bottom + 4}px`;
}

document.addEventListener("pointerdown", (event) => {
  touched = event.pointerType !== "mouse";
}, true);

document.addEventListener("click", (event) => {
  if (!touched) return;
  const found = titleAt(event.target);
  const same = bubble && found && bubble.textContent === found.text;
  hide();
  if (found && !same) show(found);
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") hide();
});
window.addEventListener("scroll", hide, { passive: true });
