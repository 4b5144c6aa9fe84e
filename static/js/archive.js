// The archive: the server's filters and cursor paging; each game opens in replay mode.

const $ = (id) => document.getElementById(id);
const form = $("filters");

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

function resultText(g) {
  const r = g.result;
  if (!r) return "";
  const reason = r.reason.replace(/-/g, " ");
  if (r.winner === null) return `draw (${reason})`;
  const p = g.players.find((x) => x.seat === r.winner);
  return `${escapeHtml((p && p.name) || `seat ${r.winner}`)} won (${reason})`;
}

function query(cursor) {
  const params = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (String(v).trim()) params.set(k, String(v).trim());
  if (cursor) params.set("cursor", cursor);
  return params;
}

async function load(cursor) {
  $("error").textContent = "";
  const params = query(cursor);
  const shown = query(null);
  history.replaceState(null, "", `${location.pathname}${shown.toString() ? `?${shown}` : ""}`);
  const res = await fetch(`/api/archive?${params}`);
  const body = await res.json();
  if (!res.ok) {
    $("error").textContent = body.error ? body.error.message : `error ${res.status}`;
    return;
  }
  $("rows").innerHTML = body.games.length
    ? body.games
        .map((g) => {
          const when = new Date(g.finished_at).toISOString().slice(0, 16).replace("T", " ");
          let names = g.players.map((p) => escapeHtml(p.name || "?")).join(" vs ");
          if (g.imported) {
            const by = g.imported_by ? `Imported by ${escapeHtml(g.imported_by)}` : "Imported";
            names += `<br><small class="muted">${by}</small>`;
          }
          return `<tr data-game="${escapeHtml(g.id)}"><td><a href="/games/${encodeURIComponent(g.id)}?ply=0">${escapeHtml(g.title)}</a></td>
            <td>${names}</td><td>${resultText(g)}</td><td>${g.moves}</td><td>${when} UTC</td></tr>`;
        })
        .join("")
    : '<tr><td colspan="5" class="muted">No finished game matches.</td></tr>';
  $("more").hidden = !body.next_cursor;
  $("more").onclick = () => load(body.next_cursor);
  $("first-page").hidden = !cursor;
  $("first-page").onclick = () => load(null);
}

for (const [k, v] of new URLSearchParams(location.search)) {
  if (form.elements[k]) form.elements[k].value = v;
}
form.addEventListener("submit", (e) => {
  e.preventDefault();
  load(null);
});
load(null);
