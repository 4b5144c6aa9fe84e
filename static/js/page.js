// What every page needs, written once: finding elements, escaping text for markup, calling the
// JSON API with its one error shape (docs/protocol.md, "Errors"), and saying how long ago.

/**
 * The element with this id.
 * @param {string} id
 * @returns {any} the element (typed loosely: each page knows what its ids are)
 */
export const $ = (id) => document.getElementById(id);

/**
 * Text made safe for HTML or SVG markup.
 * @param {unknown} s
 * @returns {string}
 */
export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}

/** @type {Record<string, string>} */
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * @typedef {object} ApiError the protocol's one error shape
 * @property {string} code
 * @property {string} message
 * @property {string} [rule]
 * @property {string} [field]
 */

/**
 * @typedef {object} ApiAnswer
 * @property {boolean} ok
 * @property {number} status the HTTP status (0 when the request never reached the server)
 * @property {any} data the JSON body ({} when there is none)
 * @property {ApiError | null} error the body's error, or one in words when the server said none
 */

/**
 * Call the JSON API. Never throws: a network failure is an answer with status 0.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body] sent as JSON when given
 * @param {Record<string, string>} [headers] more request headers
 * @returns {Promise<ApiAnswer>}
 */
export async function api(method, path, body, headers = {}) {
  /** @type {RequestInit} */
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers = { ...headers, "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, data: {}, error: { code: "offline", message: "The server cannot be reached: check the connection." } };
  }
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  const error = response.ok ? null : data.error || { code: "http", message: `The server answered ${response.status}.` };
  return { ok: response.ok, status: response.status, data, error };
}

/**
 * "just now", "3 min ago", "2 h ago", "4 d ago" for a span of milliseconds.
 * @param {number} ms
 * @returns {string}
 */
export function ago(ms) {
  const min = Math.floor(Math.max(0, ms) / 60000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  if (min < 1440) return `${Math.floor(min / 60)} h ago`;
  return `${Math.floor(min / 1440)} d ago`;
}

/**
 * A link to an account's profile, or the plain name when the seat has no account.
 * @param {string | null | undefined} name
 * @param {string | null | undefined} account the account's username
 * @returns {string} markup
 */
export function personHtml(name, account) {
  const text = escapeHtml(name || "?");
  return account ? `<a class="person" href="/players/${encodeURIComponent(account)}">${text}</a>` : text;
}
