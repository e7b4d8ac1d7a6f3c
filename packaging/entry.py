"""The frozen bundle's entry point: the `goodbuddy-kb` command (window, subcommands, and the
backend process the launcher starts with the bundle's own executable)."""

from __future__ import annotations

from goodbuddy_kb.cli import main

raise SystemExit(main())
