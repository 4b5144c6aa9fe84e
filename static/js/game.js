// The game page: one socket (docs/protocol.md), the board, click-by-click move entry through the
// server's steps, the move list with review and replay, and the controls a player needs.
// Nothing here knows a rule: legal clicks come from `steps`, positions from the server's views.

import { renderRatingChange } from "./ratingchange.js";
import { Board } from "./board.js";
import { renderLegend } from "./legend.js";
import { History, moveTable, setupPlies } from "./replay.js";
import { ReconnectingSocket, messageId } from "./socket.js";
import { colourClass, colourName } from "./stacks.js";
import { Table } from "./table.js";
import { $, escapeHtml } from "./page.js";

const root = $("game");
const gameId = root.dataset.id;
const params = new URLSearchParams(location.search);
const saved = readSaved();
const token = params.get("join") || params.get("token") || (saved && saved.join_token) || "";
const WORDS = { pass: "Pass", black: "Play black", white: "Play white" };
const ICON = document.querySelector('link[rel="icon"]');
const PLAIN_ICON = ICON ? ICON.getAttribute("href") : "";

const S = {
  version: 0, game: null, view: null, moves: [], you: null, spectators: 0,
  review: null, shown: null, prefix: [], steps: null, stepsId: null, sending: null, startPly: params.get("ply"),
  firstColour: null, focusPrompt: false, flipped: false, conn: "connecting", legend: null,
};
const history = new History();
const board = new Board($("board"), {
  onToken: clickToken, onHover: showHint, title: "Game board", maxScale: 5, onAnnounce: (text) => announce(text, true), onCancel: cancelPrefix,
});
const socket = new ReconnectingSocket(`/ws/games/${gameId}`, {
  params: { token }, since: () => S.version, onMessage, onStatus,
});
const table = new Table({ state: S, socket, playerName, showError, announce });
window.hexmoot = { socket, state: S, board, table };

function readSaved() {
  try {
    return JSON.parse(localStorage.getItem(`hexmoot-game-${root.dataset.id}`) || "null");
  } catch {
    return null;
  }
}

// --- messages from the server --------------------------------------------------------------

function onMessage(msg) {
  switch (msg.type) {
    case "snapshot":
      S.version = msg.version;
      S.game = msg.game;
      S.moves = msg.game.moves.slice();
      S.view = msg.view;
      S.you = msg.you;
      S.spectators = msg.spectators;
      history.put(S.moves.length, msg.view);
      table.update(msg.game);
      table.setChat(msg.chat);
      $("full-notice").hidden = !(params.get("join") && S.game.status !== "waiting" && !(S.you && S.you.seat));
      positionChanged();
      if (S.startPly !== null) {
        const ply = Number.parseInt(S.startPly, 10);
        S.startPly = null;
        if (Number.isInteger(ply)) showPly(ply);
      }
      break;
    case "catchup":
      for (const ev of msg.events) applyEvent(ev, false);
      applyState(msg.state);
      S.version = msg.version;
      S.you = msg.you;
      S.spectators = msg.spectators;
      table.update(msg.state);
      if (msg.chat) table.setChat(msg.chat);
      positionChanged();
      break;
    case "event":
      if (msg.version <= S.version) return; // already seen (e.g. before a reconnection)
      if (msg.version > S.version + 1) {
        socket.restart(); // a gap: resume from the last version held
        return;
      }
      applyEvent(msg, true);
      applyState(msg.state);
      S.version = msg.version;
      table.update(msg.state, true);
      positionChanged();
      break;
    case "table":
      if (msg.version === S.version) table.update(msg, true);
      break;
    case "chat":
      table.addLine(msg.line);
      break;
    case "done":
      table.done(msg);
      break;
    case "ack":
      if (S.sending === msg.msg_id) {
        S.sending = null;
        $("move-input").value = "";
        renderEntry();
      }
      break;
    case "steps":
      if (msg.msg_id !== S.stepsId || msg.version !== S.version) return; // an outdated answer
      S.steps = msg;
      renderEntry();
      break;
    case "spectators":
      S.spectators = msg.count;
      renderHeader();
      break;
    case "error":
      showError(msg.message, msg.rule);
      if (msg.msg_id && msg.msg_id === S.sending) {
        S.sending = null;
        renderEntry();
      }
      if (msg.code === "illegal_steps" || (msg.msg_id && msg.msg_id.startsWith("m-"))) {
        S.prefix = [];
        requestSteps();
      }
      break;
    default:
      break;
  }
}

