// The statistics page (/stats/{game}): draws GET /api/stats/{game} as SVG charts, each with a
// table beside it (its text alternative), and the pie's heat map on the game's own board.
//
// No statistic is computed here: the server sends every rate with its 95 % Wilson interval and the
// number of games it rests on; this module only lays them out. The charts are plain SVG sized by
// their viewBox, their colours from the theme's CSS variables (stats.css), so both themes and a
// 390 px phone read them.

import { Board } from "./board.js";
import { hexCorners, round } from "./hexlayout.js";
import { $, api, escapeHtml as esc } from "./page.js";

const W = 360; // every chart's width in SVG units (a phone's width: text stays readable)

/** A proportion as a percentage with one decimal ("40.0 %"), or a dash. */
export function pct(x) {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}\u00a0%`;
}

/** A rate's 95 % interval in words ("11.8–76.9 %"), or a dash without games. */
export function interval(r) {
  return r.low === null ? "–" : `${(r.low * 100).toFixed(1)}–${(r.high * 100).toFixed(1)}\u00a0%`;
}

/** A colour's series class, so that a colour keeps its hue in every chart (Exxit's Red vermilion). */
const SERIES = { black: "s1", white: "s2", red: "s3" };
const seriesOf = (colour) => SERIES[colour] || "s2";
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function section(id, title, body) {
  return `<section class="stats-section panel" id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${esc(title)}</h2>${body}</section>`;
}

/** The win rates as dots with their interval as a whisker, on a 0-100 % axis. */
function rateChart(rows, label) {
  const left = 92;
  const right = 18;
  const rowH = 26;
  const top = 8;
  const h = top + rows.length * rowH + 22;
  const x = (v) => left + v * (W - left - right);
  const parts = [];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="${t === 0.5 ? "ref" : "grid"}" x1="${round(x(t))}" y1="${top - 4}" x2="${round(x(t))}" y2="${h - 18}"/>`);
    parts.push(`<text class="tick" x="${round(x(t))}" y="${h - 4}" text-anchor="middle">${t * 100}%</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH + rowH / 2;
    parts.push(`<text class="name" x="${left - 8}" y="${y}" dy="0.35em" text-anchor="end">${esc(r.name)}</text>`);
    if (r.rate === null) return;
    const cls = r.cls || `s${i % 4}`;
    parts.push(`<line class="whisker ${cls}" x1="${round(x(r.low))}" y1="${y}" x2="${round(x(r.high))}" y2="${y}"/>`);
    parts.push(`<circle class="dot ${cls}" cx="${round(x(r.rate))}" cy="${y}" r="4.5"/>`);
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${esc(label)}">${parts.join("")}</svg>`;
}

function rateTable(rows, caption) {
  const body = rows
    .map((r) => `<tr><th scope="row">${esc(r.name)}</th><td>${pct(r.rate)}</td><td>${interval(r)}</td><td>${r.wins} of ${r.games}</td></tr>`)
    .join("");
  return `<table class="stats-table"><caption>${esc(caption)}</caption><thead><tr><th scope="col"></th><th scope="col">Rate</th><th scope="col">95 % interval</th><th scope="col">Games</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The win rates per month, the first player's and each colour's: a dot per month with its
 * interval as a whisker (the series set a little apart), joined by a line. */
function monthChart(months, colours) {
  const left = 34;
  const right = 12;
  const top = 10;
  const h = 180;
  const bottom = h - 24;
  const n = months.length;
  const inner = W - left - right - 24;
  const x = (i) => left + 12 + (n === 1 ? 0.5 : i / (n - 1)) * inner;
  const y = (v) => bottom - v * (bottom - top);
  const parts = [];
  for (const t of [0, 0.5, 1]) {
    parts.push(`<line class="${t === 0.5 ? "ref" : "grid"}" x1="${left}" y1="${round(y(t))}" x2="${W - right}" y2="${round(y(t))}"/>`);
    parts.push(`<text class="tick" x="${left - 4}" y="${round(y(t))}" dy="0.35em" text-anchor="end">${t * 100}%</text>`);
  }
  const every = Math.max(1, Math.ceil(n / 4)); // four labels fit a phone's width
  months.forEach((m, i) => {
    if ((n - 1 - i) % every === 0) {
      const anchor = n > 1 && i === n - 1 ? "end" : n > 1 && i === 0 ? "start" : "middle";
      parts.push(`<text class="tick" x="${round(x(i))}" y="${h - 6}" text-anchor="${anchor}">${esc(m.month)}</text>`);
    }
  });
  const series = [(m) => m.first_player, ...colours.map((_, k) => (m) => m.colours[k])];
  const classes = ["s0", ...colours.map(seriesOf)];
  const spread = Math.min(5, inner / Math.max(n, 1) / 4);
  series.forEach((of, k) => {
    const dx = (k - (series.length - 1) / 2) * spread;
    const points = [];
    months.forEach((m, i) => {
      const r = of(m);
      if (r.rate === null) return;
      const X = round(x(i) + dx);
      parts.push(`<line class="whisker ${classes[k]}" x1="${X}" y1="${round(y(r.low))}" x2="${X}" y2="${round(y(r.high))}"/>`);
      points.push([X, round(y(r.rate))]);
    });
    if (points.length > 1) parts.push(`<polyline class="trend ${classes[k]}" points="${points.map((p) => p.join(",")).join(" ")}"/>`);
    for (const [cx, cy] of points) parts.push(`<circle class="dot ${classes[k]}" cx="${cx}" cy="${cy}" r="3"/>`);
  });
  const names = ["First player", ...colours.map(capital)];
  const label = `Win rates per month: ${months.map((m) => `${m.month}, ${m.games} games: ${names.map((name, k) => `${name} ${pct(series[k](m).rate)}`).join(", ")}`).join("; ")}`;
  const legend = names.map((name, k) => `<span class="legend-item"><span class="swatch ${classes[k]}"></span>${esc(name)}</span>`).join("");
  return `<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${esc(label)}">${parts.join("")}</svg><p class="chart-legend" aria-hidden="true">${legend}</p>`;
}

