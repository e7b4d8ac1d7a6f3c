"""`python -m goodbuddy_kb` behaves like the `goodbuddy-kb` command."""

from __future__ import annotations

from goodbuddy_kb.cli import main

raise SystemExit(main())
