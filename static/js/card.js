// A game's card (templates/card.html): the board after one ply, drawn by the game page's own
// renderer from the view the page carries, for the picture a shared link shows.
import { Board } from "./board.js";

const view = JSON.parse(document.getElementById("card-view").textContent);
const board = new Board(document.getElementById("card-board"), { title: document.getElementById("card-title").textContent, coordinates: false });
board.setView(view, null);
document.body.dataset.drawn = "true";
