// The board: draws a rules `view` (games/view.py) as SVG, and nothing else.
//
// No rule lives here (chessground's "no chess logic inside"): the server says which tokens may be
// clicked next (`setSteps`), the board highlights them and reports a click through `onToken`.
// Three board kinds: "hex" (pointy-top cells), "points" (a lattice of points joined by lines) and
// "field" (Exxit's growing field of tiles, fitted to its extent, prisoners beside it).
// With `onToken` the board is a keyboard grid: one tab stop, arrows move between cells (Left/Right
// west/east, Up/Down to the row above/below, keeping the column), Enter or Space clicks, Escape
// calls `onCancel`; offered cells are announced through `onAnnounce`. On a touch screen whose
// cells are narrower than a fingertip, a tap opens a magnifier (loupe.js) where the tap chooses.
// The last move is drawn from what the rules say it did (lastmove.js); a move being built shows
// the position it leaves (`changes`), a stack picked up to move drawn lifted over its cell.

import { boardLabels, bounds, cellShape, hexCorners, key, round, toPixel } from "./hexlayout.js";
import { animateLastMove, effectWords, effectsOf, hasBadge, lastMoveSvg, signed } from "./lastmove.js";
import { escapeHtml as esc } from "./page.js";
import { hintSvg } from "./preview.js";
import { colourClass, colourName, describeStack, stackSvg } from "./stacks.js";

const SIZE = 10; // cell radius in SVG units
const NS = "http://www.w3.org/2000/svg";
const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const still = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
const has = (o, k) => !!o && Object.prototype.hasOwnProperty.call(o, k);
/** Offered cells beyond this many get quieter dots: smaller and paler. */
const MANY = 20;

