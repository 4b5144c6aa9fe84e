// ESLint over the browser code (static/js): the recommended checks (undefined names, unused
// variables, unreachable code, ...) for framework-free ES modules in the browser. `make lint` runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    // a classic script, run before the page paints (no module, so no flash of the wrong theme)
    files: ["static/js/theme.js"],
    languageOptions: { sourceType: "script" },
    rules: { "no-var": "off" },
  },
];
