// The lobby: create a game (options from the rules package's catalogue), join an open one with one
// click, glance at live games (followed over /ws/live).

import { LiveList } from "./livefeed.js";

const $ = (id) => document.getElementById(id);
const catalogue = JSON.parse($("lobby").dataset.catalogue);
const form = $("new-game");

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

function selectedGame() {
  const checked = form.querySelector('input[name="game"]:checked');
  return catalogue.find((g) => g.slug === (checked && checked.value));
}

function renderOptions() {
  const game = selectedGame();
  $("options").innerHTML = (game ? game.options : [])
    .map((o) => {
      const choices = o.choices
        .map((c) => `<option value="${escapeHtml(c)}"${c === o.default ? " selected" : ""}>${escapeHtml(c)}${c === o.default ? " (default)" : ""}</option>`)
        .join("");
      return `<div class="option"><label for="opt-${o.name}">${escapeHtml(o.name)}</label>
        <select id="opt-${o.name}" data-option="${escapeHtml(o.name)}" data-kind="${typeof o.default}">${choices}</select>
        <span class="muted">${escapeHtml(o.description)}</span></div>`;
    })
    .join("");
}

async function api(method, url, body) {
  const res = await fetch(url, {
    method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error((data.error && data.error.message) || `${method} ${url}: ${res.status}`);
    err.code = data.error && data.error.code;
    throw err;
  }
  return data;
}

async function saveName() {
  const name = $("name").value.trim();
  if (name && name !== $("name").dataset.current) {
    await api("PUT", "/api/me", { name });
    $("name").dataset.current = name;
  }
}

form.addEventListener("change", (e) => {
  if (e.target.name === "game") renderOptions();
});

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  $("create-error").textContent = "";
  const game = selectedGame();
  if (!game) return;
  const options = {};
  for (const sel of form.querySelectorAll("[data-option]")) {
    options[sel.dataset.option] = sel.dataset.kind === "number" ? Number(sel.value) : sel.value;
  }
  const seat = $("seat").value === "random" ? "random" : Number($("seat").value);
  $("create").disabled = true;
  try {
    await saveName();
    const made = await api("POST", "/api/games", { game: game.slug, options, seat, public: $("visibility").value === "public" });
    localStorage.setItem(`hexmoot-game-${made.id}`, JSON.stringify({ join_token: made.join_token, invite_url: made.invite_url }));
    location.href = made.url;
  } catch (err) {
    $("create-error").textContent = err.message;
    $("create").disabled = false;
  }
});

async function join(id, token) {
  try {
    await saveName();
    await api("POST", `/api/games/${id}/join`, { token });
  } catch (err) {
    if (err.code !== "already_seated") {
      $("create-error").textContent = err.message;
      return;
    }
  }
  location.href = `/games/${id}`;
}

async function refreshOpen() {
  try {
    const { games } = await api("GET", "/api/games/open");
    const el = $("open-games");
    el.innerHTML = games.length
      ? games
          .map((g) => {
            const host = g.players.find((p) => p.name);
            const opts = Object.entries(g.options || {}).map(([k, v]) => `${k} ${v}`).join(", ");
            return `<li data-game="${escapeHtml(g.id)}"><span><b>${escapeHtml(g.title)}</b> <span class="muted">${escapeHtml(opts)}</span><br>
              <span class="muted">by ${escapeHtml(host ? host.name : "someone")}</span></span>
              <button type="button" class="primary" data-join="${escapeHtml(g.id)}" data-token="${escapeHtml(g.join_token)}">Join</button></li>`;
          })
          .join("")
      : '<li class="muted">No game is waiting. Start one!</li>';
  } catch (err) {
    $("open-games").innerHTML = `<li class="error">${escapeHtml(err.message)}</li>`;
  }
}

// Live games follow the /ws/live socket (no polling: each /api/live answer is ~100 KB). The
// open-games list is not on that socket, so it keeps its light refresh (GET /api/games/open).
const liveEl = $("live-games");
const noLive = document.createElement("p");
noLive.className = "muted";
noLive.textContent = "No game is being played right now.";
const live = new LiveList(liveEl, {
  limit: 4,
  caption: (g) => `${g.title}: ${g.players.map((x) => x.name || "?").join(" vs ")}, ${g.moves} moves`,
  onChange: () => {
    if (!noLive.isConnected) liveEl.replaceChildren(...liveEl.querySelectorAll(":scope > .mini"), noLive);
    noLive.hidden = live.games.size > 0;
  },
});

$("open-games").addEventListener("click", (e) => {
  const b = e.target.closest("[data-join]");
  if (b) join(b.dataset.join, b.dataset.token);
});

const wanted = new URLSearchParams(location.search).get("game");
const radios = [...form.querySelectorAll('input[name="game"]:not(:disabled)')];
const pick = radios.find((r) => r.value === wanted) || radios.find((r) => r.checked) || radios[0];
if (pick) pick.checked = true;
renderOptions();
api("GET", "/api/me").then((me) => {
  $("name").dataset.current = me.name;
  if (me.named) $("name").value = me.name;
  else $("name").placeholder = me.name;
}).catch(() => {});
refreshOpen();
setInterval(() => document.hidden || refreshOpen(), 5000); // not while the tab is in the background
document.addEventListener("visibilitychange", () => document.hidden || refreshOpen());
live.connect();
window.hexmoot = { socket: live.socket };
