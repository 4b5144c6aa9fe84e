// Move entry on the game page: click by click through the server's `steps` (which tokens may
// follow, and the board as the clicks so far leave it), then a confirm, then the move, sent with
// its msg_id so that a retry after a lost connection can never play it twice.
//
// The confirm ("Confirm moves": always, without a real-time clock, or never; by default on touch
// screens and in games without a real-time clock) shows the move drawn on the board with one big
// "Play …" button; Enter confirms, Escape cancels. A move that would end the game (the server's
// `ends`, a pass after the opponent's pass, say) is always confirmed, with the result it gives.
// While the socket is down a move is kept and shown as queued; it goes when the socket is back.

import { $, api, escapeHtml } from "./page.js";
import { resultText } from "./results.js";
import { messageId } from "./socket.js";
import { colourClass } from "./stacks.js";
import { myTurn, playerName } from "./gameview.js";

const WORDS = { pass: "Pass", black: "Play black", white: "Play white" };
const SETTING = "hexmoot-confirm";
export const CONFIRM_CHOICES = ["always", "untimed", "never"];

/** The browser's "Confirm moves" setting, or its default here (a touch screen confirms always). */
export function confirmSetting() {
  const saved = localStorage.getItem(SETTING);
  if (CONFIRM_CHOICES.includes(saved)) return saved;
  return matchMedia("(pointer: coarse)").matches ? "always" : "untimed";
}

export class Entry {
  /** ctx: { S, board, socket, showError(text, rule), announce(text) } */
  constructor(ctx) {
    this.ctx = ctx;
    this.S = ctx.S;
    this.stepsId = null;
    this.steps = null;
    this.prefix = [];
    this.confirming = null; // the complete steps answer awaiting its confirm
    this.sending = null; // msg_id of the move sent and not yet acknowledged
    this.sendingText = "";
    this.wire();
  }

  /** A new position: the clicks so far no longer apply. */
  reset() {
    this.prefix = [];
    this.steps = null;
    this.confirming = null;
  }

  live() {
    return this.S.review === null && myTurn(this.S) && !this.sending;
  }

  request() {
    if (!myTurn(this.S) || this.S.review !== null) {
      this.stepsId = null;
      this.render();
      return;
    }
    this.stepsId = messageId("s");
    // Offline, the request waits: `connected()` asks again when the socket is back.
    this.ctx.socket.send({ type: "steps", prefix: this.prefix, msg_id: this.stepsId });
    this.render();
  }

  /** The socket is open again: ask for what a dropped request never got. */
  connected() {
    if (this.live() && !this.steps) this.request();
    else this.render();
  }

  /** The server's answer to `steps` (an outdated one is ignored). */
  answer(msg) {
    if (msg.msg_id !== this.stepsId || msg.version !== this.S.version) return;
    this.steps = msg;
    this.confirming = null;
    if (msg.complete && msg.next.length === 0) {
      if (this.needsConfirm(msg)) this.confirming = msg;
      else {
        this.submit(msg.move);
        return;
      }
    }
    this.render();
    if (this.confirming) $("play-move").focus({ preventScroll: true });
  }

  needsConfirm(st) {
    if (st.ends) return true;
    // A button that names the move ("Play white") is its own confirm; a pass is not.
    if ((WORDS[this.prefix[this.prefix.length - 1]] || "").startsWith("Play ")) return false;
    const setting = confirmSetting();
    if (setting === "always") return true;
    if (setting === "never") return false;
    const clock = this.ctx.table.table && this.ctx.table.table.clock;
    return !(clock && clock.control.kind === "realtime");
  }

