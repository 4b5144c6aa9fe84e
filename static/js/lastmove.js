// What the last move did, drawn from the view's `last_move.effects` (games/view.py): where it went
// (loud), where it came from (quiet), the trail of a moving stack, what it captured, and a badge
// with the change of height on every other stack it changed; then the animation of the move.
// The roles come from the rules: nothing here knows a game.

import { cellShape, round } from "./hexlayout.js";
import { escapeHtml as esc } from "./page.js";
import { stackSvg } from "./stacks.js";

/** Roles drawn as the move's arrival: the loudest mark. */
const ARRIVED = ["destination", "placed", "replaced", "freed"];
/** Roles whose stack gets a badge with its change of height. */
const CHANGED = ["fed", "eaten", "ate", "flipped", "sown", "prisoner", "freed", "changed"];
/** How long the move takes to play out, in ms: slow enough to follow. */
export const DURATION = 500;

const WORDS = {
  origin: "moved from here",
  path: "passed through",
  destination: "moved here",
  placed: "placed",
  captured: "captured",
  replaced: "re-placed",
  fed: "fed",
  eaten: "eaten",
  ate: "ate from the mover",
  flipped: "flipped",
  sown: "sown",
  prisoner: "prisoners dropped",
  freed: "freed",
  changed: "changed",
};

/** Roles of the cells a moving stack goes through, from its origin to its end. */
const MOVING = ["origin", "path", "destination", "sown", "prisoner"];

/** The trail of the last move's moving stack, cell ids from its origin on; [] without one. */
export function trailOf(view) {
  const lm = view && view.last_move;
  if (!lm) return [];
  const by = new Map((lm.effects || []).map((e) => [e.id, e.roles]));
  const start = lm.cells.findIndex((id) => (by.get(id) || []).includes("origin"));
  if (start < 0) return [];
  const trail = [];
  for (const id of lm.cells.slice(start)) {
    if (!(by.get(id) || []).some((r) => MOVING.includes(r))) break;
    trail.push(id);
  }
  return trail;
}

/** The effects of a view's last move by cell id (an empty map without one). */
export function effectsOf(view) {
  const lm = view && view.last_move;
  return new Map(((lm && lm.effects) || []).map((e) => [e.id, e]));
}

/** A height change as shown on a badge: "+1", "−2" (a real minus sign), "±0". */
export function signed(delta) {
  return delta > 0 ? `+${delta}` : delta < 0 ? `\u2212${-delta}` : "\u00b10";
}

/** Words for a cell's effect, for its accessible name: "last move: fed +1". */
export function effectWords(e) {
  if (!e) return "";
  const roles = e.roles.map((r) => WORDS[r] || r).join(" and ");
  return `last move: ${roles}${e.roles.some((r) => CHANGED.includes(r)) ? ` ${signed(e.delta)}` : ""}`;
}

/** Whether an effect's cell shows a badge. */
export function hasBadge(e) {
  return e.roles.some((r) => CHANGED.includes(r));
}

/**
 * SVG of the last move: `marks` go under the pieces, `badges` above them.
 * `at(id)` gives a cell's centre, `kind` the board kind, `size` the cell radius, `empty(id)`
 * whether the cell is empty now.
 */
