// A websocket that survives: reconnection with exponential backoff (jittered, capped at 10 s),
// resuming from the last version the page holds (`since`), and moves that are retried with the
// same msg_id until acknowledged, so a move sent while disconnected, or answered `unavailable`
// while the server's database is away, is neither lost nor doubled (docs/protocol.md,
// "Reconnecting").

// Heartbeat: a ping every 25 s; no answer within 10 s means offline (tests move page.clock).
export const HEARTBEAT = { pingMs: 25000, answerMs: 10000, checkMs: 5000 };

// A message answered `unavailable` (the server's database out of reach) is sent again after this
// long, the server's Retry-After.
const RETRY_UNAVAILABLE_MS = 1000;

let counter = 0;

/** A fresh message id, unique for this page. */
export function messageId(prefix = "m") {
  counter += 1;
  const rand = Math.random().toString(36).slice(2, 8);
  return `${prefix}-${Date.now().toString(36)}-${counter}-${rand}`;
}

export class ReconnectingSocket {
  /**
   * @param {string} path e.g. "/ws/games/Xk3v"
   * @param {object} opts params (object of query parameters), since() (the version to resume
   *   from, or 0), onMessage(msg), onStatus("connecting" | "open" | "closed" | "gone")
   */
  constructor(path, opts) {
    this.path = path;
    this.opts = opts;
    this.ws = null;
    this.attempts = 0;
    this.pending = new Map(); // msg_id -> message awaiting its ack
    this.timer = null;
    this.ping = null;
    this.pingedAt = 0;
    this.lag = 0; // ms: see the pong below
    this.stopped = false;
    this.heard = Date.now();
    this.offline = !navigator.onLine; // shown as "offline" until a message is heard online
    window.addEventListener("offline", () => this.lost());
    window.addEventListener("online", () => {
      if (!this.stopped) this.restart();
    });
  }

  /** The network is gone or silent: say so, and try a fresh connection. */
  lost() {
    this.offline = true;
    this.status(this.state);
    if (!this.stopped && this.ws && this.ws.readyState === WebSocket.OPEN) this.restart();
  }

  url() {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(this.opts.params || {})) if (v) params.set(k, v);
    const since = this.opts.since ? this.opts.since() : 0;
    if (since) params.set("since", String(since));
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const qs = params.toString();
    return `${scheme}://${location.host}${this.path}${qs ? `?${qs}` : ""}`;
  }

  connect() {
    clearTimeout(this.timer);
    this.status("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempts = 0;
      this.heard = Date.now();
      this.status("open");
      for (const msg of this.pending.values()) ws.send(JSON.stringify(msg));
      clearInterval(this.ping);
      let pinged = Date.now();
      let waiting = false; // a ping is out and nothing has come since
      this.ping = setInterval(() => {
        const now = Date.now();
        if (waiting && this.heard < pinged && now - pinged >= HEARTBEAT.answerMs) this.lost();
        else if (now - pinged >= HEARTBEAT.pingMs) {
          pinged = now;
          this.pingedAt = now;
          waiting = this.send({ type: "ping" });
        }
      }, HEARTBEAT.checkMs);
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      this.heard = Date.now();
      if (this.offline && navigator.onLine) {
        this.offline = false;
        this.status(this.state);
      }
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === "error" && msg.code === "unavailable" && this.pending.has(msg.msg_id)) {
        // The database is out of reach for a moment: the same message (same msg_id) goes again
        // after a second, still pending, as after a reconnection (docs/protocol.md).
        const again = this.pending.get(msg.msg_id);
        setTimeout(() => {
          if (this.pending.get(again.msg_id) === again) this.send(again);
        }, RETRY_UNAVAILABLE_MS);
        return; // the move stays in flight ("Sending…") until its ack
      }
      if (msg.msg_id && (msg.type === "ack" || msg.type === "error")) this.pending.delete(msg.msg_id);
      // Half the last ping's round trip: the lag a move reports, credited from a bounded quota.
      if (msg.type === "pong" && this.pingedAt) this.lag = Math.min(5000, Math.round((Date.now() - this.pingedAt) / 2));
      this.opts.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (ws !== this.ws) return;
      clearInterval(this.ping);
      if (this.stopped || e.code === 4404) {
        this.status(e.code === 4404 ? "gone" : "closed");
        return;
      }
      this.status("closed");
      this.schedule();
    };
  }

  schedule() {
    const base = Math.min(10000, 400 * 2 ** this.attempts);
    this.attempts += 1;
    this.timer = setTimeout(() => this.connect(), base * (0.6 + 0.4 * Math.random()));
  }

  status(s) {
    this.state = s;
    if (this.opts.onStatus) this.opts.onStatus(this.offline && s !== "gone" ? "offline" : s);
  }

  /** Send now if connected; otherwise drop it (use `sendReliable` for moves). */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** Send a message that carries a msg_id and must arrive: resent after each reconnection until
   *  its ack (or a refusal) comes back. The server makes the resend idempotent. */
  sendReliable(msg) {
    this.pending.set(msg.msg_id, msg);
    this.send(msg);
  }

  /** Drop the connection and reconnect at once (used after a version gap, and by tests). */
  restart() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    clearInterval(this.ping);
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}