function applyEvent(ev, announceIt) {
  const d = ev.data;
  if (ev.kind === "join") {
    const p = S.game.players.find((x) => x.seat === d.seat);
    if (p) p.name = d.name;
    if (announceIt) announce(`${d.name} joined as seat ${d.seat}.`);
  } else if (ev.kind === "move") {
    S.moves[d.ply - 1] = d.move;
    S.plyClocks = null;
    S.moves.length = d.ply;
    if (announceIt) announce(`Move ${d.ply}: ${playerName(d.seat)} played ${d.move}.`);
    if (announceIt && S.you && S.you.seat && d.seat !== S.you.seat) beep();
  } else if (ev.kind === "undo") {
    S.moves.length = d.ply_count;
    S.plyClocks = null;
    history.forgetFrom(d.ply_count);
    if (announceIt) announce(`Takeback: ${d.plies === 1 ? "the last move was" : `the last ${d.plies} moves were`} taken back.`);
  } else if (ev.kind === "resign") {
    if (announceIt) announce(`${playerName(d.seat)} resigned.`);
  } else if (ev.kind === "result") {
    S.game.result = d;
    if (announceIt) announce(resultText(d));
  }
}

function applyState(st) {
  S.game.status = st.status;
  S.game.to_move = st.to_move;
  S.game.result = st.result;
  S.view = st.view;
  history.put(S.moves.length, st.view);
}

function onStatus(state) {
  const el = $("conn");
  S.conn = state;
  el.dataset.state = state;
  el.textContent = { open: "connected", connecting: "connecting…", closed: "reconnecting…", offline: "offline", gone: "no such game" }[state];
  if (state === "gone") showError("This game does not exist, or it is private and the link lacks its token.");
  renderQueued();
}

// --- rendering -----------------------------------------------------------------------------

function positionChanged() {
  S.prefix = [];
  S.steps = null;
  renderHeader();
  renderPlayers();
  renderStatus();
  renderMoves();
  if (S.review === null) {
    board.setView(S.view, null);
    S.shown = S.moves.length;
  }
  renderCounters(S.review === null ? S.view : null);
  requestSteps();
  table.render();
  if (S.focusPrompt && S.you && S.you.seat) {
    S.focusPrompt = false;
    $("prompt-line").focus();
  }
}