  render() {
    const S = this.S;
    const live = this.live();
    this.renderQueued();
    const st = live && this.steps && this.stepsId === this.steps.msg_id ? this.steps : null;
    const cellIds = new Set((S.view ? S.view.cells : []).map((c) => c.id));
    const next = st && !this.confirming ? st.next : [];
    const words = next.filter((t) => !cellIds.has(t));
    if (S.review === null && S.view) {
      this.ctx.board.setSteps(st ? {
        prefix: this.prefix.filter((t) => cellIds.has(t)),
        next: next.filter((t) => cellIds.has(t)),
        hints: st.hints || {},
        changes: st.changes || {},
      } : null);
    }
    $("choices").innerHTML = words
      .map((w) => {
        const sw = w === "black" || w === "white" ? `<span class="swatch pc-${colourClass(w)}"></span> ` : "";
        return `<button type="button" class="${sw ? "primary" : ""}" data-token="${escapeHtml(w)}">${sw}${escapeHtml(WORDS[w] || w)}</button>`;
      })
      .join("");
    const canPlay = Boolean(st && st.complete);
    const offline = this.ctx.socket.state !== "open";
    $("play-move").hidden = !canPlay;
    $("play-move").disabled = false;
    if (canPlay) $("play-move").textContent = st.move === "pass" ? "Pass" : `Play ${st.move}`;
    const ends = this.confirming && this.confirming.ends;
    $("confirm-text").hidden = !ends && !this.confirming;
    if (this.confirming) {
      $("confirm-text").textContent = ends
        ? `This ends the game: ${resultText(ends, S.game.game, (seat) => playerName(S, seat))}`
        : "Your move is drawn on the board: play it?";
    }
    let prompt = st && st.prompt && !this.confirming ? st.prompt : "";
    if (live && !st && offline) prompt = "Offline: the next click waits for the connection.";
    $("prompt").textContent = prompt;
    $("cancel-move").hidden = !(live && (this.prefix.length || this.confirming));
    $("entry").hidden = $("play-move").hidden && $("cancel-move").hidden;
    if (!live || this.confirming) $("hint").hidden = true;
  }

  click(token, word) {
    if (!this.steps || this.confirming || !this.steps.next.includes(token)) return;
    if (word) this.S.focusPrompt = true;
    this.S.lastEvent = "";
    this.prefix = [...this.prefix, token];
    this.steps = null;
    this.request();
  }

  cancel() {
    if (!this.prefix.length && !this.confirming) return;
    this.reset();
    this.request();
  }

  submit(text) {
    if (!text || this.sending) return;
    const S = this.S;
    const msg = { type: "move", move: text, version: S.version, msg_id: messageId("m"), lag: this.ctx.socket.lag || 0 };
    this.sending = msg.msg_id;
    this.sendingText = text;
    this.steps = null;
    this.confirming = null;
    this.ctx.showError("");
    this.ctx.socket.sendReliable(msg); // kept until acknowledged, and sent again on reconnection
    this.render();
  }

  /** The move was acknowledged, or refused: either way it is no longer in flight. */
  settled(msgId, refused) {
    if (msgId !== this.sending) return false;
    this.sending = null;
    if (!refused) $("move-input").value = "";
    this.render();
    return true;
  }

  renderQueued() {
    const el = $("queued");
    const open = this.ctx.socket.state === "open";
    el.hidden = !this.sending;
    if (this.sending) el.textContent = open ? `Sending ${this.sendingText}…` : `${this.sendingText} is queued: it goes when the connection is back.`;
    el.dataset.state = open ? "sending" : "queued";
  }

  showHint(token, hint) {
    const el = $("hint");
    el.hidden = !token || !this.live() || Boolean(this.confirming);
    if (!token) return;
    let text = token;
    if (hint && hint.move) text += `: ${hint.move}`;
    if (hint && hint.results) text += `: ${hint.results} different results, click on to choose`;
    if (hint && hint.bite) text += ": bites the enemy stone";
    if (hint && hint.text) text += `: ${hint.text}`;
    $("hint-text").textContent = text;
  }

  wire() {
    $("choices").addEventListener("click", (e) => {
      const b = e.target.closest("[data-token]");
      if (b) this.click(b.dataset.token, true);
    });
    $("play-move").addEventListener("click", () => this.steps && this.steps.complete && this.submit(this.steps.move));
    $("cancel-move").addEventListener("click", () => {
      this.cancel();
      $("prompt-line").focus();
    });
    $("move-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("move-input").value.trim();
      if (text) this.submit(text);
    });
    const setting = $("confirm-setting");
    setting.value = confirmSetting();
    // An account keeps the setting too; a guest's browser alone remembers it.
    const signedIn = document.querySelector('.account-link[href="/settings"]') !== null;
    setting.addEventListener("change", () => {
      localStorage.setItem(SETTING, setting.value);
      if (signedIn) api("PUT", "/api/account/settings", { confirm_moves: setting.value });
    });
    if (signedIn) api("GET", "/api/account").then((answer) => {
      const saved = answer.ok && answer.data.settings ? answer.data.settings.confirm_moves : null;
      if (CONFIRM_CHOICES.includes(saved) && !localStorage.getItem(SETTING)) {
        localStorage.setItem(SETTING, saved);
        setting.value = saved;
      }
    });
  }
}
