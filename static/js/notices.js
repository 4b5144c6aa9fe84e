// Notices on every page (the #notices region of base.html), fed by alerts.js's /ws/me socket
// (docs/protocol.md, "WS /ws/me"): each challenge you received, with Accept and Decline, wherever
// you are; and the answer to a challenge you sent: accepted, this page goes to the game (a game
// page, where you may be playing, offers a link instead); declined, it says so. Every text from the
// server goes in with textContent.

import { $, api, personHtml } from "./page.js";

const HIDDEN_KEY = "hexmoot-hidden-challenges"; // the challenges hidden in this tab
const gamePage = document.querySelector("[data-turn-icon]") !== null;
const myPage = $("my") !== null; // My games lists the challenges with their own buttons
const outgoing = new Map(); // id -> a challenge you sent, as last listed (its title, once answered)

function hiddenIds() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(HIDDEN_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function hide(id) {
  const ids = hiddenIds();
  ids.add(id);
  try {
    sessionStorage.setItem(HIDDEN_KEY, JSON.stringify([...ids]));
  } catch {
    // storage off: it is hidden until the next list
  }
}

/** A challenge's terms after its game's title: " (3+2, rated)", or nothing. */
export function terms(c) {
  const parts = [...(c.time && c.time !== "Unlimited" ? [c.time] : []), ...(c.rated ? ["rated"] : [])];
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** A person as a link to the profile (a challenge's people are always accounts). */
function person(p) {
  const span = document.createElement("span");
  span.innerHTML = personHtml(p.display_name || p.username, p.username); // escaped
  return span;
}

function button(label, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener("click", onClick);
  return b;
}

function card(key, ...content) {
  const box = document.createElement("div");
  box.className = "notice-card";
  box.dataset.notice = key;
  box.append(...content);
  return box;
}

function closeButton(label, onClose) {
  const b = button("×", "notice-close", onClose);
  b.setAttribute("aria-label", label);
  return b;
}

/** The cards of the challenges you received (replacing the earlier ones), from a `mine`. */
export function showChallenges(msg) {
  for (const c of msg.challenges.outgoing) outgoing.set(c.id, c);
  const region = $("notices");
  if (!region) return;
  for (const old of region.querySelectorAll('[data-notice^="c:"]')) old.remove();
  if (myPage) return;
  const hidden = hiddenIds();
  for (const c of msg.challenges.incoming) {
    if (hidden.has(c.id)) continue;
    const text = document.createElement("p");
    text.append(person(c.from), ` challenges you to ${c.title}${terms(c)}.`);
    const error = document.createElement("p");
    error.className = "error";
    error.setAttribute("role", "alert");
    const answer = async (action) => {
      error.textContent = "";
      const done = await api("POST", `/api/challenges/${encodeURIComponent(c.id)}/${action}`, {});
      if (!done.ok) error.textContent = done.error.message;
      else if (done.data.url) location.href = done.data.url;
    };
    const row = document.createElement("div");
    row.className = "row";
    row.append(
      button("Accept", "primary", () => answer("accept")),
      button("Decline", "", () => answer("decline")),
    );
    const close = closeButton(`Hide the challenge from ${c.from.display_name}`, () => {
      hide(c.id);
      box.remove();
    });
    const box = card(`c:${c.id}`, close, text, row, error);
    box.setAttribute("aria-label", "A challenge");
    box.setAttribute("role", "group");
    region.append(box);
  }
}

/** A challenge you sent was answered (`challenge_answered`). */
export function challengeAnswered(msg) {
  const region = $("notices");
  const sent = outgoing.get(msg.id);
  const what = sent ? ` to ${sent.title}` : "";
  if (msg.status === "accepted" && msg.url && !gamePage) {
    location.href = msg.url; // both players go to the game: the accepter by its own answer
    return;
  }
  if (!region) return;
  const text = document.createElement("p");
  text.append(person(msg.by), msg.status === "accepted" ? ` accepted your challenge${what}: ` : ` declined your challenge${what}.`);
  if (msg.status === "accepted" && msg.url) {
    const go = document.createElement("a");
    go.href = msg.url;
    go.textContent = "go to the game";
    text.append(go);
  }
  const key = `a:${msg.id}`;
  const box = card(key, closeButton("Hide this notice", () => box.remove()), text);
  const old = region.querySelector(`[data-notice="${key}"]`);
  if (old) old.replaceWith(box);
  else region.append(box);
}
