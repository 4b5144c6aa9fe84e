// The opening explorer (docs/protocol.md, "GET /api/explorer/{game}"): the position after the
// moves in the URL, drawn by the game's Board, and every continuation finished games played from
// it as a table (games, results by colour, average length). Clicking a row, or a cell of the
// board where continuations start, walks the tree; Back and the path walk back. The server does
// every rule: the moves are the texts it sends, and the board offers only their first cells.

import { Board } from "./board.js";
import { $, api, escapeHtml } from "./page.js";
import { cap } from "./results.js";
import { colourClass, colourName } from "./stacks.js";

const DEPTH = 24;
const root = $("explorer");
const slug = root.dataset.game;
const catalogue = JSON.parse(root.dataset.catalogue);
const game = catalogue.find((g) => g.slug === slug);
const S = { options: "", moves: [], node: null };

const board = new Board($("x-board"), { onToken: (id) => clicked(id), title: `${game.title}, opening explorer` });

/** Every option set of the game, as the explorer and the archive write it ("size=5,variant=dense"). */
function optionSets() {
  let sets = [[]];
  for (const o of game.options) sets = sets.flatMap((s) => o.choices.map((c) => [...s, [o.name, c]]));
  return sets.map((s) => s.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(","));
}

function defaults() {
  return game.options.map((o) => [o.name, o.default]).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(",");
}

function fromUrl() {
  const params = new URLSearchParams(location.search);
  const sets = optionSets();
  const asked = params.get("options") || "";
  S.options = sets.includes(asked) ? asked : defaults();
  S.moves = (params.get("moves") || "").split(/\s+/).filter(Boolean);
  const select = $("x-options");
  select.innerHTML = sets.map((s) => `<option value="${escapeHtml(s)}">${escapeHtml(s.replace(/,/g, ", ").replace(/=/g, " ") || "standard")}</option>`).join("");
  select.value = S.options;
  select.disabled = sets.length < 2;
}

function href(moves) {
  const params = new URLSearchParams({ options: S.options });
  if (moves.length) params.set("moves", moves.join(" "));
  return `/explorer/${encodeURIComponent(slug)}?${params}`;
}

/** Walk to ``moves``: ask the server, draw the node, and (``how``) record it in the history. */
async function go(moves, how = "pushState") {
  const res = await api("GET", `/api/explorer/${encodeURIComponent(slug)}?${new URLSearchParams({ options: S.options, moves: moves.join(" ") })}`);
  if (!res.ok) {
    const err = res.error || { message: "The explorer did not answer." };
    $("x-error").textContent = err.ply ? `Move ${err.ply}: ${err.message}` : err.message;
    $("x-error").hidden = false;
    return false;
  }
  $("x-error").hidden = true;
  S.node = res.data;
  S.moves = res.data.moves;
  if (how) history[how](null, "", href(S.moves));
  render();
  return true;
}

function percent(n, total) {
  return total ? Math.round((100 * n) / total) : 0;
}

/** The results of ``c`` as a bar: the first colour's wins, draws, the second colour's wins. */
function bar(c) {
  const [first, second] = S.node.colours;
  const parts = [
    [c.first_wins, `pc-${colourClass(first)}`, `${cap(colourName(first))} won`],
    [c.draws, "draw", "drawn"],
    [c.second_wins, `pc-${colourClass(second)}`, `${cap(colourName(second))} won`],
  ];
  const words = parts.map(([n, , what]) => `${percent(n, c.games)}% ${what}`).join(", ");
  const spans = parts
    .filter(([n]) => n > 0)
    .map(([n, cls]) => `<span class="result-part ${cls}" data-share="${(100 * n) / c.games}">${percent(n, c.games) >= 15 ? `${percent(n, c.games)}%` : ""}</span>`)
    .join("");
  return `<div class="result-bar" role="img" aria-label="${escapeHtml(words)}" title="${escapeHtml(words)}">${spans}</div>`;
}

function length(value) {
  return value === null ? "–" : value.toFixed(1);
}

