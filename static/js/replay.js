// Earlier positions: the views of a game ply by ply, for reviewing a game in progress and for
// replaying a finished one. Views come from the server (POST /api/replay replays the record with the
// rules package, a window of plies at a time) or from the events seen live; the browser computes none.

// The server answers at most 32 views (and about 1 MB) a request: ask for a window around the ply
// wanted, and follow `next` until it is in.
const WINDOW = 32;

export class History {
  constructor() {
    this.views = new Map(); // ply -> view
    this.pending = new Map(); // first ply of a window asked -> its request
  }

  /** Remember a view seen live (snapshot, event). */
  put(ply, view) {
    if (view) this.views.set(ply, view);
  }

  /** The view after `ply` plies of `moves`, asking the server for a window of views around it. */
  async at(ply, game, moves) {
    // Mostly plies before it (reviewing goes back from the end), a few after.
    let from = Math.max(0, Math.min(ply - WINDOW + 8, moves.length - WINDOW + 1));
    while (!this.views.has(ply)) {
      const next = await this.fetchWindow(from, game, moves);
      if (next === null || next <= from || next > ply) break;
      from = next;
    }
    return this.views.get(ply);
  }

  /** Ask for the views from ply `from` on; the promise gives the server's `next`. */
  fetchWindow(from, game, moves) {
    const key = `${from}:${moves.length}`;
    if (!this.pending.has(key)) {
      const request = fetch("/api/replay", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ game: game.game, options: game.options, moves, from, count: WINDOW }),
      }).then(async (res) => {
        const body = await res.json();
        if (!res.ok) throw new Error(body.error ? body.error.message : `replay failed (${res.status})`);
        body.views.forEach((v, i) => {
          if (!this.views.has(body.from + i)) this.views.set(body.from + i, v);
        });
        return body.next;
      });
      request.catch(() => this.pending.delete(key));
      this.pending.set(key, request);
    }
    return this.pending.get(key);
  }
}

/** Move-list rows: [{num, plies: [[ply, text], ...]}], two plies a row. */
export function moveRows(moves) {
  const rows = [];
  moves.forEach((text, i) => {
    if (i % 2 === 0) rows.push({ num: i / 2 + 1, plies: [] });
    rows[rows.length - 1].plies.push([i + 1, text]);
  });
  return rows;
}
