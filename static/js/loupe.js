// A magnifier for fingers: on a touch screen, when the board's cells are narrower than a fingertip,
// a tap on the board does not play; it opens a loupe, a magnified copy of the board around the tap
// (the board's own SVG, so it looks the same, with each cell's name), where cells are wide enough
// for a finger and a tap chooses the cell. The loupe stays open while the move wants more clicks
// (following the board as the steps change) and closes once it is complete; a tap elsewhere on
// the board moves it there; its close button, a tap outside both or Escape closes it. Nothing is
// ever played by the tap that opens it.

import { SQRT3, round } from "./hexlayout.js";
import { escapeHtml as esc } from "./page.js";

/** Cells narrower than this (CSS px, flat side to flat side) open the loupe on a touch. */
export const FINGER = 40;
/** The width of a cell in the loupe, in CSS px. */
const MAGNIFIED = 64;

export class Loupe {
  /** @param board the Board it magnifies (its `svg`, `size`, `steps`, `_play(id)`) */
  constructor(board) {
    this.board = board;
    this.el = null;
    this.at = null; // the tap's point in the board's SVG units
    document.addEventListener("pointerdown", (e) => {
      if (this.el && !this.el.contains(e.target) && !board.svg.contains(e.target)) this.close();
    });
    document.addEventListener("keydown", (e) => {
      if (this.el && e.key === "Escape") {
        e.stopPropagation();
        this.close();
      }
    }, true);
  }

  get open() {
    return !!this.el;
  }

  /** Whether a tap of this kind on the board should open the loupe instead of playing. */
  wanted(pointerType) {
    if (pointerType !== "touch") return false;
    const b = this.board;
    const w = b.svg.getBoundingClientRect().width;
    return !!b.vbw && (w / b.vbw) * b.size * SQRT3 < FINGER;
  }

  /** Open (or move) the loupe around the screen point (x, y). */
  show(x, y) {
    const ctm = this.board.svg.getScreenCTM();
    if (!ctm) return;
    const p = new DOMPoint(x, y).matrixTransform(ctm.inverse());
    this.at = [p.x, p.y];
    this.screenY = y;
    if (!this.el) this._build();
    this.refresh();
  }

  /** Draw the loupe again from the board (after new steps); closes once no click is wanted. */
  refresh() {
    if (!this.el) return;
    const b = this.board;
    if (b.steps && !b.steps.next.length) {
      this.close();
      return;
    }
    const w = Math.min(window.innerWidth - 16, 380);
    const h = Math.round(Math.min(w * 0.8, window.innerHeight * 0.45));
    const unit = (b.size * SQRT3) / MAGNIFIED; // SVG units per CSS px
    const [cx, cy] = this.at;
    const svg = this.svg;
    svg.setAttribute("viewBox", `${round(cx - (w * unit) / 2)} ${round(cy - (h * unit) / 2)} ${round(w * unit)} ${round(h * unit)}`);
    svg.setAttribute("class", `${b.svg.getAttribute("class").replace(/\b(tiny|small)\b/g, "")} loupe-svg`);
    svg.style.width = `${w}px`;
    svg.style.height = `${h}px`;
    // the board's own drawing; its cells are plain targets here (the board keeps the keyboard grid)
    svg.innerHTML = b.svg.innerHTML;
    svg.querySelector(".overlay")?.replaceChildren(); // no hover preview in the magnified copy
    for (const hit of svg.querySelectorAll(".hit")) {
      for (const a of ["tabindex", "role", "aria-label"]) hit.removeAttribute(a);
    }
    for (const g of svg.querySelectorAll("[role]")) g.removeAttribute("role");
    // where the finger was, and every cell's name, so that the magnified part is easy to place
    const names = [...b.cells.keys()].map((id) => {
      const [x, y] = b.position(id);
      return `<text class="loupe-name" x="${round(x)}" y="${round(y + b.size * 0.62)}" dy="0.35em">${esc(id)}</text>`;
    });
    svg.querySelector(".hits").insertAdjacentHTML("beforebegin", `<g class="loupe-names">${names.join("")}<circle class="loupe-at" cx="${round(cx)}" cy="${round(cy)}" r="${round(b.size * 0.9)}"/></g>`);
    const top = this.screenY > window.innerHeight / 2 ? this.screenY - h - 56 : this.screenY + 56;
    this.el.style.top = `${Math.round(Math.max(8, Math.min(top, window.innerHeight - h - 60)))}px`;
    this.el.style.left = `${Math.round((window.innerWidth - w) / 2 - 6)}px`;
  }

  close() {
    if (!this.el) return;
    this.el.remove();
    this.el = null;
  }

  _build() {
    const el = document.createElement("div");
    el.className = "loupe";
    el.setAttribute("role", "dialog");
    el.setAttribute("aria-label", "Magnified board: tap a cell");
    el.innerHTML =
      `<div class="loupe-bar"><span>Tap a cell</span><button type="button" class="loupe-close" aria-label="Close the magnifier">\u00d7</button></div>` +
      `<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false"></svg>`;
    this.svg = el.querySelector("svg");
    el.querySelector(".loupe-close").addEventListener("click", () => this.close());
    this.svg.addEventListener("click", (e) => {
      const t = e.target.closest ? e.target.closest("[data-id]") : null;
      const id = t && t.getAttribute("data-id");
      const b = this.board;
      if (!id || !b.steps || !b.steps.next.includes(id)) return; // a cell not offered: keep looking
      this.at = b.position(id); // the next click is likely near: keep this part in view
      b._play(id);
    });
    document.body.appendChild(el);
    this.el = el;
  }
}
