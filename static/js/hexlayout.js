// Hex geometry for drawing, the browser's twin of games/hexgrid.py.
//
// Axial coordinates (q, r), pointy-top cells, r growing downward:
//   x = sqrt(3) * (q + r/2),  y = 1.5 * r     (times the cell radius)
// This module knows geometry only: no rule of any game lives here.

export const SQRT3 = Math.sqrt(3);

/** Pixel centre of cell (q, r) for cells of radius `size`. */
export function toPixel(q, r, size = 1) {
  return [size * SQRT3 * (q + r / 2), size * 1.5 * r];
}

/** The six corners of a pointy-top hexagon centred on (x, y), as an SVG points string. */
export function hexCorners(x, y, size) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push(`${round(x + size * Math.cos(a))},${round(y + size * Math.sin(a))}`);
  }
  return pts.join(" ");
}

/**
 * A cell-shaped SVG element centred on (x, y): a hexagon of radius `r`, or on a lattice of points
 * (`kind` "points") a circle of radius `r`; `cls` its class, `attrs` more attributes.
 */
export function cellShape(kind, x, y, r, cls, attrs = "") {
  const a = attrs ? ` ${attrs}` : "";
  if (kind === "points") return `<circle class="${cls}"${a} cx="${round(x)}" cy="${round(y)}" r="${round(r)}"/>`;
  return `<polygon class="${cls}"${a} points="${hexCorners(x, y, r)}"/>`;
}

/** A key for maps of cells. */
export function key(q, r) {
  return `${q},${r}`;
}

/** Bounding box {minX, minY, maxX, maxY} of pixel points, grown by `pad`. */
export function bounds(points, pad = 0) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x); minY = Math.min(minY, y);
    maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  if (minX === Infinity) return { minX: -pad, minY: -pad, maxX: pad, maxY: pad };
  return { minX: minX - pad, minY: minY - pad, maxX: maxX + pad, maxY: maxY + pad };
}

/**
 * Where the coordinate labels of a named board go, from the view's `rows` (label, r, qmin)
 * and its cells. Row letters sit left of each row, on its line. A cell's number counts from
 * its row's left end; cells sharing a number form a line that runs south-west down to the
 * middle row and south-east below it. A line that ends in the top (bottom) row has its number
 * straight above (below) that end, where no other line's point is nearer; a line that ends on a
 * side edge has it beyond that end, continuing the line (north-east at the top, south-east at
 * the bottom), and `from` names that end, so that a stub of the line can lead the eye to it.
 * Returns [{text, q, r, kind: "row" | "number", from?}] in fractional axial coordinates.
 */
export function boardLabels(rows, cells) {
  if (!rows || rows.length === 0) return [];
  const byRow = new Map();
  for (const c of cells) {
    if (!byRow.has(c.r)) byRow.set(c.r, []);
    byRow.get(c.r).push(c.q);
  }
  const labels = [];
  const lines = new Map(); // number -> {top: [q, r], bottom: [q, r]}
  let rmin = Infinity;
  let rmax = -Infinity;
  for (const row of rows) {
    const qs = byRow.get(row.r);
    if (!qs || qs.length === 0) continue;
    rmin = Math.min(rmin, row.r);
    rmax = Math.max(rmax, row.r);
    labels.push({ text: row.label, q: Math.min(...qs) - 0.85, r: row.r, kind: "row" });
    for (const q of qs) {
      const n = q - row.qmin + 1;
      const line = lines.get(n);
      if (!line) {
        lines.set(n, { top: [q, row.r], bottom: [q, row.r] });
      } else {
        if (row.r < line.top[1]) line.top = [q, row.r];
        if (row.r > line.bottom[1]) line.bottom = [q, row.r];
      }
    }
  }
  const t = 0.8;
  for (const [n, { top, bottom }] of lines) {
    const text = String(n);
    labels.push(
      top[1] === rmin
        ? { text, q: top[0] + t / 2, r: top[1] - t, kind: "number" }
        : { text, q: top[0] + t, r: top[1] - t, kind: "number", from: top },
      bottom[1] === rmax
        ? { text, q: bottom[0] - t / 2, r: bottom[1] + t, kind: "number" }
        : { text, q: bottom[0], r: bottom[1] + t, kind: "number", from: bottom },
    );
  }
  return labels;
}

/** Round to two decimals for compact SVG. */
export function round(v) {
  return Math.round(v * 100) / 100;
}
