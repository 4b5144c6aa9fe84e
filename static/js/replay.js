// Earlier positions: the views of a game ply by ply, for reviewing a game in progress and for
// replaying a finished one. Views come from the server (POST /api/replay replays the record with the
// rules package) or from the events seen live; the browser computes none.

export class History {
  constructor() {
    this.views = new Map(); // ply -> view
    this.loading = null;
  }

  /** Remember a view seen live (snapshot, event). */
  put(ply, view) {
    if (view) this.views.set(ply, view);
  }

  /** The view after `ply` plies of `moves`, fetching every view of the game once if needed. */
  async at(ply, game, moves) {
    if (this.views.has(ply)) return this.views.get(ply);
    if (!this.loading || this.loadedFor < moves.length) {
      this.loadedFor = moves.length;
      this.loading = fetch("/api/replay", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ game: game.game, options: game.options, moves }),
      }).then(async (res) => {
        const body = await res.json();
        if (!res.ok) throw new Error(body.error ? body.error.message : `replay failed (${res.status})`);
        body.views.forEach((v, i) => {
          if (!this.views.has(i)) this.views.set(i, v);
        });
      });
    }
    await this.loading;
    return this.views.get(ply);
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