function renderHeader() {
  if (!S.game) return;
  const opts = Object.entries(S.game.options || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  $("game-title").textContent = `${S.game.title}${opts ? ` (${opts})` : ""}`;
  const turn = myTurn();
  document.title = `${turn ? "● Your turn · " : ""}${S.game.title} · Hexmoot`;
  if (ICON) ICON.href = turn ? root.dataset.turnIcon : PLAIN_ICON;
  $("spectators").textContent = `${S.spectators} watching`;
  $("download").href = `/games/${gameId}/record.json${token ? `?token=${encodeURIComponent(token)}` : ""}`;
  const rules = $("rules-link"); // the page knows its game only from the snapshot
  rules.href = `/rules/${encodeURIComponent(S.game.game)}`;
  rules.textContent = `${S.game.title} rules`;
  rules.hidden = false;
  const entry = (S.catalogue || []).find((x) => x.slug === S.game.game);
  if (entry && entry.notation && entry.notation[0]) $("move-input").placeholder = `e.g. ${entry.notation[0]}`;
}

function playerName(seat) {
  const p = S.game && S.game.players.find((x) => x.seat === seat);
  return (p && p.name) || `Seat ${seat}`;
}

function renderPlayers() {
  const colours = (S.view && S.view.colours) || {};
  const out = [];
  for (const seat of [1, 2]) {
    const p = S.game.players.find((x) => x.seat === seat) || { name: null };
    const c = colours[String(seat)];
    const toMove = S.game.status === "active" && S.game.to_move === seat;
    const you = S.you && S.you.seat === seat ? " (you)" : "";
    out.push(
      `<div class="player${toMove ? " to-move" : ""}" data-seat="${seat}">` +
        `<span class="swatch ${c ? `pc-${colourClass(c)}` : "none"}" title="${c ? colourName(c) : "colour not chosen yet"}"></span>` +
        `<span>${p.name ? escapeHtml(p.name) : "<i>waiting for a player</i>"}${you}</span>` +
        `<span class="muted">${c ? colourName(c) : `seat ${seat}`}${toMove ? " · to move" : ""}</span></div>`,
    );
  }
  $("players").innerHTML = out.join("");
}

// Why a game ended, in words (games/*: each game's outcome reasons; the server's resignation,
// timeout and abandoned). {loser} is the losing player's name.
const ENDS = {
  "no-moves": "no moves were left", "ply-limit": "the move limit was reached", "double-pass": "both players passed",
  "stock-exhausted": "the stock ran out", repetition: "a position repeated", resignation: "{loser} resigned",
  timeout: "{loser} ran out of time", abandoned: "the game was abandoned",
  agreement: "agreed by both players", disconnect: "{loser} left the game", aborted: "the game was aborted",
};
const GAME_ENDS = { sgolte: { "no-moves": "{loser} had no legal move" } };
// Scores that are lists are compared item by item: their terms.
const LIST_TERMS = { valaturna: "on the tallest stacks", harmijan: "on the creatures' values" };

/** "6·6·5 to 6·6·4": both lists up to the first item that differs (the one that decides). */
function listScores(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const from = Math.max(0, i - 2);
  const part = (x) => (from ? "…·" : "") + (x.slice(from, i + 1).join("·") || "nothing");
  return i >= a.length && i >= b.length ? `${part(a)} each` : `${part(a)} to ${part(b)}`;
}

function resultText(r) {
  if (!r) return "";
  const slug = S.game ? S.game.game : "";
  const win = r.winner;
  const loser = win ? playerName(3 - win) : "";
  const why = ((GAME_ENDS[slug] || {})[r.reason] || ENDS[r.reason] || r.reason.replace(/-/g, " ")).replace("{loser}", loser);
  let score = "";
  if (r.scores) {
    const [a, b] = win === 2 ? [r.scores[1], r.scores[0]] : r.scores;
    score = Array.isArray(a) ? ` ${listScores(a, b)} ${LIST_TERMS[slug] || ""}`.trimEnd() : ` ${a}–${b}`;
  }
  if (win === null || win === undefined) return `Draw${score} — ${why}.`;
  const who = r.colour ? `${cap(colourName(r.colour))} (${playerName(win)})` : playerName(win);
  return `${who} wins${score} — ${why}.`;
}

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function renderStatus() {
  const g = S.game;
  const mine = myTurn();
  let text = "";
  if (g.status === "waiting") text = "Waiting for an opponent.";
  else if (g.status === "cancelled") text = g.result && g.result.reason === "aborted" ? "This game was aborted." : "This game was cancelled.";
  else if (g.status === "finished") text = "The game is over.";
  else if (mine && S.view.phase === "choose") text = "Your choice: take black or white.";
  else if (mine && S.view.phase === "setup") text = "Your opening: click the highlighted cells (see the rules).";
  else if (mine) text = "Your move.";
  else text = `${playerName(g.to_move)} to move.`;
  $("status").textContent = text;
  $("turn-bar").classList.toggle("mine", mine);
  $("result").hidden = !g.result;
  $("result").textContent = resultText(g.result);
  renderRatingChange($("rating-change"), g.result, S.you && S.you.seat);
  $("continuation").hidden = g.status !== "finished" || g.imported;
  $("imported").hidden = !g.imported;
  $("imported").textContent = g.imported_by ? `Imported by ${g.imported_by}` : "Imported from a record";

  const saved2 = readSaved();
  const inviting = g.status === "waiting" && S.you && S.you.seat && saved2 && saved2.invite_url;
  $("invite").hidden = !inviting;
  if (inviting) $("invite-url").value = location.origin + saved2.invite_url;
  $("join").hidden = !(g.status === "waiting" && !(S.you && S.you.seat) && (token || g.public));
  $("cancel-box").hidden = !(g.status === "waiting" && S.you && S.you.seat);
  const playing = g.status === "active" && S.you && S.you.seat;
  $("resign-box").hidden = !playing;
  $("typed").hidden = !playing;
}

function renderCounters(view) {
  if (view) {
    renderLegend($("legend"), view);
    $("position-text").textContent = board.describe(); // the board as text, for screen readers
  }
  const el = $("counters");
  if (!view || !view.counters) {
    el.innerHTML = "";
    return;
  }
  el.innerHTML = view.counters
    .map((c) => {
      const colour = c.seat && view.colours ? view.colours[String(c.seat)] : null;
      const sw = colour ? `<span class="swatch pc-${colourClass(colour)}" title="${colourName(colour)}"></span> ` : "";
      return `<span>${sw}${escapeHtml(c.label)}: <b>${escapeHtml(String(c.value))}</b></span>`;
    })
    .join("");
}

function renderMoves() {
  const current = S.review === null ? S.moves.length : S.review;
  const t = moveTable(S.moves, S.view, firstColour());
  const btn = ([ply, text]) =>
    `<button type="button" data-ply="${ply}"${ply === current ? ' aria-current="true"' : ""}>${escapeHtml(text)}</button>`;
  const head = t.columns.map((c) => {
    const seat = seatOf(c);
    return `<th scope="col"><span class="swatch pc-${colourClass(c)}"></span> ${cap(colourName(c))}${seat ? ` <span class="who">${escapeHtml(playerName(seat))}</span>` : ""}</th>`;
  });
  const rows = t.rows.map((row) => {
    const cells = row.wide ? [`<td colspan="2">${btn(row.plies[0])}</td>`] : [0, 1].map((i) => `<td>${row.plies[i] ? btn(row.plies[i]) : ""}</td>`);
    return `<tr><th scope="row">${escapeHtml(row.label)}</th>${cells.join("")}</tr>`;
  });
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
  S.plyLabel = t.label;
}

function seatOf(colour) {
  const cs = (S.view && S.view.colours) || {};
  return [1, 2].find((seat) => cs[String(seat)] === colour) || null;
}

/** The colour that moves first after the opening: from the live view's turn when the game is on,
 *  else from the view after the opening (asked for once). */
function firstColour() {
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
    history.at(setup, S.game, S.moves.slice()).then((w) => {
      if (w && w.to_move && w.colours) {
        S.firstColour = w.colours[String(w.to_move)];
        renderMoves();
      }
    }, () => {});
  }
  return null;
}

