// Light / dark theme: the saved choice wins, else the system's preference (CSS handles that).
// A classic script in <head>, so the page never flashes the wrong theme.
(function () {
  var saved = null;
  try { saved = localStorage.getItem("hexmoot-theme"); } catch (e) { /* storage may be off */ }
  if (saved === "light" || saved === "dark") document.documentElement.dataset.theme = saved;
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    button.addEventListener("click", function () {
      var current = document.documentElement.dataset.theme ||
        (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
      var next = current === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      try { localStorage.setItem("hexmoot-theme", next); } catch (e) { /* ignore */ }
    });
  });
})();
