// Light / dark theme: the saved choice wins, else the system's preference, followed live.
// A classic script in <head>, so the page never flashes the wrong theme, and the CSS writes each
// palette once, under [data-theme].
(function () {
  var saved = null;
  try { saved = localStorage.getItem("hexmoot-theme"); } catch (e) { /* storage may be off */ }
  var system = matchMedia("(prefers-color-scheme: dark)");
  function follow() {
    if (saved !== "light" && saved !== "dark") {
      document.documentElement.dataset.theme = system.matches ? "dark" : "light";
    }
  }
  if (saved === "light" || saved === "dark") document.documentElement.dataset.theme = saved;
  else follow();
  system.addEventListener("change", follow);
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    button.addEventListener("click", function () {
      var next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      saved = next;
      try { localStorage.setItem("hexmoot-theme", next); } catch (e) { /* ignore */ }
    });
  });
})();
