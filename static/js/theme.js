// Light / dark theme: the saved choice wins, else the system's preference, followed live.
// A classic script in <head>, so the page never flashes the wrong theme, and the CSS writes each
// palette once, under [data-theme]. The toggle's name says what it will do ("Switch to dark theme").
(function () {
  var saved = null;
  try { saved = localStorage.getItem("hexmoot-theme"); } catch (e) { /* storage may be off */ }
  var system = matchMedia("(prefers-color-scheme: dark)");
  var root = document.documentElement;
  function name() {
    var button = document.getElementById("theme-toggle");
    if (button) button.setAttribute("aria-label", root.dataset.theme === "dark" ? "Switch to light theme" : "Switch to dark theme");
  }
  function follow() {
    if (saved !== "light" && saved !== "dark") {
      root.dataset.theme = system.matches ? "dark" : "light";
      name();
    }
  }
  if (saved === "light" || saved === "dark") root.dataset.theme = saved;
  else follow();
  system.addEventListener("change", follow);
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    name();
    button.addEventListener("click", function () {
      var next = root.dataset.theme === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      saved = next;
      name();
      try { localStorage.setItem("hexmoot-theme", next); } catch (e) { /* ignore */ }
    });
  });
})();
