// The lobby: create a game (options from the rules package's catalogue), join an open one with one
// click (or cancel your own), glance at live games. Both lists follow /ws/live: no polling.

import { timeControl, wireTimeControl } from "./timecontrol.js";
import { LiveList, timeAgo } from "./livefeed.js";
import { $, api, escapeHtml, personHtml } from "./page.js";

const catalogue = JSON.parse($("lobby").dataset.catalogue);
const form = $("new-game");

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

/** The API's answer, or its error thrown (with the protocol's code). */
async function call(method, url, body, headers = {}) {
  const answer = await api(method, url, body, headers);
  if (!answer.ok) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
  return answer.data;
}

async function saveName() {
  const name = $("name").value.trim();
  if (name && name !== $("name").dataset.current) {
    await call("PUT", "/api/me", { name });
    $("name").dataset.current = name;
  }
}

form.addEventListener("change", (e) => {
  if (e.target.name === "game") renderOptions();
});

wireTimeControl("time");

// A rated game is always public (docs/protocol.md, "POST /api/games"): the choice locks to public.
function ratedIsPublic() {
  const rated = Boolean($("rated") && $("rated").checked);
  if (rated) $("visibility").value = "public";
  $("visibility").disabled = rated;
}
if ($("rated")) $("rated").addEventListener("change", ratedIsPublic);
ratedIsPublic();

// Against the computer (docs/protocol.md, "Bots"): the same form, with the bot's level as the
// opponent; such a game is public (anyone may watch it) and starts at once, so "Who can join" goes.
function opponentChosen() {
  const bot = $("opponent").value !== "person";
  $("visibility-option").hidden = bot;
  $("create").textContent = bot ? "Play the computer" : "Create the game";
}
$("opponent").addEventListener("change", opponentChosen);

async function playComputer(body) {
  const made = await call("POST", "/api/bots/games", body);
  location.href = made.url;
}

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
    const rated = Boolean($("rated") && $("rated").checked);
    if ($("opponent").value !== "person") {
      await playComputer({ game: game.slug, options, level: $("opponent").value, seat, rated, time_control: timeControl("time") });
      return;
    }
    const body = { game: game.slug, options, seat, public: $("visibility").value === "public", rated, time_control: timeControl("time") };
    if (rated) body.takebacks = Boolean($("takebacks") && $("takebacks").checked);
    const made = await create(body);
    localStorage.setItem(`hexmoot-game-${made.id}`, JSON.stringify({ join_token: made.join_token, invite_url: made.invite_url }));
    location.href = made.url;
  } catch (err) {
    $("create-error").textContent = err.message;
    $("create").disabled = false;
  }
});

// A creation whose answer is lost (the connection dropped, the proxy timed out) is sent again with
// the same Idempotency-Key, and so is the same form submitted again after such a failure: the
// server answers with the game the first one made, never a second game (docs/protocol.md).
let pending = { key: "", body: "" };
const RETRIED = new Set([0, 502, 503, 504]);

/** 128 random bits, URL-safe (crypto.randomUUID needs a secure context; this does not). */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function create(body) {
  const text = JSON.stringify(body);
  if (pending.body !== text) pending = { key: newKey(), body: text };
  let answer;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (attempt) await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    answer = await api("POST", "/api/games", body, { "Idempotency-Key": pending.key });
    if (!RETRIED.has(answer.status)) break;
  }
  if (!answer.ok) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
  pending = { key: "", body: "" };
  return answer.data;
}

async function join(id, token) {
  try {
    await saveName();
    await call("POST", `/api/games/${id}/join`, { token });
  } catch (err) {
    if (err.code !== "already_seated") {
      $("create-error").textContent = err.message;
      return;
    }
  }
  location.href = `/games/${id}`;
}

async function cancel(id, button) {
  $("open-error").textContent = "";
  button.disabled = true;
  try {
    await call("POST", `/api/games/${id}/cancel`, {});
    live.open.delete(id);
    live.openChanged();
  } catch (err) {
    $("open-error").textContent = err.message;
    button.disabled = false;
  }
}

function mine(g) {
  return g.yours || localStorage.getItem(`hexmoot-game-${g.id}`) !== null; // made in this browser
}

function renderOpen(games) {
  const el = $("open-games");
  if (!games.length) {
    el.innerHTML = '<li class="muted">No game is waiting. Start one!</li>';
    return;
  }
  el.replaceChildren(
    ...games.map((g) => {
      const li = document.createElement("li");
      li.dataset.game = g.id;
      const host = g.players.find((p) => p.name);
      const opts = [...Object.entries(g.options || {}).map(([k, v]) => `${k} ${v}`), g.time || "Unlimited", ...(g.rated ? ["rated"] : [])].join(", ");
      const yours = mine(g);
      const name = yours ? `<a href="/games/${escapeHtml(g.id)}">${escapeHtml(g.title)}</a>` : escapeHtml(g.title);
      li.innerHTML = `<span><b>${name}</b> <span class="muted">${escapeHtml(opts)}</span><br>
        <span class="muted who">${yours ? "your game" : `by ${host ? personHtml(host.name, host.account) : "someone"}`} · </span></span>
        ${yours
          ? `<button type="button" data-cancel="${escapeHtml(g.id)}" aria-label="Cancel your ${escapeHtml(g.title)} game">Cancel</button>`
          : `<button type="button" class="primary" data-join="${escapeHtml(g.id)}" data-token="${escapeHtml(g.join_token)}">Join</button>`}`;
      li.querySelector(".who").append(timeAgo(g.created_at, "created"));
      return li;
    }),
  );
}

// Live games and open games follow the /ws/live socket: the lobby makes no request while idle
// (each /api/live answer was ~100 KB; the open list was fetched every 5 s).
const liveEl = $("live-games");
const noLive = document.createElement("p");
noLive.className = "muted";
noLive.textContent = "No game is being played right now.";
const live = new LiveList(liveEl, {
  limit: 4,
  onOpen: renderOpen,
  caption: (g) => `${escapeHtml(g.title)}: ${g.players.map((x) => personHtml(x.name, x.account)).join(" vs ")}, ${g.moves} moves`,
  onChange: () => {
    if (!noLive.isConnected) liveEl.replaceChildren(...liveEl.querySelectorAll(":scope > .mini"), noLive);
    noLive.hidden = live.games.size > 0;
  },
});

$("open-games").addEventListener("click", (e) => {
  const b = e.target.closest("[data-join]");
  if (b) join(b.dataset.join, b.dataset.token);
  const c = e.target.closest("[data-cancel]");
  if (c) cancel(c.dataset.cancel, c);
});

const asked = new URLSearchParams(location.search);
if ([...$("opponent").options].some((o) => o.value === asked.get("opponent"))) $("opponent").value = asked.get("opponent");
opponentChosen();
const wanted = asked.get("game");
const radios = [...form.querySelectorAll('input[name="game"]:not(:disabled)')];
const pick = radios.find((r) => r.value === wanted) || radios.find((r) => r.checked) || radios[0];
if (pick) pick.checked = true;
renderOptions();
call("GET", "/api/me").then((me) => {
  $("name").dataset.current = me.name;
  if (me.named) $("name").value = me.name;
  else $("name").placeholder = me.name;
}).catch(() => {});
live.connect();
window.hexmoot = { socket: live.socket };
