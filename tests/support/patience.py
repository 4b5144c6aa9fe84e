"""How long a test waits for what must happen before it gives up: ``PATIENCE`` seconds.

A passing test never waits this long; only a failing one does. So the figure is generous, far above
what anything takes on an idle machine: on a machine whose cores are busy with other work, a server
may take tens of seconds to start and a page as long to draw, and a test that then fails has
measured the machine, not the code. A wait for something that must *not* happen (no message within
half a second) is another matter, and says its own figure where it waits.
"""

from __future__ import annotations

PATIENCE = 120.0
PATIENCE_MS = int(PATIENCE * 1000)  # Playwright counts in milliseconds
