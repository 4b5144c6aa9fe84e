// The game page's move list and its review: every ply a button, the result as the list's last
// line, and going back through earlier positions (buttons, slider, arrow keys, a permalink per
// ply) with the views from the server (replay.js's History).

import { $, escapeHtml } from "./page.js";
import { moveTable, setupPlies } from "./replay.js";
import { cap, resultLine } from "./results.js";
import { colourClass, colourName } from "./stacks.js";
import { playerName } from "./gameview.js";

export class Review {
  /** ctx: { S, board, history, table, token, gameId, showError, onLive(), onReview(view) } */
  constructor(ctx) {
    this.ctx = ctx;
    this.S = ctx.S;
  }

  current() {
    return this.S.review === null ? this.S.moves.length : this.S.review;
  }

  seatOf(colour) {
    const cs = (this.S.view && this.S.view.colours) || {};
    return [1, 2].find((seat) => cs[String(seat)] === colour) || null;
  }

  /** The colour that moves first after the opening: from the live view's turn when the game is
   *  on, else from the view after the opening (asked for once). */
  firstColour() {
    const S = this.S;
    if (S.firstColour) return S.firstColour;
    const v = S.view;
    if (!v || !v.colours) return null;
    const setup = setupPlies(S.moves, v);
    if (v.phase === "play" && v.to_move) {
      const c = v.colours[String(v.to_move)];
      const other = Object.values(v.colours).find((x) => x && x !== c);
      return (S.moves.length - setup) % 2 === 0 ? c : other;
    }
    if (v.phase === "over" && S.moves.length > setup && !S.askedFirst) {
      S.askedFirst = true;
      this.ctx.history.at(setup, S.game, S.moves.slice()).then((w) => {
        if (w && w.to_move && w.colours) {
          S.firstColour = w.colours[String(w.to_move)];
          this.render();
        }
      }, () => {});
    }
    return null;
  }

  render() {
    const S = this.S;
    const current = this.current();
    const t = moveTable(S.moves, S.view, this.firstColour());
    const name = (seat) => playerName(S, seat);
    const btn = ([ply, text]) =>
      `<button type="button" data-ply="${ply}"${ply === current ? ' aria-current="true"' : ""}>${escapeHtml(text)}</button>`;
    const head = t.columns.map((c) => {
      const seat = this.seatOf(c);
      return `<th scope="col"><span class="swatch pc-${colourClass(c)}"></span> ${cap(colourName(c))}${seat ? ` <span class="who">${escapeHtml(name(seat))}</span>` : ""}</th>`;
    });
    const rows = t.rows.map((row) => {
      const cells = row.wide ? [`<td colspan="2">${btn(row.plies[0])}</td>`] : [0, 1].map((i) => `<td>${row.plies[i] ? btn(row.plies[i]) : ""}</td>`);
      return `<tr><th scope="row">${escapeHtml(row.label)}</th>${cells.join("")}</tr>`;
    });
    const result = S.game.result ? resultLine(S.game.result, S.game.game, name, t.columns) : "";
    if (result) rows.push(`<tr class="result-row"><td colspan="3">${escapeHtml(result)}</td></tr>`);
    exploreLink(S, current);
    const el = $("moves");
    el.innerHTML =
      `<table class="move-table"><caption class="visually-hidden">Moves</caption>` +
      `<thead><tr><th scope="col"><span class="visually-hidden">Move</span></th>${head.join("") || '<th scope="col" colspan="2"></th>'}</tr></thead>` +
      `<tbody>${rows.join("")}</tbody></table>`;
    const slider = $("ply-slider");
    slider.max = String(S.moves.length);
    slider.value = String(current);
    const cur = el.querySelector('[aria-current="true"]');
    if (cur) {
      const box = el.getBoundingClientRect();
      const r = cur.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) el.scrollTop += r.top - box.top - (el.clientHeight - r.height) / 2;
    }
    if (result && S.review === null) el.scrollTop = el.scrollHeight;
    S.plyLabel = t.label;
  }

  async show(ply) {
    const S = this.S;
    if (!S.game) return;
    const last = S.moves.length;
    const p = Math.max(0, Math.min(last, ply));
    if (p === last) {
      this.live();
      return;
    }
    S.review = p;
    setPlyParam(p); // at once: the view of a ply not seen yet comes from the server
    this.render();
    this.ctx.onReview(null);
    $("review-banner").hidden = false;
    $("review-text").textContent = `Position after ${S.plyLabel(p)} (ply ${p} of ${last}).`;
    $("back-to-game").textContent = S.game.status === "active" ? "Back to the game" : "Last position";
    try {
      const view = await this.ctx.history.at(p, S.game, S.moves.slice());
      if (S.review !== p) return;
      this.ctx.onReview(view);
      const table = this.ctx.table;
      if (table.table && table.table.clock) table.review(p, await this.plyClocks());
    } catch (err) {
      this.ctx.showError(err.message);
    }
  }

  /** Each ply's clock, from the game's record (fetched once per position of the move list). */
  async plyClocks() {
    const S = this.S;
    if (!S.plyClocks) {
      const token = this.ctx.token;
      const res = await fetch(`/games/${this.ctx.gameId}/record.json${token ? `?token=${encodeURIComponent(token)}` : ""}`);
      const record = res.ok ? await res.json() : {};
      S.plyClocks = record.clocks || [];
    }
    return S.plyClocks;
  }

  live() {
    this.S.review = null;
    this.ctx.table.review(null);
    $("review-banner").hidden = true;
    setPlyParam(null);
    this.render();
    this.ctx.onLive();
  }

  wire() {
    $("moves").addEventListener("click", (e) => {
      const b = e.target.closest("[data-ply]");
      if (b) this.show(Number(b.dataset.ply));
    });
    $("back-to-game").addEventListener("click", () => this.live());
    $("nav-first").addEventListener("click", () => this.show(0));
    $("nav-back").addEventListener("click", () => this.show(this.current() - 1));
    $("nav-forward").addEventListener("click", () => this.show(this.current() + 1));
    $("nav-last").addEventListener("click", () => this.live());
    $("ply-slider").addEventListener("input", (e) => this.show(Number(e.target.value)));
  }
}

function setPlyParam(ply) {
  const url = new URL(location.href);
  if (ply === null) url.searchParams.delete("ply");
  else url.searchParams.set("ply", String(ply));
  window.history.replaceState(null, "", url);
}

/** The replay's "Explore from here": the opening explorer at the position shown, within its depth
 *  (the first 24 plies). */
function exploreLink(S, ply) {
  const link = $("explore");
  if (!link) return;
  link.hidden = !S.game.game || ply > 24;
  const options = Object.entries(S.game.options || {}).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(",");
  const params = new URLSearchParams({ options });
  if (ply) params.set("moves", S.moves.slice(0, ply).join(" "));
  link.href = `/explorer/${encodeURIComponent(S.game.game)}?${params}`;
}
