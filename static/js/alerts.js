// Your-turn alerts on every page: one /ws/me socket keeps the header's badge, and (outside a game's
// own page, which shows its own game) the tab's title and icon, in step with the games where it
// is your turn. A notification fires when a game becomes your turn (or a challenge arrives) while
// the page is hidden, if this browser allowed notifications (asked only from a button on /my); a
// short tone plays if switched on. Every alert has a switch, kept in this browser (localStorage).
// Pages that show the lists too (/my) listen for the "hexmoot:mine" event instead of a second socket.
// The same socket brings challenges to every page (notices.js): a notice to accept or decline one
// received, and the answer to one sent.

import { ReconnectingSocket } from "./socket.js";

const KEYS = { title: "hexmoot-alert-title", notify: "hexmoot-alert-notify", sound: "hexmoot-alert-sound" };
const DEFAULTS = { title: true, notify: true, sound: false };

/** Whether an alert is switched on in this browser. */
export function alertOn(name) {
  const stored = localStorage.getItem(KEYS[name]);
  return stored === null ? DEFAULTS[name] : stored === "on";
}

/** Switch an alert on or off in this browser. */
export function setAlert(name, on) {
  localStorage.setItem(KEYS[name], on ? "on" : "off");
  apply();
}

const gamePage = document.querySelector("[data-turn-icon]") !== null;
const icon = document.querySelector('link[rel="icon"]');
const plainIcon = icon ? icon.href : null;
const turnIcon = plainIcon ? plainIcon.replace(/favicon\.svg[^]*$/, "turn.svg") : null;
const baseTitle = document.title.replace(/^\(\d+\) /, "");
let last = null; // the last "mine" message
let known = null; // ids of your-turn games and incoming challenges already seen
let audio = null;

function apply() {
  const count = last ? last.turn_count : 0;
  const badge = document.getElementById("turn-badge");
  if (badge) {
    // The link's name is its text ("My games", the count, then words only a screen reader needs),
    // so it always holds what is seen (WCAG 2.5.3): no aria-label.
    badge.textContent = count ? String(count) : "";
    badge.hidden = !count;
    const words = document.getElementById("turn-words");
    if (words) words.textContent = count ? ` (your turn in ${count === 1 ? "1 game" : `${count} games`})` : "";
  }
  if (gamePage) return; // the game page titles itself after its own game
  const show = alertOn("title") && count > 0;
  document.title = show ? `(${count}) ${baseTitle}` : baseTitle;
  if (icon && turnIcon) icon.href = show ? turnIcon : plainIcon;
}

function tone() {
  if (!alertOn("sound") || gamePage) return; // the game page has its own sound switch
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.12, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.35);
  } catch {
    // no audio here: the other alerts still work
  }
}

function notify(title, body, tag, url) {
  if (!alertOn("notify") || !("Notification" in window) || Notification.permission !== "granted") return;
  if (!document.hidden) return;
  try {
    const n = new Notification(title, { body, tag, icon: turnIcon || undefined });
    n.onclick = () => {
      window.focus();
      location.href = url;
    };
  } catch {
    // some browsers allow notifications only from a service worker: the title still shows it
  }
}

function onMine(msg) {
  last = msg;
  const fresh = [];
  const seen = new Set();
  for (const g of msg.your_turn) {
    seen.add(`g:${g.id}`);
    if (known && !known.has(`g:${g.id}`)) fresh.push(["Your turn", `${g.title} against ${g.opponent || "your opponent"}`, g.id, g.url]);
  }
  for (const c of msg.challenges.incoming) {
    seen.add(`c:${c.id}`);
    if (known && !known.has(`c:${c.id}`)) fresh.push(["A challenge", `${c.from.display_name} challenges you to ${c.title}`, c.id, "/my"]);
  }
  known = seen;
  apply();
  // The notices' module is loaded once there is a challenge to show (most pages never need it).
  const any = msg.challenges.incoming.length || msg.challenges.outgoing.length;
  if (notices || any) loadNotices().then((m) => m.showChallenges(msg));
  if (fresh.length) tone();
  for (const [title, body, tag, url] of fresh) notify(title, body, tag, url);
  window.dispatchEvent(new CustomEvent("hexmoot:mine", { detail: msg }));
}

function onAnswered(msg) {
  const accepted = msg.status === "accepted";
  const who = msg.by.display_name || msg.by.username;
  notify(accepted ? "Challenge accepted" : "Challenge declined", `${who} ${msg.status} your challenge`, `a:${msg.id}`, msg.url || "/my");
  if (accepted) tone();
  loadNotices().then((m) => m.challengeAnswered(msg));
}

let notices = null;
function loadNotices() {
  notices = notices || import("./notices.js");
  return notices;
}

const socket = new ReconnectingSocket("/ws/me", {
  onMessage: (msg) => {
    if (msg.type === "mine") onMine(msg);
    else if (msg.type === "challenge_answered") onAnswered(msg);
  },
});
socket.connect();
window.hexmootAlerts = { socket, alertOn, setAlert, latest: () => last };
