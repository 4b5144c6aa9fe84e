// The table around the board (docs/protocol.md, "Clocks and the table"): both clocks, counted down
// from the server's times (never the browser's date), offers and answers (and an offer declined),
// abort, a player away and the claim of the win, the rematch link, and the chat of the visitor's
// room. The table's actions go over HTTP, so each answer (or refusal) comes back to the action that
// asked: a chat line's refusal is shown at the chat box, another's in the page's error line, and
// either is cleared once the situation it was about has changed.

import { $, api } from "./page.js";

const WORDS = { draw: "a draw", takeback: "to take back a move", rematch: "a rematch" };
const OFFERS = { draw: "draw offer", takeback: "takeback request", rematch: "rematch offer" };
const gameId = () => $("game").dataset.id;
const muteKey = () => `hexmoot-mute-${gameId()}`;

/** The token of the page's link (a private game's spectators need it to chat), as a query. */
function tokenQuery() {
  const params = new URLSearchParams(location.search);
  const token = params.get("join") || params.get("token");
  return token ? `?token=${encodeURIComponent(token)}` : "";
}

/** What about the table makes an error shown earlier stale when it changes. */
function situation(fields, version) {
  const f = fields || {};
  return JSON.stringify([version, f.offer, f.declined, f.rematch_id, f.rematch_of]);
}

/** "4:05", "1:02:03", or "7.3" under ten seconds (tenths). */
export function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) return (Math.floor(t / 100) / 10).toFixed(1);
  const s = Math.floor(t / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), String(s % 60).padStart(2, "0")];
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** "2 days 3 h", "5 h 12 min": a correspondence move's time left. */
function formatDays(ms) {
  const min = Math.max(0, Math.floor(ms / 60000));
  const [d, h] = [Math.floor(min / 1440), Math.floor((min % 1440) / 60)];
  if (d) return `${d} day${d > 1 ? "s" : ""}${h ? ` ${h} h` : ""}`;
  return h ? `${h} h ${min % 60} min` : `${min} min`;
}

function link(el, id, text) {
  const a = document.createElement("a");
  a.href = `/games/${id}`;
  a.textContent = text;
  el.replaceChildren(a);
}

export class Table {
  /** ctx: { state, playerName(seat), showError(text), announce(text) } (a `socket` is not needed). */
  constructor(ctx) {
    Object.assign(this, { ctx, table: null, at: 0, lines: [], room: null, reviewing: null });
    this.muted = localStorage.getItem(muteKey()) === "1";
    this.shownError = ""; // the text this table put in the page's error line, if still there
    this.seen = null; // situation() when the last error was shown
    setInterval(() => this.tick(), 100);
    this.wire();
  }

  get you() {
    const y = this.ctx.state.you;
    return (y && y.seat) || null;
  }

  /** New table fields: a snapshot's game, an event's state, a `table` message (`live`: just now). */
  update(fields, live = false) {
    const before = this.table;
    this.table = fields;
    this.at = performance.now();
    if (this.seen !== null && situation(fields, this.ctx.state.version) !== this.seen) this.clearErrors();
    if (live && before && fields.rematch_id && !before.rematch_id && this.you) {
      location.href = `/games/${fields.rematch_id}`; // both players go on to the rematch
      return;
    }
    const o = fields.offer;
    if (live && o && !(before && before.offer) && o.seat !== this.you) {
      this.ctx.announce(`${this.ctx.playerName(o.seat)} offers ${WORDS[o.kind]}.`);
    }
    const d = fields.declined;
    if (live && d && !(before && before.declined) && this.you && d.seat !== this.you) {
      this.ctx.announce(`${this.ctx.playerName(d.seat)} declined your ${OFFERS[d.kind]}.`);
    }
    this.render();
  }

  // --- errors ----------------------------------------------------------------------------------

  /** Show a refusal: a chat line's at the chat box, any other in the page's error line. */
  showError(message, chat) {
    this.seen = situation(this.table, this.ctx.state.version);
    if (chat) {
      $("chat-error").textContent = message;
      $("chat-error").hidden = false;
      return;
    }
    this.shownError = message;
    this.ctx.showError(message);
  }

  /** The situation changed (a new version, an offer made or answered, a rematch): what was
   *  refused before no longer applies. The page's error line is cleared only if it still shows
   *  this table's error (a move's refusal there is the page's own). */
  clearErrors() {
    this.seen = null;
    $("chat-error").textContent = "";
    $("chat-error").hidden = true;
    const line = $("error");
    if (this.shownError && line && line.textContent === this.shownError) this.ctx.showError("");
    this.shownError = "";
  }

