// The rules pages: draw each diagram's position(s) with the same renderer as the game page.
import { Board } from "./board.js";

for (const el of document.querySelectorAll(".d-board[data-view]")) {
  const view = JSON.parse(el.dataset.view);
  const caption = el.closest("figure")?.querySelector("figcaption")?.textContent || "";
  new Board(el, { title: `${view.game} diagram: ${caption}`, maxScale: 2.6 }).setView(view);
}
