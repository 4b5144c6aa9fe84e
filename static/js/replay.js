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

  /** Forget the views after `ply` (a takeback: those plies are gone, others may follow). */
  forgetFrom(ply) {
    for (const key of [...this.views.keys()]) if (key > ply) this.views.delete(key);
    this.pending.clear();
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

const CHOICES = ["black", "white"];

/** Plies before the colours alternate: the opening and the pie choice (a colour word). */
export function setupPlies(moves, view) {
  if (moves.length >= 2 && CHOICES.includes(String(moves[1]).toLowerCase())) return 2;
  if (view && view.phase === "choose" && moves.length === 1) return 1;
  return 0;
}

/** The move list: `columns` (colours, first mover after the opening first), `rows` (the opening
 *  and the choice on rows of their own) and `label(ply)` ("3. White", as the rows number it). */
export function moveTable(moves, view, first) {
  const setup = setupPlies(moves, view);
  const colours = Object.values((view && view.colours) || {}).filter(Boolean);
  const columns = first ? [first, ...colours.filter((c) => c !== first)] : [];
  const rows = [];
  const names = ["Opening", "Choice"];
  moves.forEach((text, i) => {
    const ply = i + 1;
    if (ply <= setup) rows.push({ label: names[i], plies: [[ply, i === 1 ? `takes ${text}` : text]], wide: true });
    else if ((ply - setup) % 2 === 1) rows.push({ label: `${(ply - setup + 1) / 2}.`, plies: [[ply, text]] });
    else rows[rows.length - 1].plies.push([ply, text]);
  });
  const label = (ply) => {
    if (ply === 0) return "the start";
    if (ply <= setup) return `the ${names[ply - 1].toLowerCase()}`;
    const c = columns[(ply - setup + 1) % 2];
    return `${Math.ceil((ply - setup) / 2)}.${c ? ` ${c.charAt(0).toUpperCase()}${c.slice(1)}` : ""}`;
  };
  return { columns, rows, label };
}