function render() {
  const n = S.node;
  board.setView(n.view);
  // The cells where continuations start, once the board knows the new view's cells.
  board.setSteps({ prefix: [], next: starts(), hints: {}, changes: {}, prompt: "" });
  const path = [`<li><a href="${escapeHtml(href([]))}" data-ply="0">Start</a></li>`];
  n.moves.forEach((m, i) => path.push(`<li><a href="${escapeHtml(href(n.moves.slice(0, i + 1)))}" data-ply="${i + 1}">${escapeHtml(m)}</a></li>`));
  $("x-path").innerHTML = path.join("");
  $("x-back").disabled = !n.moves.length;
  $("x-start").disabled = !n.moves.length;
  const deep = n.moves.length >= DEPTH ? ` The explorer stops at move ${DEPTH}.` : "";
  $("x-summary").textContent = n.games
    ? `${n.games} finished ${n.games === 1 ? "game" : "games"} reached this position; on average they lasted ${length(n.average_length)} moves.${deep}`
    : `No finished game reached this position yet.${deep}`;
  $("x-moves").innerHTML = n.continuations
    .map(
      (c) =>
        `<tr><th scope="row"><button type="button" class="link" data-move="${escapeHtml(c.move)}">${escapeHtml(c.move)}</button></th>` +
        `<td class="num">${c.games}</td><td>${bar(c)}</td><td class="num">${length(c.average_length)}</td></tr>`,
    )
    .join("");
  // Widths through the CSSOM: the site's Content-Security-Policy refuses style attributes.
  for (const part of $("x-moves").querySelectorAll("[data-share]")) part.style.width = `${part.dataset.share}%`;
  $("x-table").hidden = !n.continuations.length;
  $("x-empty").hidden = !!n.continuations.length || !n.games;
  const archive = new URLSearchParams({ game: slug, options: S.options, position: n.position });
  $("x-games").href = `/archive?${archive}`;
  $("x-games").parentElement.hidden = !n.games;
  $("x-recent").innerHTML = n.recent
    .map((g) => `<li><a href="/games/${encodeURIComponent(g.id)}">${escapeHtml(g.players.map((p) => p || "?").join(" – "))}</a> <span class="muted">${escapeHtml(outcome(g))}, ${g.length} moves</span></li>`)
    .join("");
  $("x-search-text").value = n.moves.join(" ");
}

function outcome(g) {
  if (g.result === "draw") return "drawn";
  return g.winner_colour ? `${cap(colourName(g.winner_colour))} won` : `seat ${g.result} won`;
}

/** The first cell named in a move text (a board's "e5", a field's "1,-1"), if the board has it. */
function firstCell(text) {
  const m = /-?\d+,-?\d+|[a-z]\d+/.exec(text);
  return m && board.cells && board.cells.has(m[0]) ? m[0] : null;
}

function starts() {
  return S.node ? [...new Set(S.node.continuations.map((c) => firstCell(c.move)).filter(Boolean))] : [];
}

/** A board click: the one continuation starting on that cell is played; with several, their
 *  rows are marked and the first takes the focus. */
function clicked(id) {
  const found = S.node.continuations.filter((c) => firstCell(c.move) === id);
  if (found.length === 1) {
    go([...S.moves, found[0].move]);
    return;
  }
  const rows = [...$("x-moves").querySelectorAll("button[data-move]")];
  for (const b of rows) b.closest("tr").classList.toggle("marked", found.some((c) => c.move === b.dataset.move));
  const first = rows.find((b) => found.some((c) => c.move === b.dataset.move));
  if (first) first.focus();
}

$("x-moves").addEventListener("click", (e) => {
  const b = e.target.closest("button[data-move]");
  if (b) go([...S.moves, b.dataset.move]);
});
$("x-path").addEventListener("click", (e) => {
  const a = e.target.closest("a[data-ply]");
  if (!a) return;
  e.preventDefault();
  go(S.moves.slice(0, Number(a.dataset.ply)));
});
$("x-back").addEventListener("click", () => go(S.moves.slice(0, -1)));
$("x-start").addEventListener("click", () => go([]));
$("x-game").addEventListener("change", (e) => {
  location.href = `/explorer/${encodeURIComponent(e.target.value)}`;
});
$("x-options").addEventListener("change", (e) => {
  S.options = e.target.value;
  go([]);
});
$("x-search-form").addEventListener("submit", (e) => {
  e.preventDefault();
  // A record's move list: texts separated by blanks or new lines; "1." and the like are skipped.
  const moves = $("x-search-text").value.split(/\s+/).filter((t) => t && !/^\d+\.+$/.test(t));
  go(moves);
});
addEventListener("popstate", () => {
  fromUrl();
  go(S.moves, null);
});

fromUrl();
go(S.moves, "replaceState");
