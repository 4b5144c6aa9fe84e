// Drawing one stack of pieces so that it reads at a glance: the owner's colour on top as a disc,
// the height as a number, and the colours underneath as rings around it (outermost = bottom),
// each ring as wide as its run of pieces (within limits), so a strength or a capture shows.

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

/** A short description of a stack: "white, height 5 (2 black under 3 white)". */
export function describeStack(stack) {
  if (!stack || stack.length === 0) return "empty";
  const rs = runs(stack);
  const top = rs[rs.length - 1][0];
  let text = `${colourName(top)}`;
  if (stack.length > 1) text += `, height ${stack.length}`;
  if (rs.length > 1) {
    text += ` (${rs.slice().reverse().map(([c, n]) => `${n} ${colourName(c)}`).join(" over ")})`;
  }
  return text;
}

/**
 * SVG markup of a stack centred on (x, y), outer radius `radius`.
 * The top run is the central disc; lower runs are rings, bottom outermost.
 */
export function stackSvg(x, y, stack, radius) {
  if (!stack || stack.length === 0) return "";
  const rs = runs(stack);
  const top = rs[rs.length - 1];
  const below = rs.slice(0, -1);
  const parts = [`<g class="stack" data-height="${stack.length}">`];
  parts.push(`<circle class="shadow" cx="${round(x + radius * 0.08)}" cy="${round(y + radius * 0.12)}" r="${round(radius)}"/>`);
  let inner = radius;
  if (below.length) {
    // The central disc keeps at least 58% of the radius; the band outside it is shared among
    // the lower runs in proportion to their sizes, each ring at least 9% of the radius wide.
    const shown = below.slice(-4);
    const band = radius * 0.42;
    const minW = radius * 0.09;
    const total = shown.reduce((s, [, n]) => s + n, 0);
    const widths = shown.map(([, n]) => Math.max(minW, (band * n) / total));
    const scale = Math.min(1, band / widths.reduce((s, w) => s + w, 0));
    let r = radius;
    shown.forEach(([c], i) => {
      parts.push(`<circle class="piece pc-${c}" cx="${round(x)}" cy="${round(y)}" r="${round(r)}"/>`);
      r -= widths[i] * scale;
    });
    inner = r;
  }
  parts.push(`<circle class="piece top pc-${top[0]}" cx="${round(x)}" cy="${round(y)}" r="${round(inner)}"/>`);
  if (stack.length > 1) {
    const fs = inner * (below.length ? 1.1 : 0.9) * (stack.length > 9 ? 0.85 : 1);
    parts.push(
      `<text class="height tx-${top[0]}" x="${round(x)}" y="${round(y)}" font-size="${round(fs)}" dy="0.35em">${stack.length}</text>`,
    );
  }
  parts.push("</g>");
  return parts.join("");
}
