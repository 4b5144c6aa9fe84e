// Drawing one stack so that it reads at a glance: the owner (top piece) is a full disc; the height
// is the number in it; a strength that differs from the height (Jotun) is a badge at its upper right; the pieces
// underneath are a band of segments along the disc's lower rim, left = bottom of the stack, one
// segment per piece (per run of a colour once there are more than 7). Each colour carries a
// shape as well as a hue: white has a dark rim, black a light inner ring, red a dark rim and a
// light centre dot, so they differ in greyscale and for colour-blind players.

import { round } from "./hexlayout.js";

const NAMES = { b: "B", black: "B", w: "W", white: "W", r: "R", red: "R" };

/** The one-letter class of a piece colour token ("B", "white", "Red", ...). */
export function colourClass(token) {
  const t = String(token);
  return NAMES[t.toLowerCase()] || t.slice(0, 1).toUpperCase();
}

/** Human name of a colour token, for titles and announcements. */
export function colourName(token) {
  return { B: "black", W: "white", R: "red" }[colourClass(token)] || String(token);
}

/** Runs of equal colours, bottom to top: [["W", 2], ["B", 3]]. */
export function runs(stack) {
  const out = [];
  for (const piece of stack) {
    const c = colourClass(piece);
    if (out.length && out[out.length - 1][0] === c) out[out.length - 1][1] += 1;
    else out.push([c, 1]);
  }
  return out;
}

/** A short description: "black, height 5, strength 3 (3 black over 2 white)". */
export function describeStack(stack, strength) {
  if (!stack || stack.length === 0) return "empty";
  const rs = runs(stack);
  let text = colourName(rs[rs.length - 1][0]);
  if (stack.length > 1) text += `, height ${stack.length}`;
  if (strength != null && strength !== stack.length) text += `, strength ${strength}`;
  if (rs.length > 1) text += ` (${rs.slice().reverse().map(([c, n]) => `${n} ${colourName(c)}`).join(" over ")})`;
  return text;
}

const arc = (x, y, r, a, b) => {
  const p = (t) => `${round(x + r * Math.cos(t))} ${round(y + r * Math.sin(t))}`;
  return `M${p(a)}A${round(r)} ${round(r)} 0 0 0 ${p(b)}`;
};

/**
 * SVG markup of a stack centred on (x, y) with radius `radius`; `strength` (optional) is the
 * number a game's rules turn on when it is not simply the height.
 */
export function stackSvg(x, y, stack, radius, strength) {
  if (!stack || stack.length === 0) return "";
  const n = stack.length;
  const top = colourClass(stack[n - 1]);
  const X = round(x);
  const Y = round(y);
  const parts = [
    `<g class="stack" data-height="${n}"${strength != null ? ` data-strength="${strength}"` : ""} data-top="${top}">`,
    `<circle class="shadow" cx="${round(x + radius * 0.08)}" cy="${round(y + radius * 0.12)}" r="${round(radius)}"/>`,
    `<circle class="piece top pc-${top}" cx="${X}" cy="${Y}" r="${round(radius)}"/>`,
    `<circle class="ring ring-${top}" cx="${X}" cy="${Y}" r="${round(radius * 0.8)}"/>`,
  ];
  const mixed = new Set(stack.map(colourClass)).size > 1;
  if (mixed) {
    // The band: from 160 degrees to 20 degrees (clockwise through the bottom), left = lowest piece.
    const below = stack.slice(0, -1).map(colourClass);
    const segs = below.length <= 7 ? below.map((c) => [c, 1]) : runs(below);
    const a0 = (160 * Math.PI) / 180;
    const span = (140 * Math.PI) / 180;
    const gap = segs.length > 1 ? 0.05 : 0;
    const each = (span - gap * (segs.length - 1)) / below.length;
    const r = radius * 0.8;
    parts.push(`<g class="band"><path class="band-bg" stroke-width="${round(radius * 0.34)}" d="${arc(x, y, r, a0 + 0.06, a0 - span - 0.06)}"/>`);
    let a = a0;
    for (const [c, k] of segs) {
      const b = a - each * k;
      parts.push(`<path class="seg pc-${c}" stroke-width="${round(radius * 0.22)}" d="${arc(x, y, r, a, b)}"/>`);
      a = b - gap;
    }
    parts.push("</g>");
  }
  if (n > 1) {
    const fs = radius * (n > 9 ? 0.82 : 0.95);
    parts.push(`<text class="height tx-${top}" x="${X}" y="${round(y - (mixed ? radius * 0.12 : 0))}" font-size="${round(fs)}" dy="0.35em">${n}</text>`);
  } else if (top === "R") {
    parts.push(`<circle class="dot" cx="${X}" cy="${Y}" r="${round(radius * 0.16)}"/>`);
  }
  if (strength != null && strength !== n) {
    const bx = round(x + radius * 0.74);
    const by = round(y - radius * 0.74);
    parts.push(
      `<g class="strength"><circle cx="${bx}" cy="${by}" r="${round(radius * 0.42)}"/>` +
        `<text x="${bx}" y="${by}" font-size="${round(radius * 0.55)}" dy="0.35em">${strength}</text></g>`,
    );
  }
  parts.push("</g>");
  return parts.join("");
}