  // --- the clocks ------------------------------------------------------------------------------

  /** Show the clocks as they were after `ply` (the record's `clocks`), or live again (null). */
  review(ply, clocks) {
    this.reviewing = ply === null ? null : { ply, clocks };
    this.tick();
  }

  /** Each seat's time now (or after the reviewed ply), and whether it runs. */
  times(clock) {
    const g = this.ctx.state.game;
    if (this.reviewing) {
      const { ply, clocks } = this.reviewing;
      const base = clock.control.kind === "realtime" ? clock.control.base * 1000 : null;
      const left = [base, base];
      clocks.slice(0, ply).forEach((c) => c && (left[c.seat - 1] = c.left));
      return left.map((ms) => ({ ms, running: false }));
    }
    return [1, 2].map((seat) => {
      const running = clock.running && g.status === "active" && g.to_move === seat;
      return { ms: clock.remaining[seat - 1] - (running ? performance.now() - this.at : 0), running };
    });
  }

  tick() {
    const clock = this.table && this.table.clock;
    if (!clock || !this.ctx.state.game) return;
    const days = clock.control.kind === "correspondence";
    // Low time: under a fifth of the base, at least 10 s and at most 20 s.
    const low = Math.max(10000, Math.min(20000, (clock.control.base || 0) * 200));
    this.times(clock).forEach(({ ms, running }, i) => {
      const el = document.querySelector(`.clock[data-clock="${i + 1}"]`);
      const text = ms === null ? "–" : days ? formatDays(ms) : formatClock(ms);
      const time = el.querySelector(".time");
      if (time.textContent !== text) time.textContent = text;
      el.classList.toggle("running", running);
      el.classList.toggle("low", !days && running && ms < low);
    });
    this.renderAway();
  }

  renderClocks() {
    const clock = this.table && this.table.clock;
    const g = this.ctx.state.game;
    for (const el of document.querySelectorAll(".clock[data-clock]")) el.hidden = !clock;
    $("time-control").textContent = clock ? clock.label : "";
    if (!clock) return;
    const due = clock.control.kind === "correspondence" && clock.running && g.status === "active";
    $("deadline").hidden = !due;
    if (due) {
      // The deadline in the reader's own time zone; its instant is the server's.
      const when = new Date(clock.deadline).toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
      $("deadline").textContent = `${this.ctx.playerName(g.to_move)} must move by ${when}.`;
    }
    this.tick();
  }

  // --- offers, abort, rematch, away ------------------------------------------------------------

  render() {
    const g = this.ctx.state.game;
    const t = this.table;
    if (!g || !t) return;
    this.renderClocks();
    const seat = this.you;
    const active = g.status === "active" && seat;
    const o = t.offer;
    const entry = (this.ctx.state.catalogue || []).find((x) => x.slug === g.game);
    $("offer-draw").hidden = !(active && entry && entry.draws && !o && g.to_move === seat);
    $("offer-takeback").hidden = !(active && t.takebacks && !o && this.ctx.state.moves.length > 0);
    $("abort").hidden = !(active && t.abortable);
    $("offer-rematch").hidden = !(g.status === "finished" && seat && !t.rematch_id && !g.imported && !o);
    $("rematch-link").hidden = !(t.rematch_id || t.rematch_of);
    if (t.rematch_id) link($("rematch-link"), t.rematch_id, "Rematch: the next game");
    else if (t.rematch_of) link($("rematch-link"), t.rematch_of, "Rematch of the previous game");
    const declined = !o && this.declinedText();
    $("offer").hidden = !o && !declined;
    $("offer").classList.toggle("declined", Boolean(declined));
    if (o) {
      const mine = o.seat === seat;
      const who = this.ctx.playerName(o.seat);
      $("offer-text").textContent = mine
        ? `You offered ${WORDS[o.kind]}: waiting for an answer.`
        : `${who} ${o.kind === "takeback" ? "asks" : "offers"} ${WORDS[o.kind]}${o.plies === 2 ? " (and your reply)" : ""}.`;
      $("offer-accept").hidden = $("offer-decline").hidden = mine || !seat;
      $("offer-withdraw").hidden = !mine;
    } else if (declined) {
      $("offer-text").textContent = declined;
      $("offer-accept").hidden = $("offer-decline").hidden = $("offer-withdraw").hidden = true;
    }
    const box = $("table-box");
    box.hidden = [...box.querySelectorAll("button")].every((b) => b.hidden) && $("rematch-link").hidden;
    this.renderAway();
  }

