// What the game page shows of a game besides the board and the move list: the head (title, rated,
// rules), both players' bars (name, a link for an account, rating, colour, score, to move), the
// status line, the result (beside the board, and in a bar at the bottom of the window when it
// arrives), the invitation, and the figures of the game that belong to nobody.

import { $, escapeHtml, personHtml } from "./page.js";
import { cap, resultText } from "./results.js";
import { colourClass, colourName } from "./stacks.js";

/** The seat whose bar is at the bottom of the board: your own, else seat 1 (flipped: the other). */
export function bottomSeat(S) {
  const mine = (S.you && S.you.seat) || 1;
  return S.flipped ? 3 - mine : mine;
}

/** A player's name by seat ("Seat 2" while it is free). */
export function playerName(S, seat) {
  const p = S.game && S.game.players.find((x) => x.seat === seat);
  return (p && p.name) || `Seat ${seat}`;
}

export function myTurn(S) {
  return Boolean(S.game && S.game.status === "active" && S.you && S.you.seat && S.game.to_move === S.you.seat);
}

/** The head: title and options, rated, watchers, the rules link, the tab's title and icon. */
export function renderHead(S, ctx) {
  if (!S.game) return;
  const opts = Object.entries(S.game.options || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  $("game-title").textContent = `${S.game.title}${opts ? ` (${opts})` : ""}`;
  const turn = myTurn(S);
  document.title = `${turn ? "● Your turn · " : ""}${S.game.title} · Hexmoot`;
  if (ctx.icon) ctx.icon.href = turn ? ctx.turnIcon : ctx.plainIcon;
  $("rated-tag").hidden = !S.game.rated;
  $("spectators").textContent = `${S.spectators} watching`;
  const rules = $("rules-link"); // the page knows its game only from the snapshot
  rules.href = `/rules/${encodeURIComponent(S.game.game)}`;
  rules.textContent = `${S.game.title} rules`;
  rules.hidden = false;
  const entry = (S.catalogue || []).find((x) => x.slug === S.game.game);
  if (entry && entry.notation && entry.notation[0]) $("move-input").placeholder = `e.g. ${entry.notation[0]}`;
}

/** Both players' bars: the bottom one is yours (or seat 1's), as a board is seen across a table. */
export function renderSeats(S, view) {
  const colours = (view && view.colours) || {};
  const bottom = bottomSeat(S);
  for (const [id, seat] of [["seat-bottom", bottom], ["seat-top", 3 - bottom]]) {
    const bar = $(id);
    bar.dataset.seat = String(seat);
    const p = S.game.players.find((x) => x.seat === seat) || { name: null };
    const c = colours[String(seat)];
    const toMove = S.game.status === "active" && S.game.to_move === seat;
    bar.classList.toggle("to-move", toMove);
    const sw = bar.querySelector(".swatch");
    sw.className = `swatch ${c ? `pc-${colourClass(c)}` : "none"}`;
    sw.title = c ? colourName(c) : "colour not chosen yet";
    const you = S.you && S.you.seat === seat ? " (you)" : "";
    bar.querySelector(".name").innerHTML = p.name ? `${personHtml(p.name, p.account)}${escapeHtml(you)}` : "<i>waiting for a player</i>";
    const r = (S.game.ratings || []).find((x) => x && x.seat === seat);
    bar.querySelector(".rating").textContent = r ? `${r.rating}${r.provisional ? "?" : ""}` : "";
    bar.querySelector(".rating").title = r ? `rating ${r.rating} ± ${r.deviation}${r.provisional ? ", provisional" : ""}` : "";
    bar.querySelector(".colour").textContent = `${c ? colourName(c) : `seat ${seat}`}${toMove ? " · to move" : ""}`;
    // the bar is the player's: "Black reserve" reads "reserve" there (the swatch says black)
    const own = c ? new RegExp(`^${colourName(c)}\\s+`, "i") : null;
    const score = ((view && view.counters) || []).filter((x) => x.seat === seat);
    const scoreEl = bar.querySelector(".score");
    scoreEl.title = score.map((x) => `${x.label}: ${x.value}`).join("; ");
    scoreEl.innerHTML = score
      .map((x) => `<span class="label">${escapeHtml(own ? x.label.replace(own, "") : x.label)}</span>${escapeHtml(String(x.value))}`)
      .join(" ");
    const clock = bar.querySelector(".clock");
    clock.dataset.clock = String(seat);
  }
}

/** The figures that belong to no seat (a stock, a move count), under the turn bar. */
export function renderCounters(view) {
  const list = ((view && view.counters) || []).filter((c) => !c.seat);
  $("counters").innerHTML = list.map((c) => `<span>${escapeHtml(c.label)}: <b>${escapeHtml(String(c.value))}</b></span>`).join("");
}

/** The status line, the result and what goes with the game's state (invite, join, resign, ...). */
export function renderStatus(S, token, saved) {
  const g = S.game;
  const mine = myTurn(S);
  const name = (seat) => playerName(S, seat);
  let text;
  if (g.status === "waiting") text = "Waiting for an opponent.";
  else if (g.status === "cancelled") text = g.result && g.result.reason === "aborted" ? "This game was aborted." : "This game was cancelled.";
  else if (g.status === "finished") text = "The game is over.";
  else if (mine && S.view.phase === "choose") text = "Your choice: take black or white.";
  else if (mine && S.view.phase === "setup") text = "Your opening: click the highlighted cells (see the rules).";
  else if (mine) text = "Your move.";
  else text = `${name(g.to_move)} to move.`;
  $("status").textContent = text;
  $("turn-bar").classList.toggle("mine", mine);
  $("result").hidden = !g.result;
  $("result").textContent = resultText(g.result, g.game, name);
  // a rated result's changes: their module is loaded by the pages that show one
  const rated = g.result && g.result.ratings && g.result.ratings.length;
  $("rating-change").hidden = !rated;
  if (rated) import("./ratingchange.js").then((m) => m.renderRatingChange($("rating-change"), g.result, S.you && S.you.seat));
  $("continuation").hidden = g.status !== "finished" || g.imported;
  $("imported").hidden = !g.imported;
  $("imported").textContent = g.imported_by ? `Imported by ${g.imported_by}` : "Imported from a record";

  const seated = Boolean(S.you && S.you.seat);
  const inviting = g.status === "waiting" && seated && saved && saved.invite_url;
  $("invite").hidden = !inviting;
  if (inviting) $("invite-url").value = location.origin + saved.invite_url;
  const joinable = g.status === "waiting" && !seated && (token || g.public);
  $("join").hidden = !joinable;
  renderInvitation(S, joinable);
  $("cancel-box").hidden = !(g.status === "waiting" && seated);
  const playing = g.status === "active" && seated;
  $("resign-box").hidden = !playing;
  $("typed").hidden = !playing;
}

/** Whoever opens an invitation reads who invites them, to what, and which side they will have
 *  (the snapshot's `invitation`: docs/protocol.md). */
function renderInvitation(S, joinable) {
  const el = $("invitation");
  const inv = S.game.invitation;
  el.hidden = !(joinable && inv);
  if (el.hidden) return;
  const g = S.game;
  const opts = Object.entries(g.options || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const clock = g.clock ? g.clock.label : "no clock";
  const terms = [opts, clock, g.rated ? "rated" : "casual"].filter(Boolean).join(" · ");
  const who = inv.by ? personHtml(inv.by.name, inv.by.account) : "Someone";
  const colour = inv.colour ? `You will play ${colourName(inv.colour)} (seat ${inv.seat}).` : `You will take seat ${inv.seat}; the colours are settled by the pie rule during the opening.`;
  el.innerHTML =
    `<p class="lead">${who} invites you to play ${escapeHtml(g.title)}.</p>` +
    `<p>${escapeHtml(cap(terms))}.</p>` +
    `<p>${escapeHtml(colour)}</p>` +
    `<p><a href="/rules/${encodeURIComponent(g.game)}">How to play ${escapeHtml(g.title)}</a></p>`;
}
