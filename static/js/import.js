// The import page (docs/protocol.md, "POST /api/archive/import"): a record uploaded or pasted is
// sent as it is; a refusal says which ply is at fault and why, and an import opens its game page,
// which marks it imported.

import { $, api } from "./page.js";

const form = $("import-form");

async function loadName() {
  const me = await api("GET", "/api/me");
  if (!me.ok) return;
  $("name").dataset.current = me.data.named ? me.data.name : "";
  $("name").value = me.data.named ? me.data.name : "";
}

$("record-file").addEventListener("change", async () => {
  const file = $("record-file").files[0];
  if (!file) return;
  $("record").value = await file.text();
  $("record-error").textContent = "";
});

/** The refusal in words: the first bad ply and its move when a move is at fault. */
function refusal(error, record) {
  if (error.code !== "invalid_record" || !error.ply) return error.message;
  const move = record && Array.isArray(record.moves) ? record.moves[error.ply - 1] : undefined;
  const at = typeof move === "string" ? `Ply ${error.ply} (${move})` : `Ply ${error.ply}`;
  return `${at} is the first bad one: ${error.message.replace(/^ply \d+: /i, "")}`;
}

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  $("name-error").textContent = "";
  $("record-error").textContent = "";
  const name = $("name").value.trim();
  if (!name) {
    $("name-error").textContent = "Choose the name the archive shows as this game's importer.";
    $("name").focus();
    return;
  }
  const text = $("record").value.trim();
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    $("record-error").textContent = text ? "This is not JSON: paste the whole record, or choose its file." : "Choose a record file, or paste a record.";
    $("record").focus();
    return;
  }
  $("import").disabled = true;
  try {
    if (name !== $("name").dataset.current) {
      const named = await api("PUT", "/api/me", { name });
      if (!named.ok) {
        $("name-error").textContent = named.error.message;
        return;
      }
      $("name").dataset.current = name;
    }
    const answer = await api("POST", "/api/archive/import", record);
    if (!answer.ok) {
      $("record-error").textContent = refusal(answer.error, record);
      return;
    }
    location.href = answer.data.url;
  } finally {
    $("import").disabled = false;
  }
});

loadName();
