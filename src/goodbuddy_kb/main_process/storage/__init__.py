"""SQLite storage: connections, migrations and repositories (one module per concern)."""

from __future__ import annotations
