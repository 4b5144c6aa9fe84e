// The game page: one socket (docs/protocol.md), its messages applied to the page's state, and the
// controls that are neither move entry (entry.js), the move list (review.js), what is shown of
// the game (gameview.js) nor the table around the board (table.js).
// Nothing here knows a rule: legal clicks come from `steps`, positions from the server's views.

import { Board } from "./board.js";
import { Entry } from "./entry.js";
import { playerName, renderCounters, renderHead, renderSeats, renderStatus } from "./gameview.js";
import { animatedWebp, moveListText, positionSvg, save, svgToImage, svgToPng } from "./export.js";
import { renderLegend } from "./legend.js";
import { $, api } from "./page.js";
import { History } from "./replay.js";
import { resultText } from "./results.js";
import { Review } from "./review.js";
import { ReconnectingSocket, messageId } from "./socket.js";
import { Table } from "./table.js";

const root = $("game");
const gameId = root.dataset.id;
const params = new URLSearchParams(location.search);
const saved = () => {
  try {
    return JSON.parse(localStorage.getItem(`hexmoot-game-${gameId}`) || "null");
  } catch {
    return null;
  }
};
const token = params.get("join") || params.get("token") || (saved() && saved().join_token) || "";
const icon = document.querySelector('link[rel="icon"]');
const tokenQuery = token ? `?token=${encodeURIComponent(token)}` : "";
$("download").href = `/games/${gameId}/record.json${tokenQuery}`;
// A finished game's record in Abstract Play's cross-site format (docs/protocol.md).
$("save-abstractplay").href = `/games/${gameId}/abstractplay.json${tokenQuery}`;
const showAbstractPlay = () => ($("save-abstractplay").hidden = !S.game || S.game.status !== "finished");
const head = { icon, plainIcon: icon ? icon.getAttribute("href") : "", turnIcon: root.dataset.turnIcon };

const S = {
  version: 0, game: null, view: null, moves: [], you: null, spectators: 0, review: null,
  startPly: params.get("ply"), firstColour: null, focusPrompt: false, flipped: false, lastEvent: "",
};
const history = new History();
const board = new Board($("board"), {
  onToken: (t) => entry.click(t), onHover: (t, hint) => entry.showHint(t, hint), title: "Game board", maxScale: 5,
  onAnnounce: (text) => announce(text, true), onCancel: () => entry.cancel(),
});
const socket = new ReconnectingSocket(`/ws/games/${gameId}`, {
  params: { token }, since: () => S.version, onMessage, onStatus,
});
const name = (seat) => playerName(S, seat);
const table = new Table({ state: S, socket, playerName: name, showError, announce });
const entry = new Entry({ S, board, socket, table, showError, announce });
const review = new Review({
  S, board, history, table, token, gameId, showError,
  onLive: () => {
    board.setView(S.view, null);
    S.shown = S.moves.length;
    renderPosition(S.view);
    entry.request();
  },
  onReview: (view) => {
    entry.render();
    if (view) {
      board.setView(view, null);
      S.shown = S.review;
      renderPosition(view);
    }
  },
});
review.wire();
window.hexmoot = { socket, state: S, board, table, entry };

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
      showAbstractPlay();
      positionChanged(true);
      if (S.startPly !== null) {
        const ply = Number.parseInt(S.startPly, 10);
        S.startPly = null;
        if (Number.isInteger(ply)) review.show(ply);
      }
      break;
    case "catchup": {
      const moved = msg.version !== S.version;
      for (const ev of msg.events) applyEvent(ev, false);
      applyState(msg.state);
      S.version = msg.version;
      S.you = msg.you;
      S.spectators = msg.spectators;
      table.update(msg.state);
      if (msg.chat) table.setChat(msg.chat);
      positionChanged(moved); // nothing missed: the move being built stays
      break;
    }
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
      positionChanged(true);
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
      entry.settled(msg.msg_id, false);
      break;
    case "steps":
      entry.answer(msg);
      break;
    case "spectators":
      S.spectators = msg.count;
      renderHead(S, head);
      break;
    case "error":
      showError(msg.message, msg.rule);
      entry.settled(msg.msg_id, true);
      if (msg.code === "illegal_steps" || (msg.msg_id && msg.msg_id.startsWith("m-"))) {
        entry.reset();
        entry.request();
      }
      break;
    default:
      break;
  }
}

