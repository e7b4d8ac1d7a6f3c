"""`python -m goodbuddy_kb.main_process`: run the backend (normally started by the launcher)."""

from __future__ import annotations

from goodbuddy_kb.main_process.app import run

raise SystemExit(run())
