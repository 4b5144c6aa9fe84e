// The preview of a click, drawn while the pointer (or the keyboard focus) is on an offered cell,
// from the server's hint for it (games/base.py, Steps.hints): the path a stack would take, the
// stacks as the move would leave them (small ghosts, a cross where a cell would be emptied), the
// stack the click would put down, or cells to mark.

import { cellShape, round } from "./hexlayout.js";
import { stackSvg } from "./stacks.js";

/** SVG of `hint`, the hint of the offered cell `id`; `at(id)` gives a cell's centre. */
export function hintSvg(hint, id, at, kind, size) {
  const parts = [];
  const path = hint.path || hint.waypoints;
  if (Array.isArray(path) && path.length > 1) {
    const d = path
      .map((c, i) => {
        const p = at(c);
        return p ? `${i ? "L" : "M"}${round(p[0])} ${round(p[1])}` : "";
      })
      .join("");
    parts.push(`<path class="preview-path" d="${d}"/>`);
  }
  const here = at(id);
  if (Array.isArray(hint.stack) && hint.stack.length && here) {
    // the stack the click puts down (Valaturna's opening), drawn where it would stand
    parts.push(`<g class="ghost">${stackSvg(round(here[0]), round(here[1]), hint.stack, size * 0.6)}</g>`);
  }
  if (hint.changes) {
    for (const [c, stack] of Object.entries(hint.changes)) {
      const p = at(c);
      if (!p || !Array.isArray(stack)) continue;
      const [x, y] = p.map(round);
      const k = size * 0.22;
      parts.push(
        stack.length
          ? `<g class="ghost">${stackSvg(x, y, stack, size * 0.45)}</g>`
          : `<path class="vanish" d="M${x - k} ${y - k}L${x + k} ${y + k}M${x - k} ${y + k}L${x + k} ${y - k}"/>`,
      );
    }
  } else {
    for (const c of Array.isArray(hint.cells) ? hint.cells : []) {
      const p = at(c);
      if (p) parts.push(cellShape(kind, p[0], p[1], size * (kind === "points" ? 0.82 : 0.86), "preview"));
    }
  }
  return parts.join("");
}