function monthTable(months, colours) {
  const head = ["Month", "Games", "First player", ...colours.map(capital)].map((c) => `<th scope="col">${esc(c)}</th>`).join("");
  const body = months
    .map((m) => {
      const cells = [m.first_player, ...m.colours].map((r) => `<td>${pct(r.rate)} <span class="muted">(${interval(r)})</span></td>`).join("");
      return `<tr><th scope="row">${esc(m.month)}</th><td>${m.games}</td>${cells}</tr>`;
    })
    .join("");
  return `<table class="stats-table"><caption>Win rates per month (95 % interval)</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Vertical bars: the length histogram. */
function histogram(bins, label) {
  const left = 30;
  const right = 6;
  const top = 8;
  const h = 160;
  const bottom = h - 22;
  const most = Math.max(1, ...bins.map((b) => b.games));
  const bw = (W - left - right) / bins.length;
  const parts = [];
  for (const t of [0, most]) {
    const y = bottom - (t / most) * (bottom - top);
    parts.push(`<line class="grid" x1="${left}" y1="${round(y)}" x2="${W - right}" y2="${round(y)}"/>`);
    parts.push(`<text class="tick" x="${left - 4}" y="${round(y)}" dy="0.35em" text-anchor="end">${t}</text>`);
  }
  const every = Math.max(1, Math.ceil(bins.length / 7));
  bins.forEach((b, i) => {
    const bh = (b.games / most) * (bottom - top);
    const words = b.start === b.end ? `${b.start} plies` : `${b.start} to ${b.end} plies`;
    parts.push(`<rect class="bar" x="${round(left + i * bw + 1)}" y="${round(bottom - bh)}" width="${round(Math.max(bw - 2, 1))}" height="${round(bh)}"><title>${esc(`${words}: ${b.games}`)}</title></rect>`);
    if (i % every === 0) parts.push(`<text class="tick" x="${round(left + i * bw + bw / 2)}" y="${h - 6}" text-anchor="middle">${b.start}</text>`);
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${esc(label)}">${parts.join("")}</svg>`;
}

