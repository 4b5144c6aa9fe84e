// The rules pages: draw each diagram's position(s) with the same renderer as the game page.
// Exxit's small fields are drawn larger, so that the cell names their captions use are legible.
import { Board } from "./board.js";

for (const el of document.querySelectorAll(".d-board[data-view]")) {
  const view = JSON.parse(el.dataset.view);
  const caption = el.closest("figure")?.querySelector("figcaption")?.textContent || "";
  new Board(el, { title: `${view.game} diagram: ${caption}`, maxScale: view.board.kind === "field" ? 4.4 : 2.6 }).setView(view);
}