// --- move entry ----------------------------------------------------------------------------

function myTurn() {
  return Boolean(S.game && S.game.status === "active" && S.you && S.you.seat && S.game.to_move === S.you.seat);
}

function requestSteps() {
  if (!myTurn() || S.review !== null) {
    S.stepsId = null;
    renderEntry();
    return;
  }
  S.stepsId = messageId("s");
  socket.send({ type: "steps", prefix: S.prefix, msg_id: S.stepsId });
  renderEntry();
}

function renderEntry() {
  const live = S.review === null && myTurn() && !S.sending;
  renderQueued();
  const st = live && S.steps && S.stepsId === S.steps.msg_id ? S.steps : null;
  const cellIds = new Set((S.view ? S.view.cells : []).map((c) => c.id));
  const next = st ? st.next : [];
  const cellNext = next.filter((t) => cellIds.has(t));
  const words = next.filter((t) => !cellIds.has(t));
  if (S.review === null && S.view) {
    board.setSteps(st ? { prefix: S.prefix.filter((t) => cellIds.has(t)), next: cellNext, hints: st.hints || {}, changes: st.changes || {} } : null);
  }
  $("choices").innerHTML = words
    .map((w) => {
      const sw = w === "black" || w === "white" ? `<span class="swatch pc-${colourClass(w)}"></span> ` : "";
      return `<button type="button" class="${sw ? "primary" : ""}" data-token="${escapeHtml(w)}">${sw}${escapeHtml(WORDS[w] || w)}</button>`;
    })
    .join("");
  const canPlay = st && st.complete && st.next.length > 0;
  $("play-move").hidden = !canPlay;
  if (canPlay) $("play-move").textContent = `Play ${st.move}`;
  $("prompt").textContent = st && st.prompt ? st.prompt : "";
  $("hint").hidden = !live;
  $("cancel-move").hidden = !(live && S.prefix.length);
  $("entry").hidden = $("play-move").hidden && $("cancel-move").hidden;
  if (st && st.complete && st.next.length === 0) submitMove(st.move);
}

function clickToken(t, word) {
  if (!S.steps || !S.steps.next.includes(t)) return;
  if (word) S.focusPrompt = true;
  S.lastEvent = "";
  S.prefix = [...S.prefix, t];
  S.steps = null;
  requestSteps();
}

function submitMove(text) {
  if (!text || S.sending) return;
  const msg = { type: "move", move: text, version: S.version, msg_id: messageId("m"), lag: socket.lag || 0 };
  S.sending = msg.msg_id;
  S.steps = null;
  showError("");
  S.sendingText = text;
  socket.sendReliable(msg);
  renderEntry();
}

