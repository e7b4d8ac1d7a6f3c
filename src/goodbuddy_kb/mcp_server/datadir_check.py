"""Whether this server's data directory holds GoodBuddy KB data, before a backend is started.

An MCP client's configuration is typed by hand as often as pasted, and starting a backend on a
mistyped ``--data-dir`` would create a new, empty data directory there — the server would then
answer "no library is switched on" about a directory nobody uses. The server starts a backend
only where the database already is (GoodBuddy KB made it); anywhere else it says so and creates
nothing.
"""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.datadir import DATABASE_FILE


class NoDataError(UnavailableError):
    """The data directory does not exist or holds no GoodBuddy KB database."""


def check_data_dir(data_dir: Path) -> NoDataError | None:
    """None when ``data_dir`` holds GoodBuddy KB data, else the refusal to give every call."""
    if (data_dir / DATABASE_FILE).is_file():
        return None
    if not data_dir.exists():
        what = "does not exist"
    elif not data_dir.is_dir():
        what = "is not a folder"
    else:
        what = "holds no GoodBuddy KB data"
    return NoDataError(
        f"the data directory “{data_dir}” of this MCP server {what}, so it has no libraries "
        "to search (nothing was created there). Check --data-dir in the AI tool's MCP "
        "configuration: GoodBuddy KB → Settings → External AI tools (MCP) shows the exact "
        "command for this computer.",
        {"dataDir": str(data_dir)[:300]},
    )


def startup_warning(data_dir: Path) -> str | None:
    """A line for standard error at start, when the data directory holds no data."""
    problem = check_data_dir(data_dir)
    return None if problem is None else f"goodbuddy-kb mcp: warning: {problem.message}"