function applyEvent(ev, live) {
  const d = ev.data;
  if (ev.kind === "join") {
    const p = S.game.players.find((x) => x.seat === d.seat);
    if (p) Object.assign(p, { name: d.name, account: d.account || null });
    if (live) announce(`${d.name} joined as seat ${d.seat}.`);
    if (S.game.rated) refreshRatings(); // the joiner's rating comes with a snapshot only
  } else if (ev.kind === "move") {
    S.moves[d.ply - 1] = d.move;
    S.plyClocks = null;
    S.moves.length = d.ply;
    if (live) announce(`Move ${d.ply}: ${name(d.seat)} played ${d.move}.`);
    if (live && S.you && S.you.seat && d.seat !== S.you.seat) beep();
  } else if (ev.kind === "undo") {
    S.moves.length = d.ply_count;
    S.plyClocks = null;
    history.forgetFrom(d.ply_count);
    if (live) announce(`Takeback: ${d.plies === 1 ? "the last move was" : `the last ${d.plies} moves were`} taken back.`);
  } else if (ev.kind === "resign") {
    if (live) announce(`${name(d.seat)} resigned.`);
  } else if (ev.kind === "result") {
    S.game.result = d;
    if (live) {
      announce(resultText(d, S.game.game, name));
      showResultToast(d);
    }
  }
}

async function refreshRatings() {
  const answer = await api("GET", `/api/games/${gameId}${token ? `?token=${encodeURIComponent(token)}` : ""}`);
  if (!answer.ok) return;
  S.game.ratings = answer.data.game.ratings;
  renderSeats(S, S.review === null ? S.view : board.view);
}

function applyState(st) {
  S.game.status = st.status;
  S.game.to_move = st.to_move;
  S.game.result = st.result;
  showAbstractPlay();
  S.view = st.view;
  history.put(S.moves.length, st.view);
}

function onStatus(state) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = { open: "connected", connecting: "connecting…", closed: "reconnecting…", offline: "offline", gone: "no such game" }[state];
  if (state === "gone") showError("This game does not exist, or it is private and the link lacks its token.");
  renderConnection(state);
  if (state === "open") entry.connected();
  else entry.render();
}

/** Offline, the page says so where the eye is, and the controls that need the server wait. */
function renderConnection(state) {
  const down = state === "offline" || state === "closed";
  $("offline").hidden = !down;
  if (down) {
    $("offline").textContent = state === "offline"
      ? "You are offline. A move you play is kept and sent when the connection is back."
      : "The connection dropped: reconnecting… A move you play is kept and sent when it is back.";
  }
  root.classList.toggle("is-offline", down);
  for (const id of ["offer-draw", "offer-takeback", "abort", "offer-rematch", "claim", "offer-accept", "offer-decline", "offer-withdraw", "chat-send", "join-button", "cancel-game", "same-again"]) {
    const b = $(id);
    if (b) b.disabled = down;
  }
}

// --- rendering -----------------------------------------------------------------------------

/** A new position (or the same one again, `moved` false: the move being built is kept). */
function positionChanged(moved) {
  if (moved) {
    entry.reset();
    showError(""); // a refusal of the last position no longer applies
  }
  renderHead(S, head);
  renderStatus(S, token, saved());
  review.render();
  $("move-text").value = moveListText(S.moves, S.view, review.firstColour());
  if (S.review === null) {
    board.setView(S.view, null);
    S.shown = S.moves.length;
    renderPosition(S.view);
  }
  if (moved || !entry.steps) entry.request();
  else entry.render();
  table.render();
  $("coords-box").hidden = !(S.view && S.view.board.kind === "field" && typeof board.setCoordinates === "function");
  if (S.focusPrompt && S.you && S.you.seat) {
    S.focusPrompt = false;
    $("prompt-line").focus();
  }
}

/** What goes with a shown position: both bars (names, scores), the figures, the legend. */
function renderPosition(view) {
  renderSeats(S, view);
  renderCounters(view);
  renderLegend($("legend"), view);
  $("position-text").textContent = board.describe(); // the board as text, for screen readers
}