/** Horizontal bars with their label and count: the reasons games ended. */
function hbars(rows, label) {
  const left = 100;
  const right = 40;
  const rowH = 24;
  const h = rows.length * rowH + 6;
  const most = Math.max(1, ...rows.map((r) => r.games));
  const parts = rows.map((r, i) => {
    const y = 3 + i * rowH;
    const w = (r.games / most) * (W - left - right);
    return (
      `<text class="name" x="${left - 8}" y="${y + rowH / 2}" dy="0.35em" text-anchor="end">${esc(r.reason)}</text>` +
      `<rect class="bar" x="${left}" y="${y + 4}" width="${round(Math.max(w, 1))}" height="${rowH - 8}"/>` +
      `<text class="value" x="${round(left + w + 5)}" y="${y + rowH / 2}" dy="0.35em">${r.games}</text>`
    );
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${esc(label)}">${parts.join("")}</svg>`;
}

/** The heat map's colour of a share from 0 to 1: blue, through a pale middle, to vermilion. */
export function heat(v) {
  const stops = [
    [0, [0, 114, 178]],
    [0.5, [190, 190, 190]], // grey, apart from the board's own beige and dark tones
    [1, [213, 94, 0]],
  ];
  const [a, b] = v <= 0.5 ? [stops[0], stops[1]] : [stops[1], stops[2]];
  const t = (v - a[0]) / (b[0] - a[0]);
  const c = a[1].map((x, i) => Math.round(x + (b[1][i] - x) * t));
  return `rgb(${c.join(",")})`;
}

/** Colour the board's cells that first moves placed on (drawn over the board the game pages use). */
function drawHeat(el, data) {
  const board = new Board(el, { labels: true, maxScale: 4, title: `${data.title} start position, coloured by ${data.has_pie ? "how often seat 2 swapped" : "the first player's score"} after a first move there` });
  board.setView(data.board);
  const kind = data.board.board.kind;
  // Under the pieces and the cell names, over the cells: the board still reads through the colours.
  const under = board.svg.querySelector(".marks");
  const size = board.size;
  const shapes = [];
  for (const c of data.cells) {
    const at = board.position(c.cell);
    const share = data.has_pie ? c.swapped.rate : c.score;
    if (!at || share === null) continue;
    const words = data.has_pie
      ? `${c.cell}: ${plural(c.games, "game")}, seat 2 swapped in ${pct(share)} (${interval(c.swapped)})`
      : `${c.cell}: ${plural(c.games, "game")}, first player's score ${pct(share)}`;
    const attrs = `data-cell="${esc(c.cell)}" fill="${heat(share)}"`;
    const shape =
      kind === "points"
        ? `<circle class="heat" ${attrs} cx="${round(at[0])}" cy="${round(at[1])}" r="${round(size * 0.55)}"><title>${esc(words)}</title></circle>`
        : `<polygon class="heat" ${attrs} points="${hexCorners(at[0], at[1], size * 0.92)}"><title>${esc(words)}</title></polygon>`;
    shapes.push(shape);
  }
  under.insertAdjacentHTML("afterbegin", shapes.join(""));
}

function heatLegend(hasPie) {
  const what = hasPie ? "Swapped" : "Score";
  return `<div class="heat-legend" aria-hidden="true"><span>${what}: 0\u00a0%</span><span class="heat-scale"></span><span>100\u00a0%</span></div>`;
}

function firstMoveTable(data) {
  const fm = data.first_moves;
  const pieHead = data.has_pie ? `<th scope="col">Swapped</th><th scope="col">Seat 2 won after a swap</th>` : "";
  const body = fm.moves
    .map((m) => {
      const pie = data.has_pie && m.pie ? `<td>${pct(m.pie.swapped.rate)} <span class="muted">(${m.pie.swapped.swaps} of ${m.pie.swapped.games})</span></td><td>${pct(m.pie.taken.rate)} <span class="muted">of ${m.pie.taken.games}</span></td>` : data.has_pie ? "<td>–</td><td>–</td>" : "";
      return `<tr><th scope="row"><a href="/archive?game=${encodeURIComponent(data.game)}&amp;options=${encodeURIComponent(data.options_key)}&amp;first_move=${encodeURIComponent(m.move)}">${esc(m.move)}</a></th><td>${m.games}</td><td>${pct(m.games / fm.games)}</td><td>${pct(m.score)}</td>${pie}</tr>`;
    })
    .join("");
  const more = fm.distinct > fm.moves.length ? ` The ${fm.moves.length} most played of ${fm.distinct}.` : "";
  return (
    `<p class="muted">${plural(fm.games, "game")}, ${plural(fm.distinct, "different first move")}.${more} Score: the first player's (a win 1, a draw ½).</p>` +
    `<div class="table-scroll"><table class="stats-table" id="first-moves"><caption>Each first move</caption><thead><tr><th scope="col">Move</th><th scope="col">Games</th><th scope="col">Share</th><th scope="col">Score</th>${pieHead}</tr></thead><tbody>${body}</tbody></table></div>`
  );
}

/** The whole page from one answer. */
export function render(root, data) {
  if (!data.games) {
    root.innerHTML = `<p class="panel" id="stats-games">No finished game of ${esc(data.title)} with these options yet: 0 games.</p>`;
    return;
  }
  const rates = [{ name: "First player", cls: "s0", ...data.first_player }, ...data.colours.map((c) => ({ name: capital(c.colour), cls: seriesOf(c.colour), ...c }))];
  const coloured = data.colours.length ? data.colours[0].games : 0;
  const out = [];
  out.push(`<p class="stats-total" id="stats-games"><strong>${plural(data.games, "finished game")}</strong> of ${esc(data.title)} (${esc(data.options_key)}).</p>`);
  out.push(
    section(
      "stats-wins",
      "Who wins",
      `<p class="muted">The first player (who makes the first move${data.has_pie ? ", the setup" : ""}): ${plural(data.first_player.games, "game")}, ${plural(data.first_player.draws, "draw")}. The colours: the ${plural(coloured, "game")} whose colours were given out.</p>` +
        rateChart(rates, `Win rates: ${rates.map((r) => `${r.name} ${pct(r.rate)}, 95 % interval ${interval(r)}, of ${r.games}`).join("; ")}`) +
        rateTable(rates, "Win rates with their 95 % interval") +
        `<h3>Per month</h3>` +
        monthChart(data.months, data.colours.map((c) => c.colour)) +
        `<details><summary>The months as a table</summary><div class="table-scroll">${monthTable(data.months, data.colours.map((c) => c.colour))}</div></details>`,
    ),
  );
  if (data.pie) {
    const p = data.pie;
    const rows = [
      { name: "Swapped", ...p.swapped, wins: p.swapped.swaps },
      { name: "Won, swap", ...p.taken },
      { name: "Won, kept", ...p.kept },
    ];
    out.push(
      section(
        "stats-pie",
        "The pie",
        `<p class="muted">How often seat 2 swapped (took the colour the setup was made for), of the ${plural(p.swapped.games, "game")} that reached the choice, and how often seat 2 then won after each choice.</p>` +
          rateChart(rows, `The pie: ${rows.map((r) => `${r.name} ${pct(r.rate)}, 95 % interval ${interval(r)}, of ${r.games}`).join("; ")}`) +
          rateTable(rows, "The pie, with 95 % intervals"),
      ),
    );
  }
  out.push(
    section(
      "stats-heat",
      data.has_pie ? "The pie per setup, on the board" : "The first move, on the board",
      `<p class="muted">Each cell a first move ${data.has_pie ? "placed on" : "went to"}, coloured by ${data.has_pie ? "how often seat 2 swapped after it (a setup of several cells counts for each)" : "the first player's score after it"}. ${plural(data.first_moves.games, "game")}.</p>` +
        `<div class="heat-board" id="heat-board"></div>` +
        heatLegend(data.has_pie),
    ),
  );
  out.push(section("stats-first", "First moves", firstMoveTable(data)));
  const L = data.lengths;
  out.push(
    section(
      "stats-lengths",
      "How long games last",
      `<p class="muted">${plural(L.games, "game")}; plies (moves of either side): mean ${L.mean === null ? "–" : L.mean.toFixed(1)}, median ${L.median === null ? "–" : L.median}.</p>` +
        histogram(L.bins, `Game lengths: ${L.bins.map((b) => `${b.start}${b.end !== b.start ? `–${b.end}` : ""} plies: ${b.games}`).join("; ")}`) +
        `<details><summary>The lengths as a table</summary><table class="stats-table"><thead><tr><th scope="col">Plies</th><th scope="col">Games</th></tr></thead><tbody>${L.bins.map((b) => `<tr><td>${b.start}${b.end !== b.start ? `–${b.end}` : ""}</td><td>${b.games}</td></tr>`).join("")}</tbody></table></details>`,
    ),
  );
  const R = data.reasons;
  out.push(
    section(
      "stats-reasons",
      "How games ended",
      `<p class="muted">${plural(R.games, "game")}.</p>` +
        hbars(R.reasons, `Reasons games ended: ${R.reasons.map((r) => `${r.reason} ${r.games}`).join("; ")}`) +
        `<table class="stats-table"><thead><tr><th scope="col">Reason</th><th scope="col">Games</th><th scope="col">Share</th></tr></thead><tbody>${R.reasons.map((r) => `<tr><th scope="row">${esc(r.reason)}</th><td>${r.games}</td><td>${pct(r.games / R.games)}</td></tr>`).join("")}</tbody></table>`,
    ),
  );
  root.innerHTML = out.join("");
  drawHeat($("heat-board"), data);
}

async function main() {
  const root = $("stats");
  const { game, options, source } = root.dataset;
  for (const id of ["stats-options", "stats-source"]) $(id).addEventListener("change", () => $("stats-form").submit());
  const answer = await api("GET", `/api/stats/${encodeURIComponent(game)}?options=${encodeURIComponent(options)}&source=${encodeURIComponent(source)}`);
  if (!answer.ok) {
    root.innerHTML = `<p class="panel error" role="alert">${esc(answer.error ? answer.error.message : "The statistics could not be loaded.")}</p>`;
    return;
  }
  render(root, answer.data);
}

main();