function renderQueued() {
  const el = $("queued");
  el.hidden = !S.sending;
  if (S.sending) el.textContent = S.conn === "open" ? `Sending ${S.sendingText}…` : `${S.sendingText} is queued: it goes when the connection is back.`;
  el.dataset.state = S.conn === "open" ? "sending" : "queued";
}

function cancelPrefix() {
  if (!S.prefix.length) return;
  S.prefix = [];
  requestSteps();
}

function showHint(token, hint) {
  let text = "\u00a0";
  if (token) {
    text = token;
    if (hint && hint.move) text += `: ${hint.move}`;
    if (hint && hint.results) text += `: ${hint.results} different results, click on to choose`;
    if (hint && hint.bite) text += ": bites the enemy stone";
    if (hint && hint.text) text += `: ${hint.text}`;
  }
  $("hint").textContent = text;
}

// --- review and replay ---------------------------------------------------------------------

async function showPly(ply) {
  if (!S.game) return;
  const last = S.moves.length;
  const p = Math.max(0, Math.min(last, ply));
  if (p === last) {
    goLive();
    return;
  }
  S.review = p;
  setPlyParam(p); // at once: the view of a ply not seen yet comes from the server
  renderMoves();
  renderEntry();
  try {
    const view = await history.at(p, S.game, S.moves.slice());
    if (S.review !== p) return;
    board.setView(view, null);
    S.shown = p;
    renderCounters(view);
    if (table.table && table.table.clock) table.review(p, await plyClocks());
  } catch (err) {
    showError(err.message);
  }
  $("review-banner").hidden = false;
  $("review-text").textContent = `Position after ${S.plyLabel(p)} (ply ${p} of ${last}).`;
  $("back-to-game").textContent = S.game.status === "active" ? "Back to the game" : "Last position";
}

/** Each ply's clock, from the game's record (fetched once per position of the move list). */
async function plyClocks() {
  if (!S.plyClocks) {
    const res = await fetch(`/games/${gameId}/record.json${token ? `?token=${encodeURIComponent(token)}` : ""}`);
    const record = res.ok ? await res.json() : {};
    S.plyClocks = record.clocks || [];
  }
  return S.plyClocks;
}

function goLive() {
  S.review = null;
  table.review(null);
  $("review-banner").hidden = true;
  board.setView(S.view, null);
  S.shown = S.moves.length;
  renderCounters(S.view);
  renderMoves();
  setPlyParam(null);
  requestSteps();
}

function setPlyParam(ply) {
  const url = new URL(location.href);
  if (ply === null) url.searchParams.delete("ply");
  else url.searchParams.set("ply", String(ply));
  window.history.replaceState(null, "", url);
}

function currentPly() {
  return S.review === null ? S.moves.length : S.review;
}

// --- controls ------------------------------------------------------------------------------

function showError(text, rule) {
  $("error").textContent = text || "";
  const el = $("error-rule");
  el.hidden = !(text && rule && S.game);
  if (!el.hidden) {
    const a = document.createElement("a");
    a.href = `/rules/${encodeURIComponent(S.game.game)}#${encodeURIComponent(rule)}`;
    a.textContent = `rule ${rule}`;
    el.replaceChildren("Why: see ", a, ` of the ${S.game.title} rules.`);
  }
}

let audio = null;
function beep() {
  if (!$("sound").checked) return;
  audio = audio || new AudioContext();
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  const t = audio.currentTime;
  osc.frequency.value = 660;
  gain.gain.setValueAtTime(0.15, t);
  gain.gain.exponentialRampToValueAtTime(0.001, t + 0.25);
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(t + 0.25);
}
// The board's announcements (offered cells) follow the last event's instead of replacing it.
function announce(text, fromBoard) {
  if (!fromBoard) S.lastEvent = text;
  $("announce").textContent = fromBoard && S.lastEvent ? `${S.lastEvent} ${text}` : text;
}


