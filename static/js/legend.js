// The legend under a board: a small picture and a few words for every mark this game's view can
// show, drawn with the board's own classes so that it matches both themes.

import { hexCorners } from "./hexlayout.js";
import { hasBadge } from "./lastmove.js";
import { colourClass, colourName, stackSvg } from "./stacks.js";

const hex = (cls, r = 9) => `<polygon class="${cls}" points="${hexCorners(0, 0, r)}"/>`;
const item = (svg, text) =>
  `<li><svg class="board-svg" viewBox="-10 -10 20 20" aria-hidden="true" focusable="false">${svg}</svg><span>${text}</span></li>`;
const badge = (cls, text, y = 0) =>
  `<g class="delta ${cls}"><rect x="-7" y="${y - 4.2}" width="14" height="8.4" rx="4.2"/><text y="${y}" font-size="6.4" dy="0.35em">${text}</text></g>`;

/** Fill `el` with the legend of `view` (a games/view.py view). */
export function renderLegend(el, view) {
  const cells = view.cells;
  const kind = view.board.kind;
  const cellBg = kind === "points" ? `<circle class="point" r="1.6"/>` : hex(kind === "field" ? "cell tile tile-B" : "cell tone2", 9.6);
  const mark = (cls, r = 8) => (kind === "points" ? `<circle class="${cls}" r="${r}"/>` : hex(cls, r));
  const colours = [];
  for (const c of [...Object.values(view.colours || {}), ...cells.flatMap((c) => c.stack)]) {
    if (c && !colours.includes(colourClass(c))) colours.push(colourClass(c));
  }
  const marks = new Set(cells.map((c) => c.mark).filter(Boolean));
  const tall = cells.some((c) => c.stack.length > 1);
  const strong = cells.some((c) => c.strength != null);
  const out = colours.map((c) => item(stackSvg(0, 0, [c], 7.5), `${colourName(c)}${c === "B" ? " (light inner ring)" : c === "R" ? " (dot)" : " (dark rim)"}`));
  if (tall || strong) {
    const [a, b] = colours.length > 1 ? colours : [colours[0] || "B", "W"];
    out.push(item(stackSvg(0, 0, [b, b, a, a, a], 8.5, strong ? 3 : null), `stack: owner's colour, height${strong ? ", strength where it differs (blue badge)" : ""}; the band shows the pieces below, left = bottom`));
  }
  if (kind === "field") {
    for (const t of [...new Set(cells.map((c) => c.tile).filter(Boolean))]) {
      out.push(item(hex(`cell tile tile-${colourClass(t)}`), `${colourName(t)} tile`));
    }
    out.push(item(`${hex("cell tile tile-R")}<text class="coord" dy="0.35em">1,0</text>`, "cell name for typed moves (Show coordinates, or while you type one)"));
    if (marks.has("prisoner") || view.phase !== "over") out.push(item(hex("cell off"), "prisoners, off the field"));
  }
  for (const t of ["black", "white"]) {
    if (marks.has(`territory-${t}`)) {
      out.push(item(`${cellBg}${mark(`territory terr-${colourClass(t)}`, 9.6)}`, `tinted: an empty cell only ${t} can take (${t}'s territory)`));
    }
  }
  if (marks.has("scored")) out.push(item(`${cellBg}${hex("mark mark-scored", 8)}`, "scored creature"));
  // The last move: what it did, as the rules say (view.last_move.effects).
  const effects = (view.last_move && view.last_move.effects) || [];
  const did = (role) => effects.some((e) => e.roles.includes(role));
  const toCls = `last last-to${kind === "field" ? " edge" : ""}`;
  out.push(item(`${cellBg}${mark(toCls)}`, did("origin") ? "last move: where it went" : "last move"));
  if (did("origin")) out.push(item(`${cellBg}${mark("last last-from", 6.6)}`, "last move: where it came from"));
  if (did("captured")) {
    out.push(item(`${cellBg}<g class="last-captured">${mark("cap-ring", 8.6)}<path d="M-3 -3L3 3M-3 3L3 -3"/></g>`, "captured by the last move"));
  }
  if (effects.some(hasBadge)) {
    out.push(item(`${badge("up", "+1", -4.6)}${badge("down", "\u22121", 4.6)}`, "how many pieces the last move added to a stack (+) or took from it (\u2212)"));
  }
  if (view.phase !== "over") {
    out.push(item(`${cellBg}<circle class="dest dot" r="2.6"/>`, "you can play here (smaller when many cells are open)"));
    out.push(item(`${stackSvg(0, 0, [colours[0] || "B"], 6.5)}<circle class="dest ring" r="8"/>`, "you can pick this piece or stack"));
    out.push(item(`${cellBg}${hex("chosen", 8)}`, "your clicks so far"));
    out.push(item(`${cellBg}${hex("pending", 8)}`, "as your move will leave it"));
  }
  el.innerHTML = `<ul class="legend" aria-label="Legend">${out.join("")}</ul>`;
}
