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

/** The SVG document `text` drawn as a PNG (a Blob), its longer side PNG_SIDE pixels. */
export async function svgToPng(text) {
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = PNG_SIDE / Math.max(image.naturalWidth, image.naturalHeight);
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(image.naturalWidth * scale);
    canvas.height = Math.round(image.naturalHeight * scale);
    canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the image could not be made"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
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