$("choices").addEventListener("click", (e) => {
  const b = e.target.closest("[data-token]");
  if (b) clickToken(b.dataset.token, true);
});
$("play-move").addEventListener("click", () => S.steps && submitMove(S.steps.move));
$("cancel-move").addEventListener("click", () => {
  cancelPrefix();
  $("prompt-line").focus();
});
$("move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("move-input").value.trim();
  if (text) submitMove(text);
});
$("resign").addEventListener("click", () => {
  $("resign-confirm").hidden = false;
  $("resign-no").focus();
});
$("resign-no").addEventListener("click", () => {
  $("resign-confirm").hidden = true;
});
$("resign-yes").addEventListener("click", () => {
  $("resign-confirm").hidden = true;
  socket.sendReliable({ type: "resign", version: S.version, msg_id: messageId("r") });
});
$("join-button").addEventListener("click", async () => {
  const name = $("join-name").value.trim();
  if (name) {
    const named = await fetch("/api/me", {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }),
    });
    if (!named.ok) {
      const body = await named.json();
      showError(body.error ? body.error.message : "That name cannot be used.", body.error && body.error.rule);
      return;
    }
  }
  let joinToken = token;
  if (!joinToken) {
    // A public game lists its join token among the open games.
    const open = await (await fetch("/api/games/open")).json();
    const entry = (open.games || []).find((x) => x.id === gameId);
    joinToken = entry ? entry.join_token : "";
  }
  const res = await fetch(`/api/games/${gameId}/join`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: joinToken }),
  });
  const body = await res.json();
  if (!res.ok) {
    const full = body.error && /full|taken|started|seat/i.test(`${body.error.code} ${body.error.message}`);
    $("full-notice").hidden = !full;
    showError(full ? "" : body.error ? body.error.message : "Could not join.");
    return;
  }
  S.focusPrompt = true; // once seated, the prompt says what to do
  socket.restart(); // the next catchup or snapshot names our seat
});
$("cancel-game").addEventListener("click", async () => {
  const res = await fetch(`/api/games/${gameId}/cancel`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    showError(body.error ? body.error.message : "Could not cancel the game.");
    return;
  }
  socket.restart();
  $("prompt-line").focus();
});
$("flip").hidden = typeof board.setFlipped !== "function";
$("flip").addEventListener("click", () => {
  S.flipped = !S.flipped;
  board.setFlipped(S.flipped);
  $("flip").setAttribute("aria-pressed", String(S.flipped));
});
$("sound").checked = localStorage.getItem("hexmoot-sound") === "on";
$("sound").addEventListener("change", (e) => {
  localStorage.setItem("hexmoot-sound", e.target.checked ? "on" : "off");
  if (e.target.checked) beep();
});
fetch("/api/catalogue").then((r) => r.json()).then((cat) => {
  S.catalogue = cat.games || [];
  renderHeader();
  table.render(); // the draw offer waits for the catalogue's word on draws
}, () => {});
$("copy-invite").addEventListener("click", async () => {
  const input = $("invite-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  $("copy-invite").textContent = "Copied";
});
$("moves").addEventListener("click", (e) => {
  const b = e.target.closest("[data-ply]");
  if (b) showPly(Number(b.dataset.ply));
});
$("back-to-game").addEventListener("click", goLive);
$("nav-first").addEventListener("click", () => showPly(0));
$("nav-back").addEventListener("click", () => showPly(currentPly() - 1));
$("nav-forward").addEventListener("click", () => showPly(currentPly() + 1));
$("nav-last").addEventListener("click", goLive);
$("ply-slider").addEventListener("input", (e) => showPly(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "range"))) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (e.key in moves) {
    e.preventDefault();
    showPly(currentPly() + moves[e.key]);
  } else if (e.key === "Home") {
    showPly(0);
  } else if (e.key === "End") {
    goLive();
  } else if (e.key === "Escape") {
    cancelPrefix();
  }
});

// the legend is open where there is room; on a phone it waits for a tap, below the board
if (matchMedia("(min-width: 700px)").matches) $("legend-box").open = true;
socket.connect();

// A finished game's continuation: a new game of the same game and options, the same visibility and
// rating, this player in the same seat; its invitation is remembered as the lobby does.
$("same-again").addEventListener("click", async () => {
  const g = S.game;
  const seat = (S.you && S.you.seat) || "random";
  const res = await fetch("/api/games", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ game: g.game, options: g.options, seat, public: g.public, rated: Boolean(g.rated) }),
  });
  const made = await res.json().catch(() => ({}));
  if (!res.ok) {
    showError((made.error && made.error.message) || "The new game could not be created");
    return;
  }
  localStorage.setItem(`hexmoot-game-${made.id}`, JSON.stringify({ join_token: made.join_token, invite_url: made.invite_url }));
  location.href = made.url;
});
