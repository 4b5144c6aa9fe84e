// A result in words: "Black (Ann) wins 6·6·5 to 6·6·4 on the tallest stacks — both players
// passed." and its short form for the move list ("1–0, White resigned"). The reasons are each
// game's outcome reasons (games/*) and the server's (resignation, timeout, abandoned, ...).

import { colourName } from "./stacks.js";

/** Why a game ended; {loser} is the losing player's name. */
const ENDS = {
  "no-moves": "no moves were left", "ply-limit": "the move limit was reached", "double-pass": "both players passed",
  "stock-exhausted": "the stock ran out", repetition: "a position repeated", resignation: "{loser} resigned",
  timeout: "{loser} ran out of time", abandoned: "the game was abandoned",
  agreement: "agreed by both players", disconnect: "{loser} left the game", aborted: "the game was aborted",
};
const GAME_ENDS = { sgolte: { "no-moves": "{loser} had no legal move" } };
// Scores that are lists are compared item by item: their terms.
const LIST_TERMS = { valaturna: "on the tallest stacks", harmijan: "on the creatures' values" };

export const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** "6·6·5 to 6·6·4": both lists up to the first item that differs (the one that decides). */
function listScores(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const from = Math.max(0, i - 2);
  const part = (x) => (from ? "…·" : "") + (x.slice(from, i + 1).join("·") || "nothing");
  return i >= a.length && i >= b.length ? `${part(a)} each` : `${part(a)} to ${part(b)}`;
}

/** Why, in words: "both players passed", "Ann resigned". */
function why(r, slug, playerName) {
  const loser = r.winner ? playerName(3 - r.winner) : "";
  return ((GAME_ENDS[slug] || {})[r.reason] || ENDS[r.reason] || r.reason.replace(/-/g, " ")).replace("{loser}", loser);
}

/** The score, winner's first: " 6–4", " 6·6·5 to 6·6·4 on the tallest stacks", or "". */
function scoreText(r, slug) {
  if (!r.scores) return "";
  const [a, b] = r.winner === 2 ? [r.scores[1], r.scores[0]] : r.scores;
  return Array.isArray(a) ? ` ${listScores(a, b)} ${LIST_TERMS[slug] || ""}`.trimEnd() : ` ${a}–${b}`;
}

/**
 * The whole result in one sentence.
 * @param {any} r the result (an outcome, or the server's ending)
 * @param {string} slug the game
 * @param {(seat: number) => string} playerName
 */
export function resultText(r, slug, playerName) {
  if (!r) return "";
  if (r.reason === "aborted") return "Aborted: the game ended before it began, and counts for nobody.";
  const score = scoreText(r, slug);
  if (r.winner === null || r.winner === undefined) return `Draw${score} — ${why(r, slug, playerName)}.`;
  const who = r.colour ? `${cap(colourName(r.colour))} (${playerName(r.winner)})` : playerName(r.winner);
  return `${who} wins${score} — ${why(r, slug, playerName)}.`;
}

/**
 * The result as a move list ends with it: "1–0, White resigned" ("½–½" for a draw), the first
 * figure being the first column's colour (`columns`, as the move table orders them).
 * @param {any} r
 * @param {string} slug
 * @param {(seat: number) => string} playerName
 * @param {string[]} columns the move table's colours, in order
 */
export function resultLine(r, slug, playerName, columns) {
  if (!r) return "";
  if (r.reason === "aborted") return "Aborted";
  let mark = "½–½";
  if (r.winner) mark = r.colour && columns.length === 2 ? (columns[0] === r.colour ? "1–0" : "0–1") : `${playerName(r.winner)} wins`;
  return `${mark}, ${cap(why(r, slug, playerName))}`;
}
