// Live games as mini boards that follow the /ws/live socket (docs/protocol.md, "WS /ws/live"):
// shared by the /live page and the lobby, so neither polls. The same socket carries the open
// games (opts.onOpen). Each entry says when it last moved; a local timer (no request) ages those
// texts and drops the entries idle past the server's cut-off, as the server itself leaves them out.
// A card's board links to the game, and its caption's people to their profiles (links cannot
// nest, so the card itself is no link).

import { Board } from "./board.js";
import { ReconnectingSocket } from "./socket.js";
import { ago } from "./page.js";

/** A <time> element that the timer keeps saying "<verb> 3 min ago". */
export function timeAgo(stamp, verb) {
  const t = document.createElement("time");
  t.className = "ago";
  t.dateTime = new Date(stamp).toISOString();
  t.dataset.verb = verb;
  return t;
}

export class LiveList {
  /**
   * @param {HTMLElement} container where the mini boards go, newest first
   * @param {object} opts caption(entry) -> markup under a board (escaped by the caller: names
   *   through personHtml); limit (show at most this many,
   *   the rest hidden); onChange() after each change; onStatus(state) of the socket;
   *   onOpen(entries) with the open games, newest first, whenever they change
   */
  constructor(container, opts) {
    this.container = container;
    this.opts = opts;
    this.games = new Map(); // id -> {entry, el, board, p}
    this.open = new Map(); // id -> entry of the open list
    this.skew = 0; // the server's clock minus ours
    this.idleMs = Infinity;
    this.socket = new ReconnectingSocket("/ws/live", {
      onStatus: opts.onStatus,
      onMessage: (msg) => this.receive(msg),
    });
  }

  connect() {
    this.socket.connect();
    this.timer = setInterval(() => this.tick(), 20000); // local only: no request
    return this;
  }

  now() {
    return Date.now() + this.skew;
  }

  receive(msg) {
    const openBefore = this.open.size;
    if (msg.type === "live") {
      this.skew = msg.now - Date.now();
      this.idleMs = msg.idle_after * 1000;
      for (const id of [...this.games.keys()]) this.remove(id);
      for (const g of msg.games.slice().reverse()) this.upsert(g);
      this.open = new Map(msg.open.map((g) => [g.id, g]));
    } else if (msg.type === "live_update") {
      this.open.delete(msg.game.id); // joined: from the open list to the live one
      this.upsert(msg.game);
    } else if (msg.type === "live_end") {
      this.open.delete(msg.id);
      this.remove(msg.id);
    } else if (msg.type === "open_update") {
      this.open.set(msg.game.id, msg.game);
    } else {
      return;
    }
    if (msg.type === "live" || msg.type === "open_update" || this.open.size !== openBefore) this.openChanged();
    this.changed();
  }

  /** Drop what went idle, and age every "moved ... ago". */
  tick() {
    const cutoff = this.now() - this.idleMs;
    const idle = [...this.games].filter(([, item]) => item.entry.last_activity < cutoff);
    for (const [id] of idle) this.remove(id);
    const stale = [...this.open.values()].filter((g) => g.created_at < cutoff);
    for (const g of stale) this.open.delete(g.id);
    if (stale.length) this.openChanged();
    if (idle.length) this.changed();
    this.refreshTimes();
  }

  refreshTimes() {
    for (const t of document.querySelectorAll("time.ago")) {
      t.textContent = `${t.dataset.verb} ${ago(this.now() - Date.parse(t.dateTime))}`;
    }
  }

  openChanged() {
    if (!this.opts.onOpen) return;
    this.opts.onOpen([...this.open.values()].sort((a, b) => b.created_at - a.created_at));
    this.refreshTimes();
  }

  changed() {
    this.applyLimit();
    if (this.opts.onChange) this.opts.onChange();
  }

  upsert(g) {
    let item = this.games.get(g.id);
    if (!item) {
      const el = document.createElement("div");
      el.className = "mini";
      el.dataset.game = g.game;
      el.dataset.id = g.id;
      const holder = document.createElement("a");
      holder.className = "mini-board";
      holder.href = `/games/${encodeURIComponent(g.id)}`;
      const p = document.createElement("p");
      el.append(holder, p);
      // The link's name is the board's ("Exxit in progress": an image, whose cells' texts are not
      // read out), so it holds no visible text of its own that its name could leave out.
      item = { el, holder, board: new Board(holder, { labels: false, title: `${g.title} in progress` }), p };
      this.games.set(g.id, item);
      this.container.prepend(item.el);
    }
    item.entry = g;
    item.board.setView(g.view);
    const time = timeAgo(g.last_activity, g.moves ? "moved" : "started");
    const caption = document.createElement("span");
    caption.innerHTML = this.opts.caption(g); // markup the caller escaped
    item.p.replaceChildren(caption, " · ", time);
    time.textContent = `${time.dataset.verb} ${ago(this.now() - g.last_activity)}`;
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
