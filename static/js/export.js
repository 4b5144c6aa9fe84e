// Taking a game away (issue 28): its move list as text, in the rows and the notation the page
// shows, and the position on the board as a standalone SVG or PNG image. The image is the board's
// own SVG with the styles the page gives it written onto each element (the theme's colours
// included) and the page's background behind it, so the file looks as the board does; the PNG is
// that SVG drawn on a canvas, in the browser. Nothing here knows a rule.

import { moveTable } from "./replay.js";

// The properties board.css sets on the board's shapes and text: each is written onto the copy,
// all of them SVG presentation attributes.
const STYLED = [
  "display", "visibility", "opacity", "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity",
  "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "paint-order", "filter",
  "font-family", "font-size", "font-weight", "text-anchor", "dominant-baseline",
];
// What only the page needs: the click targets and the hint drawn under the pointer.
const INTERACTIVE = ".hits, .overlay";
// The longer side of a PNG, in pixels.
const PNG_SIDE = 1200;

/** The move list as text, one row a line, as the page numbers them: "Opening: e3/e7",
 *  "Choice: takes black", "1. a4 c5". */
export function moveListText(moves, view, first) {
  return moveTable(moves, view, first)
    .rows.map((row) => `${row.label}${row.wide ? ":" : ""} ${row.plies.map(([, text]) => text).join(" ")}`)
    .join("\n");
}

/** The board `svg` as a standalone SVG document (text) on `background`, titled `title`; its
 *  size in pixels is its viewBox's. */
export function positionSvg(svg, background, title) {
  const copy = svg.cloneNode(true);
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  const interactive = [...copy.querySelectorAll(INTERACTIVE)]; // found while they have their classes
  originals.forEach((el, i) => {
    // as presentation attributes, not a style attribute (the page's CSP refuses inline styles)
    const style = getComputedStyle(el);
    for (const p of STYLED) copies[i].setAttribute(p, style.getPropertyValue(p));
    for (const name of ["class", "style", "tabindex", "role", "aria-label", "aria-description", "data-id", "id"]) {
      copies[i].removeAttribute(name);
    }
  });
  interactive.forEach((el) => el.remove());
  const [x, y, w, h] = svg.getAttribute("viewBox").split(" ").map(Number);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("width", String(w));
  copy.setAttribute("height", String(h));
  const back = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  // a unit past each edge, so that no edge pixel is left half covered at any scale
  const cover = { x: x - 1, y: y - 1, width: w + 2, height: h + 2, fill: background };
  for (const [k, v] of Object.entries(cover)) back.setAttribute(k, String(v));
  const name = document.createElementNS("http://www.w3.org/2000/svg", "title");
  name.textContent = title;
  copy.prepend(name, back);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

/** The SVG document `text` drawn as an image file of `type` (a Blob), its longer side `side`
 *  pixels; `quality` for a lossy type. */
export async function svgToImage(text, type = "image/png", side = PNG_SIDE, quality = undefined) {
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = side / Math.max(image.naturalWidth, image.naturalHeight);
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(image.naturalWidth * scale);
    canvas.height = Math.round(image.naturalHeight * scale);
    canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, type, quality));
    // a browser that cannot encode `type` gives a PNG instead, or nothing
    if (!blob || blob.type !== type) throw new Error(`this browser cannot make ${type} images`);
    return blob;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The SVG document `text` drawn as a PNG (a Blob), its longer side PNG_SIDE pixels. */
export const svgToPng = (text) => svgToImage(text);

// An animated WebP (Google's "WebP Container Specification"): a RIFF file whose VP8X chunk says
// "animated", an ANIM chunk (background, loops), then one ANMF chunk per frame holding that
// frame's own image chunks (ALPH, VP8 or VP8L) as the browser encoded it alone.
const FRAME_CHUNKS = new Set(["ALPH", "VP8 ", "VP8L"]);

function fourcc(bytes, at) {
  return String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
}

/** The image chunks of a still WebP file (bytes), each whole with its header and padding. */
function imageChunks(bytes) {
  if (fourcc(bytes, 0) !== "RIFF" || fourcc(bytes, 8) !== "WEBP") throw new Error("not a WebP image");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks = [];
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    const end = at + 8 + size + (size & 1);
    if (FRAME_CHUNKS.has(fourcc(bytes, at))) chunks.push(bytes.subarray(at, Math.min(end, bytes.length)));
    at = end;
  }
  if (!chunks.length) throw new Error("a WebP image without an image chunk");
  return chunks;
}

/** A chunk: its four letters, its payload (Uint8Array pieces), padded to an even length. */
function chunk(id, ...parts) {
  const size = parts.reduce((n, p) => n + p.length, 0);
  const head = new Uint8Array(8);
  head.set([...id].map((c) => c.charCodeAt(0)));
  new DataView(head.buffer).setUint32(4, size, true);
  return [head, ...parts, ...(size & 1 ? [new Uint8Array(1)] : [])];
}

function uint24(...values) {
  const out = new Uint8Array(values.length * 3);
  values.forEach((v, i) => out.set([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff], i * 3));
  return out;
}

/**
 * Still WebP images (Uint8Arrays, each `width` x `height`) as one animated WebP (a Blob), frame i
 * shown `durations[i]` ms, looping forever on an opaque `background` ([r, g, b]).
 */
export function animatedWebp(frames, width, height, durations, background = [255, 255, 255]) {
  const anmf = frames.map((bytes, i) => {
    const image = imageChunks(bytes);
    const alpha = image.some((c) => fourcc(c, 0) !== "VP8 ");
    // at (0, 0), the whole canvas; flags: do not blend (each frame is whole), keep
    const head = new Uint8Array([...uint24(0, 0, width - 1, height - 1, durations[i]), 0b10]);
    return { alpha, parts: chunk("ANMF", head, ...image) };
  });
  const alpha = anmf.some((f) => f.alpha);
  const vp8x = new Uint8Array([(alpha ? 0x10 : 0) | 0x02, 0, 0, 0, ...uint24(width - 1, height - 1)]);
  const [r, g, b] = background;
  const anim = new Uint8Array([b, g, r, 255, 0, 0]); // BGRA, then a loop count of 0: forever
  const body = [...chunk("VP8X", vp8x), ...chunk("ANIM", anim), ...anmf.flatMap((f) => f.parts)];
  const size = 4 + body.reduce((n, p) => n + p.length, 0);
  const riff = new Uint8Array(12);
  riff.set([..."RIFF"].map((c) => c.charCodeAt(0)));
  new DataView(riff.buffer).setUint32(4, size, true);
  riff.set([..."WEBP"].map((c) => c.charCodeAt(0)), 8);
  return new Blob([riff, ...body], { type: "image/webp" });
}

/** Save `blob` as a file named `name`, as a download link would. */
export function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