  /** "Bob declined your draw offer." to the offerer (to a spectator, whose offer it was); nothing
   *  to the one who declined, nor once the game has moved on (the server then clears it). */
  declinedText() {
    const d = this.table && this.table.declined;
    if (!d || d.seat === this.you) return "";
    const who = this.ctx.playerName(d.seat);
    const whose = this.you ? "your" : `${this.ctx.playerName(3 - d.seat)}'s`;
    return `${who} declined ${whose} ${OFFERS[d.kind]}.`;
  }

  renderAway() {
    const t = this.table;
    const g = this.ctx.state.game;
    const seat = t && t.away && g && g.status === "active" ? [1, 2].find((s) => t.away[s - 1]) : undefined;
    $("away").hidden = !seat;
    if (!seat) return;
    const a = t.away[seat - 1];
    // The grace left: the server's `now` (of the clock, else the absence's start) plus time since.
    const left = a.grace - ((t.clock ? t.clock.now : a.since) + performance.now() - this.at - a.since);
    const claimer = this.you && this.you !== seat;
    const who = this.ctx.playerName(seat);
    $("claim").hidden = !(claimer && left <= 0);
    const text = left > 0
      ? `${who} left the game: ${claimer ? "you can claim the win" : "they can be claimed away"} in ${Math.ceil(left / 1000)} s if they do not come back.`
      : `${who} left the game and has not come back.`;
    if ($("away-text").textContent !== text) $("away-text").textContent = text;
  }

  /** POST one of the table's actions (offer, answer, abort, claim, chat); its answer, or null
   *  after showing its refusal. What it changes arrives on the socket like any change. */
  async post(action, body, chat = false) {
    const query = chat ? tokenQuery() : "";
    const answer = await api("POST", `/api/games/${encodeURIComponent(gameId())}/${action}${query}`, body);
    if (answer.ok) return answer.data;
    this.showError(answer.error.message, chat);
    return null;
  }

  answer(accept) {
    this.post("answer", { kind: this.table.offer.kind, accept });
  }

  // --- chat ------------------------------------------------------------------------------------

  setChat(chat) {
    if (!chat) return;
    this.room = chat.room;
    this.lines = chat.lines.slice();
    this.renderChat();
  }

  addLine(line) {
    if (this.lines.some((l) => l.seq === line.seq)) return;
    this.lines.push(line);
    this.lines.sort((a, b) => a.seq - b.seq);
    this.renderChat();
  }

  /** The answer to a socket message of this page: a chat line said is shown at once (the page
   *  says its lines over HTTP; a `done` of another client's kind is taken all the same). */
  done(msg) {
    if (msg.of === "chat" && msg.line) this.addLine(msg.line);
  }

  async say(text) {
    $("chat-send").disabled = true;
    const said = await this.post("chat", { text }, true);
    $("chat-send").disabled = false;
    if (!said) return;
    $("chat-input").value = "";
    $("chat-error").hidden = true;
    $("chat-error").textContent = "";
    this.addLine(said.line);
  }

  renderChat() {
    const players = this.room === "players";
    $("chat").hidden = !this.room;
    $("chat-title").textContent = players ? "Chat with your opponent" : "Spectators' chat";
    $("mute-box").hidden = !players;
    $("mute").checked = this.muted;
    const shown = this.lines.filter((l) => !(this.muted && l.seat && l.seat !== this.you)).slice(-100);
    $("chat-log").replaceChildren(...shown.map((line) => {
      const li = document.createElement("li");
      const who = document.createElement("b");
      who.textContent = `${line.name}: `;
      li.append(who, line.text); // text, never HTML
      return li;
    }));
    $("chat-empty").hidden = shown.length > 0;
    $("chat-log").scrollTop = $("chat-log").scrollHeight;
  }

  wire() {
    for (const kind of ["draw", "takeback", "rematch"]) $(`offer-${kind}`).addEventListener("click", () => this.post("offer", { kind }));
    $("abort").addEventListener("click", () => this.post("abort", {}));
    $("claim").addEventListener("click", () => this.post("claim", {}));
    $("offer-accept").addEventListener("click", () => this.answer(true));
    $("offer-decline").addEventListener("click", () => this.answer(false));
    $("offer-withdraw").addEventListener("click", () => this.answer(false));
    $("chat-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("chat-input").value.trim();
      if (text) this.say(text);
    });
    $("mute").addEventListener("change", (e) => {
      this.muted = e.target.checked;
      localStorage.setItem(muteKey(), this.muted ? "1" : "0");
      this.renderChat();
    });
  }
}