function showResultToast(result) {
  $("result-toast-text").textContent = resultText(result, S.game.game, name);
  $("result-toast").hidden = false;
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
  const chosen = $("join-name").value.trim();
  if (chosen) {
    const named = await api("PUT", "/api/me", { name: chosen });
    if (!named.ok) {
      showError(named.error.message, named.error.rule);
      return;
    }
  }
  let joinToken = token;
  if (!joinToken) {
    // A public game lists its join token among the open games.
    const open = await api("GET", "/api/games/open");
    const found = (open.data.games || []).find((x) => x.id === gameId);
    joinToken = found ? found.join_token : "";
  }
  const joined = await api("POST", `/api/games/${gameId}/join`, { token: joinToken });
  if (!joined.ok) {
    const full = /full|taken|started|seat/i.test(`${joined.error.code} ${joined.error.message}`);
    $("full-notice").hidden = !full;
    showError(full ? "" : joined.error.message);
    return;
  }
  S.focusPrompt = true; // once seated, the prompt says what to do
  socket.restart(); // the next catchup or snapshot names our seat
});
$("cancel-game").addEventListener("click", async () => {
  const answer = await api("POST", `/api/games/${gameId}/cancel`, {});
  if (!answer.ok) {
    showError(answer.error.message);
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
  if (S.game) renderSeats(S, S.review === null ? S.view : board.view);
  table.tick();
});
$("coords").addEventListener("change", (e) => board.setCoordinates(e.target.checked));

// The move list as text, and the position shown as an image (export.js).
const exported = (text) => ($("export-status").textContent = text);
const fileName = (ext) => `hexmoot-${S.game.game}-${gameId}-ply${S.shown}.${ext}`;
/** The colour behind the board, as the page draws it. */
function boardBackground() {
  for (let el = $("board"); el; el = el.parentElement) {
    const colour = getComputedStyle(el).backgroundColor;
    if (colour && colour !== "transparent" && colour !== "rgba(0, 0, 0, 0)") return colour;
  }
  return "white";
}
/** The position the board shows, as an SVG document on the board's own background. */
function shownSvg() {
  const plies = `${S.shown} ${S.shown === 1 ? "ply" : "plies"}`;
  const when = S.shown === S.moves.length ? `after ${plies}` : `at ply ${S.shown} of ${S.moves.length}`;
  return positionSvg(board.svg, boardBackground(), `Hexmoot ${S.game.game} ${gameId}, ${when}`);
}
// The whole game as an animated WebP: each ply's position drawn by a board of its own, off the
// screen but in the page (so it takes the page's theme), then encoded by the browser one frame
// at a time and put together by export.js.
const ANIMATION_SIDE = 640; // pixels, the longer side
const PLY_MS = 800;
const LAST_MS = 3000;
async function gameAnimation(progress) {
  const moves = S.moves.slice();
  const views = [];
  for (let ply = 0; ply <= moves.length; ply++) {
    progress(`Reading position ${ply} of ${moves.length}…`);
    views.push(ply === moves.length && S.moves.length === moves.length ? S.view : await history.at(ply, S.game, moves));
  }
  const holder = document.createElement("div");
  holder.className = "board-offscreen";
  holder.setAttribute("aria-hidden", "true");
  $("board").parentElement.append(holder);
  try {
    const frameBoard = new Board(holder, { title: "Frame", coordinates: board.coordinates });
    frameBoard.setFlipped(S.flipped);
    const draw = (view) => {
      frameBoard.view = null; // drawn whole: no move animated in
      frameBoard.setView(view, null);
      return frameBoard.svg.getAttribute("viewBox").split(" ").map(Number);
    };
    // One frame for every position, all at one scale: the union of their boxes (Exxit's field grows).
    const boxes = views.map(draw);
    const x = Math.min(...boxes.map((b) => b[0]));
    const y = Math.min(...boxes.map((b) => b[1]));
    const w = Math.max(...boxes.map((b) => b[0] + b[2])) - x;
    const h = Math.max(...boxes.map((b) => b[1] + b[3])) - y;
    const background = boardBackground();
    const frames = [];
    let size = null;
    for (const [ply, view] of views.entries()) {
      progress(`Drawing position ${ply} of ${moves.length}…`);
      draw(view);
      frameBoard.svg.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
      const blob = await svgToImage(positionSvg(frameBoard.svg, background, `ply ${ply}`), "image/webp", ANIMATION_SIDE, 0.9);
      if (!size) {
        const image = await createImageBitmap(blob);
        size = [image.width, image.height];
        image.close();
      }
      frames.push(new Uint8Array(await blob.arrayBuffer()));
    }
    const durations = frames.map((_, i) => (i === frames.length - 1 ? LAST_MS : PLY_MS));
    const rgb = background.match(/\d+/g)?.slice(0, 3).map(Number) || [255, 255, 255];
    return animatedWebp(frames, size[0], size[1], durations, rgb);
  } finally {
    holder.remove();
  }
}
$("copy-moves").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("move-text").value);
    exported("The moves are copied.");
  } catch {
    $("move-text").select(); // no clipboard here (a page not served over https): copy by hand
    exported("The moves are selected: copy them with your keyboard or menu.");
  }
});
$("save-svg").addEventListener("click", () => {
  if (!S.game) return;
  save(new Blob([shownSvg()], { type: "image/svg+xml" }), fileName("svg"));
  exported(`Saved ${fileName("svg")}.`);
});
$("save-png").addEventListener("click", async () => {
  if (!S.game) return;
  try {
    save(await svgToPng(shownSvg()), fileName("png"));
    exported(`Saved ${fileName("png")}.`);
  } catch (e) {
    exported(`The image could not be made: ${e.message}`);
  }
});
$("save-webp").addEventListener("click", async () => {
  if (!S.game) return;
  const button = $("save-webp");
  const name = `hexmoot-${S.game.game}-${gameId}.webp`;
  button.disabled = true;
  try {
    const blob = await gameAnimation(exported);
    save(blob, name);
    exported(`Saved ${name}.`);
  } catch (e) {
    exported(`The animation could not be made: ${e.message}`);
  } finally {
    button.disabled = false;
  }
});
// While a move is typed, Exxit's tiles show their names (the notation names them). A press on the
// board that leaves the box redraws the board only once released: a redraw between a press and its
// release would lose the click that was meant for a cell.
let pressed = false;
document.addEventListener("pointerdown", () => { pressed = true; }, true);
document.addEventListener("pointerup", () => { pressed = false; }, true);
$("move-input").addEventListener("focus", () => board.setCoordinates(true));
$("move-input").addEventListener("blur", () => {
  const restore = () => board.setCoordinates($("coords").checked);
  if (pressed) document.addEventListener("pointerup", () => setTimeout(restore), { once: true });
  else restore();
});
$("sound").checked = localStorage.getItem("hexmoot-sound") === "on";
$("sound").addEventListener("change", (e) => {
  localStorage.setItem("hexmoot-sound", e.target.checked ? "on" : "off");
  if (e.target.checked) beep();
});
api("GET", "/api/catalogue").then((answer) => {
  S.catalogue = answer.data.games || [];
  if (!S.game) return;
  renderHead(S, head);
  table.render(); // the draw offer waits for the catalogue's word on draws
});
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
$("result-toast-close").addEventListener("click", () => {
  $("result-toast").hidden = true;
});
$("result-toast-show").addEventListener("click", () => {
  $("result-toast").hidden = true;
  $("board").scrollIntoView({ block: "center" });
});
document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (e.key === "Escape") {
    entry.cancel();
  } else if (e.key === "Enter" && entry.confirming && t === document.body) {
    e.preventDefault();
    $("play-move").click();
  } else if (e.key in moves) {
    e.preventDefault();
    review.show(review.current() + moves[e.key]);
  } else if (e.key === "Home") {
    review.show(0);
  } else if (e.key === "End") {
    review.live();
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
  const made = await api("POST", "/api/games", { game: g.game, options: g.options, seat, public: g.public, rated: Boolean(g.rated) });
  if (!made.ok) {
    showError(made.error.message);
    return;
  }
  localStorage.setItem(`hexmoot-game-${made.data.id}`, JSON.stringify({ join_token: made.data.join_token, invite_url: made.data.invite_url }));
  location.href = made.data.url;
});


