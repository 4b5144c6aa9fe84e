"""axe-core in the browser tests: run its default rules on a page and fail on any serious or
critical violation, naming each (rule, element, what is wrong).

axe.min.js is axe-core 4.14.1 from npm, pinned in package.json and package-lock.json and installed
by ``make test`` (``npm ci``): PyPI's newest copy, 4.12.1 inside axe-playwright-python, still runs
``label-content-name-mismatch`` only when asked. It is injected into the page under test only,
never served by the site.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

BLOCKING = ("serious", "critical")
AXE_VERSION = "4.14.1"
AXE_FILE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


@cache
def axe_script() -> str:
    """npm's axe.min.js (``make install-js``), checked to be the version this module names."""
    script = AXE_FILE.read_text(encoding="utf-8")
    assert script.startswith(f"/*! axe v{AXE_VERSION}"), (
        "node_modules holds another axe-core than the one named: run `make install-js`"
    )
    return script


# Every default rule; only its violations come back (passes and incomplete are not wanted).
_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ["violations"]});
  return r.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({impact: n.impact, target: n.target.join(" "),
                              summary: n.failureSummary || ""})),
  }));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now, every impact."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    result: list[dict[str, Any]] = page.evaluate(_RUN)
    return result


def serious_axe(page: Page, context_name: str) -> list[str]:
    """One line per serious or critical violating element: context, rule id, target, summary."""
    lines = []
    for v in axe_violations(page):
        for node in v["nodes"]:
            impact = node["impact"] or v["impact"]
            if impact in BLOCKING:
                summary = " ".join(node["summary"].split())
                lines.append(f"{context_name}: {v['id']} ({impact}) at {node['target']}: {summary}")
    return lines


def assert_no_serious_axe(page: Page, context_name: str) -> None:
    """Fail listing each serious or critical axe-core violation of the page as it is now."""
    found = serious_axe(page, context_name)
    assert not found, f"{len(found)} serious axe violations:\n" + "\n".join(found)