export class Board {
  /**
   * @param {Element} el container; the SVG is created inside it
   * @param {object} opts onToken(token), onHover(token|null, hint), onCancel(), onAnnounce(text),
   *   labels (bool), title (string), maxScale (number), coordinates (bool: a field's cell names;
   *   default on for a board nobody plays on, such as a diagram, off for a playable one)
   */
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = { labels: true, ...opts };
    this.live = !!this.opts.onToken;
    this.size = SIZE;
    this.coordinates = this.opts.coordinates ?? !this.live;
    // The loupe's module is loaded where a finger may tap (a touch screen), at once, before any tap.
    this.loupe = null;
    if (this.live && (navigator.maxTouchPoints > 0 || matchMedia("(any-pointer: coarse)").matches)) {
      import("./loupe.js").then((m) => {
        this.loupe = new m.Loupe(this);
      });
    }
    this.pointer = "mouse";
    this.view = null;
    this.steps = null;
    this.hover = null;
    this.flipped = false;
    this.focusId = null;
    this.said = "";
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("class", "board-svg");
    el.appendChild(this.svg);
    for (const type of ["pointerover", "pointerdown"]) this.svg.addEventListener(type, (e) => (this.pointer = e.pointerType));
    this.svg.addEventListener("click", (e) => this._click(e));
    this.svg.addEventListener("mouseover", (e) => this._over(e));
    this.svg.addEventListener("mouseleave", () => this._setHover(null));
    this.svg.addEventListener("keydown", (e) => this._key(e));
    this.svg.addEventListener("focusin", (e) => {
      const id = this._target(e);
      if (id) this._focus(id, false);
    });
    // Small boards (the /live minis) keep the owner and height only.
    if (window.ResizeObserver) new ResizeObserver(() => this._fit()).observe(this.svg);
  }

  /** Draw a new position; clears any pending step highlights; animates a new last move. */
  setView(view, steps = null) {
    const prev = this.view;
    this.view = view;
    this.steps = steps;
    this.hover = null;
    if (this.loupe) this.loupe.close();
    this.render();
    this._announce();
    const a = prev && prev.last_move;
    const b = view.last_move;
    if (prev && b && prev.game === view.game && (!a || a.text !== b.text) && !still()) {
      animateLastMove(this, prev, this._radius());
    }
  }

  /** The server's answer for the clicks so far ({prefix, next, hints, changes}), or null. */
  setSteps(steps) {
    this.steps = steps;
    this.hover = null;
    this.render();
    this._announce();
    if (this.loupe) this.loupe.refresh();
  }

  /** Show or hide the cell names of a field (Exxit's `q,r`, what a typed move uses). */
  setCoordinates(on) {
    if (this.coordinates === !!on) return; // a redraw between a press and its release loses the click
    this.coordinates = !!on;
    this.render();
  }

  /** Turn the board by 180 degrees; text stays upright. */
  setFlipped(flipped) {
    this.flipped = !!flipped;
    this.render();
  }

  /** Pixel centre of (q, r) as drawn (turned when flipped). */
  _xy(q, r) {
    const [x, y] = toPixel(q, r, SIZE);
    return this.flipped ? [-x, -y] : [x, y];
  }

  /** Cell positions (SVG units) by id, for overlays. */
  position(id) {
    const c = this.cells && this.cells.get(id);
    return c ? this._xy(c.q, c.r) : null;
  }

  /** The stack drawn on a cell: the pending position's when the steps carry `changes`. */
  _stack(c) {
    const ch = this.steps && this.steps.changes;
    return has(ch, c.id) ? ch[c.id] : c.stack;
  }

  _name(c, next = this._next(), prefix = new Set(), effect = null, lifted = null) {
    const ch = this.steps && this.steps.changes;
    const off = this.view.board.kind === "field" && !c.tile;
    const stack = c.id === lifted ? c.stack : this._stack(c);
    let text = `${c.id}, ${off && stack.length ? "prisoners, " : ""}${describeStack(stack, has(ch, c.id) ? null : c.strength)}`;
    if (c.id === lifted) text += ", picked up";
    else if (has(ch, c.id)) text += ", pending";
    if (effect) text += `, ${effectWords(effect)}`;
    if (c.mark && c.mark.startsWith("territory-")) text += `, ${c.mark.slice(10)} territory`;
    else if (c.mark === "scored") text += ", scored";
    if (prefix.has(c.id)) text += ", selected";
    if (next.has(c.id)) text += ", you can play here";
    return text;
  }

  _next() {
    return new Set(this.steps ? this.steps.next : []);
  }

  /** The radius of a one-piece stack on this board. */
  _radius() {
    return SIZE * ({ points: 0.7, field: 0.6 }[this.view.board.kind] || 0.74);
  }

  /**
   * The stack picked up to move, if any: the last click emptied a cell of the mover's that held
   * a stack, and a next click is awaited (where it goes). Read from the steps, not from a rule.
   */
  _lifted() {
    const st = this.steps;
    const v = this.view;
    if (!st || !st.prefix.length || !st.next.length || !v.to_move) return null;
    const id = st.prefix[st.prefix.length - 1];
    const c = this.cells.get(id);
    const mine = v.colours && v.colours[String(v.to_move)];
    const ch = st.changes || {};
    if (!c || !c.stack.length || !mine || !has(ch, id) || ch[id].length) return null;
    return colourClass(c.stack[c.stack.length - 1]) === colourClass(mine) ? id : null;
  }

  render() {
    const v = this.view;
    if (!v) return;
    const kind = v.board.kind;
    const hadFocus = this.svg.contains(document.activeElement);
    this.cells = new Map(v.cells.map((c) => [c.id, c]));
    const next = this._next();
    const prefix = new Set(this.steps ? this.steps.prefix : []);
    const changes = (this.steps && this.steps.changes) || {};
    const effects = effectsOf(v);
    const lifted = this._lifted();
    // The board's one tab stop: the last focused cell, else the middle one.
    if (!this.cells.has(this.focusId)) this.focusId = v.cells.length ? v.cells[v.cells.length >> 1].id : null;
    const pts = [];
    const out = { cells: [], marks: [], pieces: [], badges: [], hand: [], coords: [], labels: [], hits: [], overlay: [] };
    const radius = this._radius();
    // Many offered cells (an opening, a big board): quieter dots, so the position still reads.
    // (On a lattice a quiet dot still covers its point, so that an offered point stays told apart.)
    const quietR = round(SIZE * (kind === "points" ? 0.2 : 0.14));
    const dot = next.size > MANY ? { cls: "dest dot quiet", quiet: " quiet", r: quietR } : { cls: "dest dot", quiet: "", r: round(SIZE * 0.24) };

    if (kind === "points") this._drawLines(v, out);
    let row = null;
    for (const c of v.cells) {
      const [x, y] = this._xy(c.q, c.r);
      const X = round(x);
      const Y = round(y);
      pts.push([x, y]);
      const off = kind === "field" && !c.tile;
      if (kind === "points") {
        out.cells.push(`<circle class="point" cx="${X}" cy="${Y}" r="${SIZE * 0.16}"/>`);
      } else {
        const tone = off ? "off" : kind === "field" ? `tile tile-${colourClass(c.tile)}` : `tone${mod3(c.q - c.r)}`;
        out.cells.push(`<polygon class="cell ${tone}" points="${hexCorners(x, y, SIZE * (off ? 0.93 : kind === "field" ? 0.96 : 1))}"/>`);
      }
      if (c.mark && c.mark.startsWith("territory-")) {
        // An empty cell that counts for one colour: the whole cell tinted with that colour,
        // under every mark, so that the board stays quiet.
        out.cells.push(markSvg(kind, x, y, `territory terr-${colourClass(c.mark.slice(10))}`, 1));
      } else if (c.mark && c.mark !== "prisoner") {
        out.marks.push(markSvg(kind, x, y, `mark mark-${esc(c.mark)}`));
      }
      if (prefix.has(c.id) && c.id !== lifted) out.marks.push(markSvg(kind, x, y, "chosen"));
      const pending = has(changes, c.id);
      const stack = pending ? changes[c.id] : c.stack;
      if (c.id === lifted) {
        // in hand: drawn raised over its cell, its shadow left on the cell
        out.marks.push(markSvg(kind, x, y, "chosen"), `<ellipse class="lift-shadow" cx="${X}" cy="${round(y + radius * 0.25)}" rx="${round(radius * 0.95)}" ry="${round(radius * 0.8)}"/>`);
        out.hand.push(`<g class="lifted" data-at="${esc(c.id)}" data-lifted="true" transform="translate(0 ${round(-radius * 0.55)})">${stackSvg(x, y, c.stack, radius * 1.08, c.strength)}</g>`);
      } else {
        if (pending) out.marks.push(markSvg(kind, x, y, "pending"));
        if (stack.length) out.pieces.push(`<g data-at="${esc(c.id)}">${stackSvg(x, y, stack, radius, pending ? null : c.strength)}</g>`);
      }
      if (kind === "field" && this.coordinates) out.coords.push(`<text class="coord" x="${X}" y="${round(y + SIZE * 0.72)}" dy="0.35em">${esc(c.id)}</text>`);
      if (next.has(c.id)) {
        out.marks.push(
          stack.length
            ? `<circle class="dest ring${dot.quiet}" cx="${X}" cy="${Y}" r="${round(radius + 1.3)}"/>`
            : `<circle class="${dot.cls}" cx="${X}" cy="${Y}" r="${dot.r}"/>`,
        );
      }
      const name = esc(this._name(c, next, prefix, effects.get(c.id), lifted));
      const cls = next.has(c.id) ? "hit can" : "hit";
      const poly = `points="${hexCorners(x, y, SIZE)}"`;
      if (this.live) {
        if (row !== c.r) out.hits.push(`${row === null ? "" : "</g>"}<g role="row">`);
        row = c.r;
        const tab = c.id === this.focusId ? 0 : -1;
        out.hits.push(`<polygon class="${cls}" data-id="${esc(c.id)}" ${poly} role="gridcell" tabindex="${tab}" aria-label="${name}"><title>${name}</title></polygon>`);
      } else {
        out.hits.push(`<polygon class="${cls}" data-id="${esc(c.id)}" ${poly}><title>${name}</title></polygon>`);
      }
    }
    // The last move, under the pieces (where it went, where from, its trail) and above them
    // (what it captured, and how much each stack it changed grew or shrank).
    const shown = (id) => {
      const c = this.cells.get(id);
      return c ? this._xy(c.q, c.r) : null;
    };
    const lm = lastMoveSvg(v, shown, kind, SIZE, (id) => !this._stack(this.cells.get(id)).length);
    out.marks.unshift(...lm.marks);
    out.badges.push(...lm.badges);
    if (this.live && row !== null) out.hits.push("</g>");
    if (this.opts.labels && v.rows && v.rows.length) {
      for (const l of boardLabels(v.rows, v.cells)) {
        const [x, y] = this._xy(l.q, l.r);
        pts.push([x, y]);
        out.labels.push(`<text class="label ${l.kind}" x="${round(x)}" y="${round(y)}" dy="0.35em">${esc(l.text)}</text>`);
        if (l.from && kind === "points") {
          const [fx, fy] = this._xy(...l.from);
          const [tx, ty] = this._xy(l.q - (l.q - l.from[0]) * 0.45, l.r - (l.r - l.from[1]) * 0.45);
          out.cells.push(`<path class="stub" d="M${round(fx)} ${round(fy)}L${round(tx)} ${round(ty)}"/>`);
        }
      }
    }
    const hint = this.hover && this.steps && this.steps.hints ? this.steps.hints[this.hover] : null;
    if (hint) out.overlay.push(hintSvg(hint, this.hover, (id) => this.position(id), kind, SIZE));

    const b = bounds(pts, SIZE * 1.15);
    const w = b.maxX - b.minX;
    const h = b.maxY - b.minY;
    this.vbw = w;
    const svg = this.svg;
    svg.setAttribute("viewBox", `${round(b.minX)} ${round(b.minY)} ${round(w)} ${round(h)}`);
    // A small field would otherwise be blown up to the full width: cap the scale.
    svg.style.maxWidth = this.opts.maxScale ? `${round(w * this.opts.maxScale)}px` : "";
    svg.setAttribute("class", `board-svg kind-${kind}${next.size ? " active" : ""}${this.tiny ? " tiny" : ""}${this.small ? " small" : ""}`);
    svg.setAttribute("aria-label", `${this.opts.title || `${v.game} board`}${this.flipped ? " (flipped)" : ""}`);
    if (this.live) {
      svg.setAttribute("role", "grid");
      // Chromium makes an svg (a scroll container) a tab stop of its own, where the arrows do
      // nothing: out of the tab order, so Tab lands on the cell that holds the board's one stop
      svg.setAttribute("tabindex", "-1");
      svg.setAttribute(
        "aria-description",
        "Arrow keys move between cells: left and right along the row, up and down to the next row. Enter or Space plays the cell, Escape cancels.",
      );
    } else svg.setAttribute("role", "img");
    svg.innerHTML =
      `<g class="cells">${out.cells.join("")}</g>` +
      `<g class="marks">${out.marks.join("")}</g>` +
      `<g class="pieces">${out.pieces.join("")}</g>` +
      `<g class="last-badges">${out.badges.join("")}</g>` +
      `<g class="hand">${out.hand.join("")}</g>` +
      `<g class="coords" aria-hidden="true">${out.coords.join("")}</g>` +
      `<g class="labels" aria-hidden="true">${out.labels.join("")}</g>` +
      `<g class="overlay">${out.overlay.join("")}</g>` +
      `<g class="hits">${out.hits.join("")}</g>`;
    if (hadFocus && this.focusId) this._el(this.focusId)?.focus();
  }

  _fit() {
    const w = this.svg.clientWidth;
    if (!w || !this.vbw) return;
    const r = (w / this.vbw) * SIZE; // px per cell radius
    this.tiny = r < 13;
    this.small = r < 24; // Exxit's cell names would be under 7 px
    this.svg.classList.toggle("tiny", this.tiny);
    this.svg.classList.toggle("small", this.small);
  }

  _el(id) {
    return this.svg.querySelector(`.hit[data-id="${CSS.escape(id)}"]`);
  }

  _drawLines(v, out) {
    // Valaturna: join each point to its neighbours to the E, SW and SE (each line once).
    const have = new Set(v.cells.map((c) => key(c.q, c.r)));
    const segs = [];
    for (const c of v.cells) {
      const [x, y] = this._xy(c.q, c.r);
      for (const [dq, dr] of [[1, 0], [-1, 1], [0, 1]]) {
        if (!have.has(key(c.q + dq, c.r + dr))) continue;
        const [x2, y2] = this._xy(c.q + dq, c.r + dr);
        segs.push(`M${round(x)} ${round(y)}L${round(x2)} ${round(y2)}`);
      }
    }
    // The board's outline: a hexagon through the six corner points, pushed out so that edge stones fit inside.
    const m = v.board.side ? v.board.side - 1 : Math.max(...v.cells.map((c) => Math.abs(c.q)));
    const f = (m + 0.8) / Math.max(m, 1);
    const corners = [[m, 0], [m, -m], [0, -m], [-m, 0], [-m, m], [0, m]]
      .map(([q, r]) => this._xy(q * f, r * f).map(round).join(","))
      .join(" ");
    out.cells.push(`<polygon class="lattice-bg" points="${corners}"/>`, `<path class="line" d="${segs.join("")}"/>`);
  }

  /** A plain-text description of the position, for screen readers. */
  describe() {
    const v = this.view;
    if (!v) return "";
    const by = new Map();
    const terr = new Map();
    for (const c of v.cells) {
      const s = this._stack(c);
      if (s.length) {
        const col = colourName(s[s.length - 1]);
        if (!by.has(col)) by.set(col, []);
        const d = describeStack(s, c.strength).replace(/^\w+,? ?/, "");
        by.get(col).push(d ? `${c.id} (${d})` : c.id);
      } else if (c.mark && c.mark.startsWith("territory-")) {
        const col = c.mark.slice(10);
        terr.set(col, (terr.get(col) || 0) + 1);
      }
    }
    const parts = [...by].map(([col, list]) => `${cap(col)}: ${list.length} ${list.length === 1 ? "stack" : "stacks"}, ${list.join(", ")}.`);
    if (!parts.length) parts.push("The board is empty.");
    for (const [col, n] of terr) parts.push(`${cap(col)} territory: ${n} cells.`);
    if (v.last_move) {
      const changed = (v.last_move.effects || []).filter(hasBadge).map((e) => `${e.id} ${e.roles.join(" and ")} ${signed(e.delta)}`);
      parts.push(`Last move: ${v.last_move.text}${changed.length ? ` (${changed.join(", ")})` : ""}.`);
    }
    return parts.join(" ");
  }

  _announce() {
    if (!this.live || !this.opts.onAnnounce) return;
    const ids = this.steps ? this.steps.next.filter((id) => this.cells.has(id)) : [];
    const text = ids.length
      ? `${ids.length} ${ids.length === 1 ? "cell" : "cells"} offered: ${ids.slice(0, 12).join(", ")}${ids.length > 12 ? ", and more" : ""}`
      : "";
    if (text && text !== this.said) this.opts.onAnnounce(text);
    this.said = text;
  }

  _target(e) {
    const t = e.target.closest ? e.target.closest("[data-id]") : null;
    return t ? t.getAttribute("data-id") : null;
  }

  _play(id) {
    if (!id || !this.steps || !this.steps.next.includes(id)) return; // an illegal click does nothing
    if (this.opts.onToken) this.opts.onToken(id);
  }

  _click(e) {
    const id = this._target(e);
    // A finger on cells narrower than a fingertip: magnify first, play nothing yet. (Not for a
    // click without a pointer, `detail` 0: a screen reader's activation plays the cell it names.)
    if (this.loupe && e.detail && this.steps && this.steps.next.length && this.loupe.wanted(this.pointer)) {
      this.loupe.show(e.clientX, e.clientY);
      return;
    }
    this._play(id);
  }

  _focus(id, move = true) {
    if (this.focusId !== id) {
      const old = this._el(this.focusId);
      if (old) old.setAttribute("tabindex", "-1");
      this.focusId = id;
    }
    const el = this._el(id);
    if (!el) return;
    el.setAttribute("tabindex", "0");
    if (move) el.focus();
    this._setHover(this._next().has(id) ? id : null);
  }

  _key(e) {
    if (e.key === "Escape") {
      if (!this.opts.onCancel) return; // left to the page
      this.opts.onCancel();
    } else if (e.key === "Enter" || e.key === " ") {
      this._play(this.focusId);
    } else if (KEYS[e.key]) {
      const id = this._neighbour(this.focusId, KEYS[e.key]);
      if (id) this._focus(id);
    } else return;
    e.preventDefault();
    e.stopPropagation(); // the page's own arrow keys (replay) stay out of the board
  }

  /** The nearest cell from `id` in a screen direction; Up/Down keep the remembered column. */
  _neighbour(id, [dx, dy]) {
    const p = this.position(id);
    if (!p) return null;
    if (dx || this.colFrom !== id) this.col = p[0];
    let best = null;
    let score = Infinity;
    for (const c of this.cells.keys()) {
      const [x, y] = this.position(c);
      const along = (x - p[0]) * dx + (y - p[1]) * dy;
      const perp = Math.abs((x - p[0]) * dy - (y - p[1]) * dx);
      if (along < 1 || perp > along * (dx ? 0.6 : 1.3)) continue;
      const s = along + (dx ? 3 * perp : Math.abs(x - this.col) * 1.01);
      if (s < score) [best, score] = [c, s];
    }
    this.colFrom = dx ? null : best;
    return best;
  }

  _over(e) {
    if (this.pointer === "touch") return; // a finger does not hover: no preview left behind a tap
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
      if (overlay) overlay.innerHTML = hint ? hintSvg(hint, id, (c) => this.position(c), this.view.board.kind, SIZE) : "";
    }
  }
}

function markSvg(kind, x, y, cls, f = 0.86) {
  return cellShape(kind, x, y, SIZE * (kind === "points" ? Math.min(f, 0.82) : f), cls);
}

function mod3(n) {
  return ((n % 3) + 3) % 3;
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

