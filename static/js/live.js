// Live games as mini boards, updated by the /ws/live socket (livefeed.js), filterable by game.

import { LiveList } from "./livefeed.js";
import { $, escapeHtml, personHtml } from "./page.js";

const params = new URLSearchParams(location.search);
$("filter-game").value = params.get("game") || "";

/** Markup: each player a link to its profile when it has an account. */
function caption(g) {
  const names = g.players.map((p) => personHtml(p.name, p.account)).join(" vs ");
  const toMove = g.players.find((p) => p.seat === g.to_move);
  return `${escapeHtml(g.title)}: ${names} · move ${g.moves}${toMove ? ` · ${escapeHtml(toMove.name || "?")} to move` : ""}`;
}

function applyFilter() {
  const want = $("filter-game").value;
  let shown = 0;
  for (const item of list.items()) {
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

const list = new LiveList($("live"), {
  caption,
  onChange: applyFilter,
  onStatus: (s) => {
    $("conn").dataset.state = s;
    $("conn").textContent = { open: "live", connecting: "connecting…", closed: "reconnecting…", gone: "closed" }[s];
  },
});
window.hexmoot = { socket: list.socket };
list.connect();
