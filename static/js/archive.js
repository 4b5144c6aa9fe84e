// The archive: the server's filters and cursor paging; each game opens in replay mode.

import { $, escapeHtml, personHtml } from "./page.js";

const form = $("filters");


function resultText(g) {
  const r = g.result;
  if (!r) return "";
  const reason = r.reason.replace(/-/g, " ");
  if (r.winner === null) return `draw (${escapeHtml(reason)})`;
  const p = g.players.find((x) => x.seat === r.winner);
  return `${escapeHtml((p && p.name) || `seat ${r.winner}`)} won (${escapeHtml(reason)})`;
}

// The URL holds the filters, the cursor and the page number, so any page can be bookmarked or
// shared; each new page is a history entry (Back returns to the previous one).
function query(cursor, page) {
  const params = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (String(v).trim()) params.set(k, String(v).trim());
  if (cursor) {
    params.set("cursor", cursor);
    params.set("page", String(page));
  }
  return params;
}

function fromUrl() {
  const params = new URLSearchParams(location.search);
  for (const el of form.elements) if (el.name) el.value = params.get(el.name) || "";
  const who = params.get("account");
  $("identity").hidden = !who;
  $("identity-name").textContent = who || "";
  const page = Number(params.get("page"));
  return { cursor: params.get("cursor"), page: Number.isInteger(page) && page > 1 ? page : 2 };
}

async function load(cursor, page, how) {
  $("error").textContent = "";
  const params = query(cursor, page);
  if (how) history[how](null, "", `${location.pathname}${params.toString() ? `?${params}` : ""}`);
  params.delete("page");
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
          // A seat taken by an account links to its profile (the name is the seat's own).
          let names = g.players
            .map((p) => personHtml(p.name, p.account))
            .join(" vs ");
          if (g.imported) {
            const by = g.imported_by ? `Imported by ${escapeHtml(g.imported_by)}` : "Imported";
            names += `<br><small class="muted">${by}</small>`;
          }
          return `<tr data-game="${escapeHtml(g.id)}"><td><a href="/games/${encodeURIComponent(g.id)}?ply=0">${escapeHtml(g.title)}</a></td>
            <td>${names}</td><td>${resultText(g)}</td><td>${g.moves}</td><td>${when} UTC</td></tr>`;
        })
        .join("")
    : '<tr><td colspan="5" class="muted">No finished game matches.</td></tr>';
  const n = cursor ? page : 1;
  $("page-no").textContent = n > 1 || body.next_cursor ? `Page ${n}` : "";
  $("more").hidden = !body.next_cursor;
  $("more").onclick = () => load(body.next_cursor, n + 1, "pushState");
  $("first-page").hidden = !cursor;
  $("first-page").onclick = () => load(null, 1, "pushState");
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  load(null, 1, "pushState");
});
window.addEventListener("popstate", () => {
  const { cursor, page } = fromUrl();
  load(cursor, page);
});
const first = fromUrl();
load(first.cursor, first.page, "replaceState");
