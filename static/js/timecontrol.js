// The time control chosen in a form (templates/_time.html): a preset ("realtime:180:2",
// "correspondence:3"), "unlimited", or the custom real-time choice, as POST /api/games takes it.

/** Show the custom fields while "Custom…" is chosen in the select of ids `${prefix}-…`. */
export function wireTimeControl(prefix) {
  const select = document.getElementById(`${prefix}-control`);
  if (!select) return;
  select.addEventListener("change", () => {
    document.getElementById(`${prefix}-custom`).hidden = select.value !== "custom";
  });
}

/** The time control of the form's fields of ids `${prefix}-…` (null without them). */
export function timeControl(prefix) {
  const select = document.getElementById(`${prefix}-control`);
  if (!select) return null;
  const v = select.value;
  if (v === "custom") {
    const minutes = Number(document.getElementById(`${prefix}-minutes`).value);
    const increment = Number(document.getElementById(`${prefix}-increment`).value);
    return { kind: "realtime", base: Math.round(minutes * 60), increment: Math.round(increment) };
  }
  const [kind, a, b] = v.split(":");
  if (kind === "realtime") return { kind, base: Number(a), increment: Number(b) };
  if (kind === "correspondence") return { kind, days: Number(a) };
  return { kind: "unlimited" };
}
