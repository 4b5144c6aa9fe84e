// Live games as mini boards, updated by the /ws/live socket, filterable by game.

import { Board } from "./board.js";
import { ReconnectingSocket } from "./socket.js";

const $ = (id) => document.getElementById(id);
const games = new Map(); // id -> {entry, el, board}
const params = new URLSearchParams(location.search);
$("filter-game").value = params.get("game") || "";

function caption(g) {
  const names = g.players.map((p) => p.name || "?").join(" vs ");
  const toMove = g.players.find((p) => p.seat === g.to_move);
  return `${g.title}: ${names} · move ${g.moves}${toMove ? ` · ${toMove.name || "?"} to move` : ""}`;
}

function upsert(g) {
  let item = games.get(g.id);
  if (!item) {
    const el = document.createElement("a");
    el.className = "mini";
    el.href = `/games/${g.id}`;
    el.dataset.game = g.game;
    el.dataset.id = g.id;
    const holder = document.createElement("div");
    const p = document.createElement("p");
    el.append(holder, p);
    item = { el, board: new Board(holder, { labels: false, title: `${g.title} in progress` }), p };
    games.set(g.id, item);
    $("live").prepend(el);
  }
  item.entry = g;
  item.board.setView(g.view);
  item.p.textContent = caption(g);
}

function remove(id) {
  const item = games.get(id);
  if (item) item.el.remove();
  games.delete(id);
}

function applyFilter() {
  const want = $("filter-game").value;
  let shown = 0;
  for (const item of games.values()) {
    const ok = !want || item.entry.game === want;
    item.el.hidden = !ok;
    shown += ok ? 1 : 0;
  }
  $("empty").hidden = shown > 0;
  const url = new URL(location.href);
  if (want) url.searchParams.set("game", want);
  else url.searchParams.delete("game");
  history.replaceState(null, "", url);
}

$("filter-game").addEventListener("change", applyFilter);

const socket = new ReconnectingSocket("/ws/live", {
  onStatus: (s) => {
    $("conn").dataset.state = s;
    $("conn").textContent = { open: "live", connecting: "connecting…", closed: "reconnecting…", gone: "closed" }[s];
  },
  onMessage: (msg) => {
    if (msg.type === "live") {
      for (const id of [...games.keys()]) remove(id);
      for (const g of msg.games.slice().reverse()) upsert(g);
    } else if (msg.type === "live_update") {
      upsert(msg.game);
    } else if (msg.type === "live_end") {
      remove(msg.id);
    } else {
      return;
    }
    applyFilter();
  },
});
window.hexmoot = { socket };
socket.connect();
