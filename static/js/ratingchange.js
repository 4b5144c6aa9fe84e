// A finished rated game's rating changes, as one line per seat ("Ann: 1500 → 1662 (+162)"),
// yours first. Text only (textContent): the usernames come from the server.

/** Fill `el` with the changes of `result.ratings` (hidden when the game was not rated). */
export function renderRatingChange(el, result, mySeat) {
  const ratings = (result && result.ratings) || [];
  el.hidden = ratings.length === 0;
  el.replaceChildren();
  const ordered = [...ratings].sort((a, b) => (b.seat === mySeat) - (a.seat === mySeat));
  for (const r of ordered) {
    const delta = r.after - r.before;
    const line = document.createElement("span");
    line.className = "rating-line";
    const who = r.seat === mySeat ? "Your rating" : `${r.username}'s rating`;
    const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
    const note = r.provisional ? ", provisional" : "";
    line.textContent = `${who}: ${r.before} → ${r.after} (${sign}${Math.abs(delta)}${note})`;
    el.append(line);
  }
}
