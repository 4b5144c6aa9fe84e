// My games: the lists sent on /ws/me (through alerts.js's socket: the "hexmoot:mine" event), the
// challenge form, and this browser's alert switches. Every text from the server goes in with
// textContent, or escaped by personHtml (a person's name, linked to its profile).

import { timeControl, wireTimeControl } from "./timecontrol.js";
import { alertOn, setAlert } from "./alerts.js";
import { terms } from "./notices.js";
import { $, ago, api, personHtml } from "./page.js";

const root = $("my");
const catalogue = JSON.parse(root.dataset.catalogue);

const post = (path, body = {}) => api("POST", path, body);


function gameItem(g, now, extra) {
  const li = document.createElement("li");
  li.dataset.id = g.id;
  const a = document.createElement("a");
  a.href = g.url;
  a.textContent = g.title;
  const head = document.createElement("span");
  head.className = "game-line";
  head.append(a);
  if (g.opponent) {
    // The opponent links to its profile when it has an account (escaped by personHtml).
    const who = document.createElement("span");
    who.innerHTML = personHtml(g.opponent, g.opponent_account);
    head.append(" against ", who);
  } else {
    head.append(", waiting for an opponent");
  }
  const info = document.createElement("span");
  info.className = "muted";
  const time = document.createElement("time");
  time.dateTime = new Date(g.last_activity).toISOString();
  time.textContent = ago(now - g.last_activity);
  const time_ = g.time && g.time !== "Unlimited" ? `, ${g.time}` : "";
  info.append(`${g.moves} moves${g.rated ? ", rated" : ""}${time_} · `, time);
  const left = document.createElement("span");
  left.append(head, document.createElement("br"), info);
  if (g.rematch_of || g.rematch_id) {
    // A rematch links to the game it follows; a game with a rematch, to its rematch.
    const link = document.createElement("a");
    link.href = `/games/${g.rematch_id || g.rematch_of}`;
    link.className = "rematch";
    link.textContent = g.rematch_id ? "its rematch" : "rematch of the previous game";
    left.append(" · ", link);
  }
  li.append(left);
  if (extra) li.append(extra);
  return li;
}

function fill(id, items) {
  $(id).replaceChildren(...items);
  $(`${id}-empty`).hidden = items.length > 0;
}

function render(msg) {
  const now = msg.now;
  fill("your-turn", msg.your_turn.map((g) => gameItem(g, now)));
  fill("waiting", msg.waiting.map((g) => gameItem(g, now)));
  fill(
    "open",
    msg.open.map((g) => {
      const buttons = document.createElement("span");
      buttons.className = "row";
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = "Copy invite link";
      copy.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(new URL(g.invite_url, location.href).href));
      const cancel = document.createElement("button");
      cancel.type = "button";
      cancel.className = "danger";
      cancel.textContent = "Cancel";
      cancel.setAttribute("aria-label", `Cancel the ${g.title} game`);
      cancel.addEventListener("click", () => post(`/api/games/${encodeURIComponent(g.id)}/cancel`));
      buttons.append(copy, cancel);
      return gameItem(g, now, buttons);
    }),
  );
  const challenges = [...msg.challenges.incoming, ...msg.challenges.outgoing].map((c) => {
    const li = document.createElement("li");
    li.dataset.id = c.id;
    const text = document.createElement("span");
    const other = c.incoming ? c.from : c.to;
    const who = document.createElement("span");
    who.innerHTML = personHtml(other.display_name, other.username);
    if (c.incoming) text.append(who, ` challenges you to ${c.title}${terms(c)}`);
    else text.append("You challenged ", who, ` to ${c.title}${terms(c)}`);
    const buttons = document.createElement("span");
    buttons.className = "row";
    const act = (label, action, cls) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      if (cls) b.className = cls;
      b.addEventListener("click", async () => {
        const answer = await post(`/api/challenges/${encodeURIComponent(c.id)}/${action}`);
        if (answer.ok && answer.data.url) location.href = answer.data.url;
      });
      return b;
    };
    if (c.incoming) buttons.append(act("Accept", "accept", "primary"), act("Decline", "decline"));
    else buttons.append(act("Cancel", "cancel", "danger"));
    li.append(text, buttons);
    return li;
  });
  fill("challenges", challenges);
  fill(
    "finished",
    msg.finished.map((g) => {
      const li = gameItem(g, now);
      const outcome = document.createElement("strong");
      outcome.textContent = { won: "Won", lost: "Lost", draw: "Drawn" }[g.outcome] || "";
      li.append(outcome);
      return li;
    }),
  );
  $("turn-count").textContent = msg.turn_count ? String(msg.turn_count) : "";
  $("turn-count").hidden = !msg.turn_count;
}

window.addEventListener("hexmoot:mine", (e) => render(e.detail));
const latest = window.hexmootAlerts && window.hexmootAlerts.latest();
if (latest) render(latest);

// --- the challenge form ---------------------------------------------------------------------
const form = $("challenge-form");
if (form) {
  const wanted = new URLSearchParams(location.search).get("challenge");
  if (wanted) {
    $("challenge-to").value = wanted;
    $("challenge-to").focus();
  }
  const options = () => {
    const game = catalogue.find((g) => g.slug === $("challenge-game").value);
    const box = $("challenge-options");
    box.replaceChildren();
    for (const opt of (game && game.options) || []) {
      const wrap = document.createElement("div");
      wrap.className = "field";
      const label = document.createElement("label");
      label.htmlFor = `challenge-opt-${opt.name}`;
      label.textContent = opt.label || opt.name;
      const select = document.createElement("select");
      select.id = `challenge-opt-${opt.name}`;
      select.dataset.option = opt.name;
      for (const choice of opt.choices) {
        const o = document.createElement("option");
        o.value = JSON.stringify(choice);
        o.textContent = String(choice);
        if (choice === opt.default) o.selected = true;
        select.append(o);
      }
      wrap.append(label, select);
      box.append(wrap);
    }
  };
  $("challenge-game").addEventListener("change", options);
  wireTimeControl("challenge-time");
  options();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const opts = {};
    for (const s of $("challenge-options").querySelectorAll("select")) opts[s.dataset.option] = JSON.parse(s.value);
    const seat = $("challenge-seat").value;
    const answer = await post("/api/challenges", {
      to: $("challenge-to").value,
      game: $("challenge-game").value,
      options: opts,
      seat: seat === "random" ? "random" : Number(seat),
      rated: $("challenge-rated").checked,
      time_control: timeControl("challenge-time"),
    });
    $("challenge-error").textContent = answer.ok ? "" : answer.data.error.message;
    if (answer.ok) $("challenge-to").value = "";
  });
}

// --- this browser's alerts --------------------------------------------------------------------
for (const name of ["title", "notify", "sound"]) {
  const box = $(`alert-${name}`);
  box.checked = alertOn(name) && (name !== "notify" || ("Notification" in window && Notification.permission === "granted"));
  box.addEventListener("change", async () => {
    if (name === "notify" && box.checked && "Notification" in window && Notification.permission !== "granted") {
      const permission = await Notification.requestPermission(); // asked on this click only
      box.checked = permission === "granted";
    }
    setAlert(name, box.checked);
    notifyState();
  });
}

function notifyState() {
  const state = $("notify-state");
  if (!("Notification" in window)) state.textContent = "This browser has no notifications.";
  else if (Notification.permission === "denied") state.textContent = "Notifications are blocked for this site in the browser's settings.";
  else state.textContent = "";
}
notifyState();