export function lastMoveSvg(view, at, kind, size, empty) {
  const out = { marks: [], badges: [] };
  const lm = view.last_move;
  if (!lm) return out;
  const effects = lm.effects || [];
  // the trail of a moving stack: from its origin through each cell it entered
  const pts = trailOf(view).map(at).filter(Boolean);
  if (pts.length > 1) {
    const d = pts.map(([x, y], i) => `${i ? "L" : "M"}${round(x)} ${round(y)}`).join("");
    out.marks.push(`<path class="last-trail" d="${d}"/>`);
  }
  for (const e of effects) {
    const p = at(e.id);
    if (!p) continue;
    const [x, y] = p;
    const cell = `data-cell="${esc(e.id)}"`;
    const to = e.roles.some((r) => ARRIVED.includes(r));
    if (to) out.marks.push(shape(kind, x, y, size, `last last-to${kind === "field" ? " edge" : ""}`, cell, kind === "field" ? 0.98 : 0.97));
    else if (e.roles.includes("origin")) out.marks.push(shape(kind, x, y, size, "last last-from", cell, 0.7));
    else if (e.roles.includes("path")) out.marks.push(`<circle class="last last-path" ${cell} cx="${round(x)}" cy="${round(y)}" r="${round(size * 0.16)}"/>`);
    if (e.roles.includes("captured")) {
      const k = size * 0.3;
      const cross = empty(e.id) ? `<path d="M${round(x - k)} ${round(y - k)}L${round(x + k)} ${round(y + k)}M${round(x - k)} ${round(y + k)}L${round(x + k)} ${round(y - k)}"/>` : "";
      out.badges.push(`<g class="last-captured" ${cell}>${shape(kind, x, y, size, "cap-ring", "", 0.92)}${cross}</g>`);
    }
    if (hasBadge(e)) {
      // at the stack's upper left (its strength, if any, is at the upper right); on the cell
      // itself when the move left it empty
      const off = empty(e.id) ? 0 : size * 0.62;
      const bx = round(x - off);
      const by = round(y - off);
      const text = signed(e.delta);
      const w = round(size * (0.36 + 0.2 * text.length));
      out.badges.push(
        `<g class="delta ${e.delta > 0 ? "up" : e.delta < 0 ? "down" : "even"}" ${cell} data-delta="${e.delta}">` +
          `<rect x="${round(bx - w / 2)}" y="${round(by - size * 0.3)}" width="${w}" height="${round(size * 0.6)}" rx="${round(size * 0.3)}"/>` +
          `<text x="${bx}" y="${by}" font-size="${round(size * 0.46)}" dy="0.35em">${text}</text></g>`,
      );
    }
  }
  return out;
}

function shape(kind, x, y, size, cls, attrs, f) {
  return cellShape(kind, x, y, size * Math.min(f, kind === "points" ? 0.88 : f), cls, attrs);
}

/**
 * Play the move from `prev` (the view before) to the board's view: the moving stack slides from
 * its origin along its trail, pieces sown by a dance slide out to their cells, new pieces fade
 * in, captured ones fade out and each badge pops. The caller skips this under reduced motion.
 */
export function animateLastMove(board, prev, radius) {
  const view = board.view;
  const lm = view.last_move;
  const old = new Map(prev.cells.map((c) => [c.id, c.stack]));
  const effects = lm.effects || [];
  const trail = trailOf(view).filter((id) => board.position(id));
  const opt = { duration: DURATION, easing: "ease-in-out" };
  const svg = board.svg;
  const group = (id) => svg.querySelector(`.pieces [data-at="${CSS.escape(id)}"]`);
  for (const e of effects) {
    const [x, y] = board.position(e.id);
    const g = group(e.id);
    const j = trail.indexOf(e.id);
    const slides = j > 0 && ["destination", "sown", "prisoner"].some((r) => e.roles.includes(r));
    if (g && slides) {
      // along the trail, each stretch in proportion to its length
      const pts = trail.slice(0, j + 1).map((id) => board.position(id));
      const lengths = pts.slice(1).map((p, i) => Math.hypot(p[0] - pts[i][0], p[1] - pts[i][1]));
      const total = lengths.reduce((a, b) => a + b, 0) || 1;
      let run = 0;
      const frames = pts.map(([px, py], i) => {
        if (i) run += lengths[i - 1];
        return { transform: `translate(${round(px - x)}px,${round(py - y)}px)`, offset: run / total };
      });
      frames[frames.length - 1] = { transform: "none", offset: 1 };
      g.animate(frames, opt);
    } else if (g && !e.roles.includes("origin")) {
      g.animate([{ opacity: 0 }, { opacity: 1 }], opt);
    }
    const before = old.get(e.id) || [];
    if (!g && before.length && !e.roles.includes("origin")) {
      // gone: captured, eaten away or freed; what was there fades out
      const ghost = document.createElementNS("http://www.w3.org/2000/svg", "g");
      ghost.setAttribute("class", "fading");
      ghost.innerHTML = stackSvg(x, y, before, radius);
      svg.querySelector(".overlay").appendChild(ghost);
      ghost.animate([{ opacity: 1 }, { opacity: 0 }], { ...opt, fill: "forwards" }).onfinish = () => ghost.remove();
    }
  }
  for (const b of svg.querySelectorAll(".last-badges .delta, .last-badges .last-captured")) {
    b.animate([{ opacity: 0 }, { opacity: 0, offset: 0.6 }, { opacity: 1 }], opt);
  }
}
