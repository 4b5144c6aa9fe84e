// Live games as mini boards that follow the /ws/live socket (docs/protocol.md, "WS /ws/live"):
// shared by the /live page and the lobby, so neither polls /api/live.

import { Board } from "./board.js";
import { ReconnectingSocket } from "./socket.js";

export class LiveList {
  /**
   * @param {HTMLElement} container where the mini boards go, newest first
   * @param {object} opts caption(entry) -> text under a board; limit (show at most this many,
   *   the rest hidden); onChange() after each message; onStatus(state) of the socket
   */
  constructor(container, opts) {
    this.container = container;
    this.opts = opts;
    this.games = new Map(); // id -> {entry, el, board, p}
    this.socket = new ReconnectingSocket("/ws/live", {
      onStatus: opts.onStatus,
      onMessage: (msg) => this.receive(msg),
    });
  }

  connect() {
    this.socket.connect();
    return this;
  }

  receive(msg) {
    if (msg.type === "live") {
      for (const id of [...this.games.keys()]) this.remove(id);
      for (const g of msg.games.slice().reverse()) this.upsert(g);
    } else if (msg.type === "live_update") {
      this.upsert(msg.game);
    } else if (msg.type === "live_end") {
      this.remove(msg.id);
    } else {
      return;
    }
    this.applyLimit();
    if (this.opts.onChange) this.opts.onChange();
  }

  upsert(g) {
    let item = this.games.get(g.id);
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
      this.games.set(g.id, item);
      this.container.prepend(el);
    }
    item.entry = g;
    item.board.setView(g.view);
    item.p.textContent = this.opts.caption(g);
  }

  remove(id) {
    const item = this.games.get(id);
    if (item) item.el.remove();
    this.games.delete(id);
  }

  applyLimit() {
    if (this.opts.limit === undefined) return;
    [...this.container.querySelectorAll(":scope > .mini")].forEach((el, i) => {
      el.hidden = i >= this.opts.limit;
    });
  }

  items() {
    return this.games.values();
  }
}
