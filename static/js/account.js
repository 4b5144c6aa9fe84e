// The account pages: log in (then offer to attach this browser's guest games), sign up, the
// settings (display name, email and whether it is verified, digest, password, sessions, log out and
// log out everywhere), recovering a password, and the page a verification link opens.
// Every request goes to the JSON API (docs/protocol.md, "Accounts"); an error is shown next to
// its field (the error's `field`), or above the button.

import { $, api as call } from "./page.js";

/** Show an API error next to its field (or in `fallback`), and clear the others of `form`. */
function showError(form, error, fallback, fields = {}) {
  for (const el of form.querySelectorAll(".error")) el.textContent = "";
  if (!error) return;
  const field = fields[error.field] || error.field;
  const target = (field && $(`${field}-error`)) || $(fallback);
  if (target) target.textContent = error.message;
  const input = field && $(field);
  if (input) input.focus();
}

/** Where to go after logging in: ?next= when it is a path of this site, else My games. */
function next() {
  const wanted = new URLSearchParams(location.search).get("next") || "";
  return wanted.startsWith("/") && !wanted.startsWith("//") ? wanted : "/my";
}

const login = $("login-form");
if (login) {
  login.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await call("POST", "/api/account/login", { username: $("username").value, password: $("password").value });
    if (!answer.ok) {
      showError(login, answer.data.error, "form-error");
      return;
    }
    showError(login, null);
    if (answer.data.claimable > 0) {
      login.hidden = true;
      const n = answer.data.claimable;
      $("claim-text").textContent = `Attach the ${n} game${n === 1 ? "" : "s"} played in this browser as ${answer.data.guest_name} to your account?`;
      $("claim").hidden = false;
      $("claim-yes").focus();
      return;
    }
    location.href = next();
  });
  $("claim-yes").addEventListener("click", async () => {
    const answer = await call("POST", "/api/account/claim", {});
    if (!answer.ok) {
      $("claim-done").textContent = answer.data.error ? answer.data.error.message : "That failed: try again";
      return;
    }
    location.href = next();
  });
  $("claim-no").addEventListener("click", () => {
    location.href = next();
  });
}

const signup = $("signup-form");
if (signup) {
  signup.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { username: $("username").value, password: $("password").value };
    if ($("email") && $("email").value) body.email = $("email").value;
    const answer = await call("POST", "/api/account/signup", body);
    if (!answer.ok) {
      showError(signup, answer.data.error, "form-error");
      return;
    }
    location.href = next();
  });
}

/**
 * Show whether the account's address is verified: verified; unverified, with the resend button;
 * or none.
 * @param {{email: string | null, email_verified: boolean}} account
 */
function showEmailState(account) {
  const state = $("email-state");
  if (!state) return;
  const shown = account.email === null ? "none" : account.email_verified ? "verified" : "unverified";
  state.dataset.state = shown;
  $("email-none").hidden = shown !== "none";
  $("email-verified").hidden = shown !== "verified";
  $("email-unverified").hidden = shown !== "unverified";
  $("email-pending").textContent = account.email || "";
}

const settings = $("settings");
if (settings) {
  const account = await call("GET", "/api/account");
  if (account.ok) {
    if ($("email")) $("email").value = account.data.email || "";
    showEmailState(account.data);
    $("digest").checked = Boolean(account.data.settings.digest);
  }
  $("name-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await call("PUT", "/api/me", { name: $("display-name").value });
    showError(e.target, answer.ok ? null : answer.data.error, "name-error", { name: "display-name" });
    $("name-done").textContent = answer.ok ? "Saved" : "";
  });
  if ($("email-form")) {
    $("email-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const before = $("email-pending").textContent;
      const answer = await call("PUT", "/api/account/email", { email: $("email").value || null });
      showError(e.target, answer.ok ? null : answer.data.error, "email-error");
      $("resend-done").textContent = "";
      if (!answer.ok) {
        $("email-done").textContent = "";
        return;
      }
      // A new address (not the same one in another case) was mailed its link.
      const mailed = answer.data.email !== null && answer.data.email.toLowerCase() !== before.toLowerCase();
      $("email-done").textContent = mailed ? "Saved: we sent it a link to confirm it" : "Saved";
      showEmailState(answer.data);
    });
    $("email-resend").addEventListener("click", async () => {
      const answer = await call("POST", "/api/account/email/resend", {});
      $("resend-done").textContent = answer.ok ? "Sent: check your mail (the older links no longer work)" : answer.error.message;
    });
  }
  $("digest").addEventListener("change", async (e) => {
    const answer = await call("PUT", "/api/account/settings", { digest: e.target.checked });
    if (!answer.ok) e.target.checked = !e.target.checked;
  });
  $("password-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await call("POST", "/api/account/password", { current: $("current").value, new: $("new").value });
    showError(e.target, answer.ok ? null : answer.data.error, "new-error", { password: "new" });
    $("password-done").textContent = answer.ok ? "Changed: your other sessions were logged out" : "";
    if (answer.ok) {
      $("current").value = "";
      $("new").value = "";
      await sessions();
    }
  });
  $("logout").addEventListener("click", async () => {
    await call("POST", "/api/account/logout", {});
    location.href = "/";
  });
  $("logout-all").addEventListener("click", async () => {
    await call("POST", "/api/account/logout-all", {});
    location.href = "/";
  });
  await sessions();
}

async function sessions() {
  const answer = await call("GET", "/api/account/sessions");
  const list = $("sessions");
  list.replaceChildren();
  if (!answer.ok) {
    $("sessions-error").textContent = answer.data.error ? answer.data.error.message : "";
    return;
  }
  for (const s of answer.data.sessions) {
    const li = document.createElement("li");
    const text = document.createElement("span");
    const seen = new Date(s.last_seen_at).toLocaleString();
    text.textContent = `${s.browser}${s.current ? " (this browser)" : ""}, last seen ${seen}`;
    li.append(text);
    if (!s.current) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Log out";
      button.setAttribute("aria-label", `Log out ${s.browser}, last seen ${seen}`);
      button.addEventListener("click", async () => {
        await call("DELETE", `/api/account/sessions/${encodeURIComponent(s.id)}`);
        await sessions();
      });
      li.append(button);
    }
    list.append(li);
  }
}

const recover = $("recover-form");
if (recover) {
  recover.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await call("POST", "/api/account/recover", { username_or_email: $("who").value });
    showError(recover, answer.ok ? null : answer.data.error, "who-error", { username_or_email: "who" });
    if (answer.ok) $("recover-done").textContent = "If an account has this name or address, and its address is verified, a link is on its way. It works once, for an hour.";
  });
}

const verify = $("verify");
if (verify) {
  const token = new URLSearchParams(location.search).get("token") || "";
  const answer = await call("POST", "/api/account/email/verify", { token });
  verify.dataset.state = answer.ok ? "verified" : "failed";
  $("verify-working").hidden = true;
  if (answer.ok) {
    $("verified-email").textContent = answer.data.email;
    $("verify-done").hidden = false;
  } else {
    $("verify-error").textContent = answer.error.message;
    $("verify-failed").hidden = false;
  }
}

const reset = $("reset-form");
if (reset) {
  reset.addEventListener("submit", async (e) => {
    e.preventDefault();
    const token = new URLSearchParams(location.search).get("token") || "";
    const answer = await call("POST", "/api/account/reset", { token, password: $("password").value });
    if (!answer.ok) {
      showError(reset, answer.data.error, "form-error");
      return;
    }
    reset.hidden = true;
    $("reset-done").hidden = false;
  });
}
