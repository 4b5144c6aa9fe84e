// The archive: the server's filters, sorts and cursor paging (docs/protocol.md, "GET /api/archive"),
// each game a card with a mini board of its final position, drawn by the same Board as /live.
// The list comes first; the boards follow in one request (GET /api/archive/boards), so a page of
// long games is readable at once. Every filter, the sort and the page live in the URL.

import { Board } from "./board.js";
import { $, escapeHtml, personHtml } from "./page.js";
import { resultText } from "./results.js";

const form = $("filters");
let catalogue = [];

/** Every option set of a game, as the options filter writes it ("size=5,variant=dense"). */
function optionSets(game) {
  let sets = [[]];
  for (const o of game.options) sets = sets.flatMap((s) => o.choices.map((c) => [...s, [o.name, c]]));
  return sets.map((s) => s.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(","));
}

function fillOptions(value) {
  const select = $("f-options");
  const game = catalogue.find((g) => g.slug === $("f-game").value);
  const sets = game ? optionSets(game) : [];
  select.innerHTML = '<option value="">Any</option>' + sets.map((s) => `<option value="${escapeHtml(s)}">${escapeHtml(s.replace(/,/g, ", ").replace(/=/g, " "))}</option>`).join("");
  select.disabled = !sets.length;
  select.value = sets.includes(value) ? value : "";
}

// The URL holds the filters, the cursor and the page number, so any page can be bookmarked or
// shared; each new page is a history entry (Back returns to the previous one).
function query(cursor, page) {
  const params = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (String(v).trim()) params.set(k, String(v).trim());
  if (cursor) {
    params.set("cursor", cursor);
    params.set("page", String(page));
  }
  return params;
}

function fromUrl() {
  const params = new URLSearchParams(location.search);
  for (const el of form.elements) if (el.name) el.value = params.get(el.name) || "";
  fillOptions(params.get("options") || "");
  const more = ["result", "colour", "pie", "first_move", "position", "min_moves", "max_moves", "from", "to", "rated", "time", "imported", "bot"];
  if (more.some((k) => params.get(k))) $("more-filters").open = true;
  const page = Number(params.get("page"));
  return { cursor: params.get("cursor"), page: Number.isInteger(page) && page > 1 ? page : 2 };
}

const day = (ms) => new Date(ms).toISOString().slice(0, 10);

/** The card of one game: its board (filled later), people, result in words and facts. */
function card(g) {
  const el = document.createElement("article");
  el.className = "mini archive-entry";
  el.dataset.game = g.id;
  el.dataset.slug = g.game;
  const link = document.createElement("a");
  link.className = "mini-board";
  link.href = `/games/${encodeURIComponent(g.id)}?ply=0`;
  const name = (seat) => (g.players.find((p) => p.seat === seat) || {}).name || `seat ${seat}`;
  const options = Object.entries(g.options).map(([k, v]) => `${k} ${v}`).join(", ");
  const facts = [
    `${g.moves} move${g.moves === 1 ? "" : "s"}`,
    `<time datetime="${new Date(g.finished_at).toISOString()}">${day(g.finished_at)}</time>`,
    escapeHtml(g.time),
    g.rated ? "rated" : "casual",
  ];
  if (g.pie_taken !== null) facts.push(g.pie_taken ? "pie taken" : "pie declined");
  if (g.bot) facts.push("against the computer");
  if (g.imported) facts.push(g.imported_by ? `imported by ${escapeHtml(g.imported_by)}` : "imported");
  const body = document.createElement("div");
  body.innerHTML = `<p><strong>${escapeHtml(g.title)}</strong> <span class="muted">${escapeHtml(options)}</span></p>
    <p>${g.players.map((p) => personHtml(p.name, p.account)).join(" vs ")}</p>
    <p class="archive-result">${escapeHtml(resultText(g.result, g.game, name))}</p>
    <p class="muted archive-facts">${facts.join(" · ")}</p>`;
  el.append(link, body);
  return { el, link };
}

async function drawBoards(cards, current) {
  if (!cards.length) return;
  const params = new URLSearchParams(cards.map(({ id }) => ["id", id]));
  const res = await fetch(`/api/archive/boards?${params}`);
  if (!res.ok || !current()) return; // the list stands without its boards
  const { boards } = await res.json();
  for (const { id, title, link } of cards) {
    if (!boards[id]) continue;
    new Board(link, { labels: false, title: `${title}, final position` }).setView(boards[id]);
    link.closest(".archive-entry").dataset.board = "drawn";
  }
}

// Each load is numbered: an answer that arrives after a newer load began is dropped, and the list
// says it is busy (aria-busy) until the newest load has drawn its boards.
let loads = 0;

async function load(cursor, page, how) {
  const mine = ++loads;
  $("rows").setAttribute("aria-busy", "true");
  try {
    await show(cursor, page, how, () => mine === loads);
  } finally {
    if (mine === loads) $("rows").removeAttribute("aria-busy");
  }
}

async function show(cursor, page, how, current) {
  $("error").textContent = "";
  const params = query(cursor, page);
  if (how) history[how](null, "", `${location.pathname}${params.toString() ? `?${params}` : ""}`);
  params.delete("page");
  const res = await fetch(`/api/archive?${params}`);
  const body = await res.json();
  if (!current()) return;
  if (!res.ok) {
    $("error").textContent = body.error ? body.error.message : `error ${res.status}`;
    $("rows").replaceChildren();
    return;
  }
  const cards = body.games.map((g) => ({ ...card(g), id: g.id, title: g.title }));
  $("rows").replaceChildren(...cards.map((c) => c.el));
  $("empty").hidden = body.games.length > 0;
  const n = cursor ? page : 1;
  $("page-no").textContent = n > 1 || body.next_cursor ? `Page ${n}` : "";
  $("more").hidden = !body.next_cursor;
  $("more").onclick = () => load(body.next_cursor, n + 1, "pushState");
  $("first-page").hidden = !cursor;
  $("first-page").onclick = () => load(null, 1, "pushState");
  await drawBoards(cards, current);
}

/** Usernames starting with what is typed, offered under the account fields. */
let asked = "";
async function suggest(e) {
  const prefix = e.target.value.trim();
  if (!prefix || prefix === asked) return;
  asked = prefix;
  const res = await fetch(`/api/archive/players?${new URLSearchParams({ prefix })}`);
  if (!res.ok) return;
  const { players } = await res.json();
  $("accounts").innerHTML = players.map((p) => `<option value="${escapeHtml(p.username)}">${escapeHtml(p.name)}</option>`).join("");
}

$("f-account").addEventListener("input", suggest);
$("f-opponent").addEventListener("input", suggest);
$("f-game").addEventListener("change", () => fillOptions(""));
form.addEventListener("submit", (e) => {
  e.preventDefault();
  load(null, 1, "pushState");
});
window.addEventListener("popstate", () => {
  const { cursor, page } = fromUrl();
  load(cursor, page);
});

const res = await fetch("/api/catalogue");
catalogue = res.ok ? (await res.json()).games : [];
const first = fromUrl();
load(first.cursor, first.page, "replaceState");
