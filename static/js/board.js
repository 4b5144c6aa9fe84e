// The board: draws a rules `view` (games/view.py) as SVG, and nothing else.
//
// No rule lives here (chessground's "no chess logic inside"): the server says which tokens may be
// clicked next (`setSteps`), the board highlights them and reports a click through `onToken`.
// Three board kinds: "hex" (pointy-top cells), "points" (a lattice of points joined by lines) and
// "field" (Exxit's growing field of tiles, fitted to its extent, prisoners beside it).

import { boardLabels, bounds, hexCorners, key, round, toPixel } from "./hexlayout.js";
import { colourClass, describeStack, stackSvg } from "./stacks.js";

const SIZE = 10; // cell radius in SVG units
const NS = "http://www.w3.org/2000/svg";

export class Board {
  /**
   * @param {Element} el container; the SVG is created inside it
   * @param {object} opts onToken(token), onHover(token|null, hint), labels (bool), title (string)
   */
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = { labels: true, ...opts };
    this.view = null;
    this.steps = null;
    this.hover = null;
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("class", "board-svg");
    this.svg.setAttribute("role", "img");
    el.appendChild(this.svg);
    this.svg.addEventListener("click", (e) => this._click(e));
    this.svg.addEventListener("mouseover", (e) => this._over(e));
    this.svg.addEventListener("mouseleave", () => this._setHover(null));
  }

  /** Draw a new position; clears any pending step highlights. */
  setView(view, steps = null) {
    this.view = view;
    this.steps = steps;
    this.hover = null;
    this.render();
  }

  /** The server's answer for the clicks so far ({prefix, next, hints}), or null to disable input. */
  setSteps(steps) {
    this.steps = steps;
    this.hover = null;
    this.render();
  }

  /** Cell positions (SVG units) by id, for overlays. */
  position(id) {
    const c = this.cells && this.cells.get(id);
    return c ? toPixel(c.q, c.r, SIZE) : null;
  }

  render() {
    const v = this.view;
    if (!v) return;
    const kind = v.board.kind;
    this.cells = new Map(v.cells.map((c) => [c.id, c]));
    const next = new Set(this.steps ? this.steps.next : []);
    const prefix = new Set(this.steps ? this.steps.prefix : []);
    const last = new Set(v.last_move ? v.last_move.cells : []);
    const pts = [];
    const out = { cells: [], marks: [], pieces: [], labels: [], hits: [], overlay: [] };

    if (kind === "points") this._drawLines(v, out);
    for (const c of v.cells) {
      const [x, y] = toPixel(c.q, c.r, SIZE);
      pts.push([x, y]);
      const id = esc(c.id);
      const off = kind === "field" && !c.tile;
      if (kind === "points") {
        out.cells.push(`<circle class="point" cx="${round(x)}" cy="${round(y)}" r="${SIZE * 0.16}"/>`);
      } else if (off) {
        out.cells.push(`<polygon class="cell off" points="${hexCorners(x, y, SIZE * 0.93)}"/>`);
      } else {
        const tone = kind === "field" ? `tile tile-${colourClass(c.tile)}` : `tone${mod3(c.q - c.r)}`;
        out.cells.push(`<polygon class="cell ${tone}" points="${hexCorners(x, y, SIZE * (kind === "field" ? 0.96 : 1))}"/>`);
      }
      if (c.mark && c.mark.startsWith("territory-")) {
        // An empty cell that counts for one colour: a small hexagon of that colour low in the cell.
        const colour = colourClass(c.mark.slice("territory-".length));
        out.marks.push(`<polygon class="territory pc-${colour}" points="${hexCorners(x, y + SIZE * 0.5, SIZE * 0.2)}"><title>territory of ${esc(c.mark.slice(10))}</title></polygon>`);
      } else if (c.mark) {
        out.marks.push(markSvg(kind, x, y, `mark mark-${esc(c.mark)}`));
      }
      if (last.has(c.id)) out.marks.push(markSvg(kind, x, y, kind === "field" ? "last edge" : "last"));
      if (prefix.has(c.id)) out.marks.push(markSvg(kind, x, y, "chosen"));
      const radius = SIZE * ({ points: 0.7, field: 0.6 }[kind] || 0.74);
      out.pieces.push(stackSvg(x, y, c.stack, radius));
      if (next.has(c.id)) {
        const busy = c.stack && c.stack.length;
        out.marks.push(
          busy
            ? `<circle class="dest ring" cx="${round(x)}" cy="${round(y)}" r="${round(radius + 1.3)}"/>`
            : `<circle class="dest dot" cx="${round(x)}" cy="${round(y)}" r="${SIZE * 0.24}"/>`,
        );
      }
      const title = `${c.id}: ${off ? "prisoners, " : ""}${describeStack(c.stack)}`;
      const cls = next.has(c.id) ? "hit can" : "hit";
      out.hits.push(
        `<polygon class="${cls}" data-id="${id}" points="${hexCorners(x, y, SIZE)}"><title>${esc(title)}</title></polygon>`,
      );
    }
    if (this.opts.labels && v.rows && v.rows.length) {
      for (const l of boardLabels(v.rows, v.cells)) {
        const [x, y] = toPixel(l.q, l.r, SIZE);
        pts.push([x, y]);
        out.labels.push(`<text class="label ${l.kind}" x="${round(x)}" y="${round(y)}" dy="0.35em">${esc(l.text)}</text>`);
      }
    }
    const hint = this.hover && this.steps && this.steps.hints ? this.steps.hints[this.hover] : null;
    if (hint) out.overlay.push(this._hintSvg(hint));

    const b = bounds(pts, SIZE * 1.15);
    const w = b.maxX - b.minX;
    const h = b.maxY - b.minY;
    this.svg.setAttribute("viewBox", `${round(b.minX)} ${round(b.minY)} ${round(w)} ${round(h)}`);
    // A small field would otherwise be blown up to the full width: cap the scale.
    this.svg.style.maxWidth = this.opts.maxScale ? `${round(w * this.opts.maxScale)}px` : "";
    this.svg.setAttribute("class", `board-svg kind-${kind}${next.size ? " active" : ""}`);
    this.svg.setAttribute("aria-label", this.opts.title || `${v.game} board`);
    this.svg.innerHTML =
      `<g class="cells">${out.cells.join("")}</g>` +
      `<g class="marks">${out.marks.join("")}</g>` +
      `<g class="pieces">${out.pieces.join("")}</g>` +
      `<g class="labels" aria-hidden="true">${out.labels.join("")}</g>` +
      `<g class="overlay">${out.overlay.join("")}</g>` +
      `<g class="hits">${out.hits.join("")}</g>`;
  }

  _drawLines(v, out) {
    // Valaturna: join each point to its neighbours to the E, SW and SE (each line once).
    const have = new Set(v.cells.map((c) => key(c.q, c.r)));
    const segs = [];
    for (const c of v.cells) {
      const [x, y] = toPixel(c.q, c.r, SIZE);
      for (const [dq, dr] of [[1, 0], [-1, 1], [0, 1]]) {
        if (!have.has(key(c.q + dq, c.r + dr))) continue;
        const [x2, y2] = toPixel(c.q + dq, c.r + dr, SIZE);
        segs.push(`M${round(x)} ${round(y)}L${round(x2)} ${round(y2)}`);
      }
    }
    // The board's outline: a hexagon through the six corner points, pushed out so that edge stones fit inside.
    const m = v.board.side ? v.board.side - 1 : Math.max(...v.cells.map((c) => Math.abs(c.q)));
    const f = (m + 0.8) / Math.max(m, 1);
    const corners = [[m, 0], [m, -m], [0, -m], [-m, 0], [-m, m], [0, m]]
      .map(([q, r]) => toPixel(q * f, r * f, SIZE).map(round).join(","))
      .join(" ");
    out.cells.push(
      `<polygon class="lattice-bg" points="${corners}"/>`,
      `<path class="line" d="${segs.join("")}"/>`,
    );
  }

  _hintSvg(hint) {
    // A preview of what a click would do: a path through cells (Jotun) and/or cells to mark.
    const parts = [];
    const path = hint.path || hint.waypoints;
    if (Array.isArray(path) && path.length > 1) {
      const d = path
        .map((id, i) => {
          const p = this.position(id);
          return p ? `${i ? "L" : "M"}${round(p[0])} ${round(p[1])}` : "";
        })
        .join("");
      parts.push(`<path class="preview-path" d="${d}"/>`);
    }
    if (hint.changes) {
      // The stacks as the move would leave them, drawn small over the cells they replace;
      // a cross where a cell would be emptied.
      for (const [id, stack] of Object.entries(hint.changes)) {
        const p = this.position(id);
        if (!p || !Array.isArray(stack)) continue;
        const [x, y] = p.map(round);
        const k = SIZE * 0.22;
        parts.push(
          stack.length
            ? `<g class="ghost">${stackSvg(x, y, stack, SIZE * 0.45)}</g>`
            : `<path class="vanish" d="M${x - k} ${y - k}L${x + k} ${y + k}M${x - k} ${y + k}L${x + k} ${y - k}"/>`,
        );
      }
    } else {
      for (const id of Array.isArray(hint.cells) ? hint.cells : []) {
        const p = this.position(id);
        if (p) parts.push(markSvg(this.view.board.kind, p[0], p[1], "preview"));
      }
    }
    return parts.join("");
  }

  _target(e) {
    const t = e.target.closest ? e.target.closest("[data-id]") : null;
    return t ? t.getAttribute("data-id") : null;
  }

  _click(e) {
    const id = this._target(e);
    if (!id || !this.steps || !this.steps.next.includes(id)) return; // an illegal click does nothing
    if (this.opts.onToken) this.opts.onToken(id);
  }

  _over(e) {
    const id = this._target(e);
    this._setHover(id && this.steps && this.steps.next.includes(id) ? id : null);
  }

  _setHover(id) {
    if (id === this.hover) return;
    this.hover = id;
    const hint = id && this.steps && this.steps.hints ? this.steps.hints[id] : null;
    if (this.opts.onHover) this.opts.onHover(id, hint || null);
    if (this.steps && this.steps.hints && Object.keys(this.steps.hints).length) {
      const overlay = this.svg.querySelector(".overlay");
      if (overlay) overlay.innerHTML = hint ? this._hintSvg(hint) : "";
    }
  }
}

function markSvg(kind, x, y, cls) {
  if (kind === "points") return `<circle class="${cls}" cx="${round(x)}" cy="${round(y)}" r="${SIZE * 0.82}"/>`;
  return `<polygon class="${cls}" points="${hexCorners(x, y, SIZE * 0.86)}"/>`;
}

function mod3(n) {
  return ((n % 3) + 3) % 3;
}

/** Escape text for SVG/HTML markup. */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}
