"""`goodbuddy-kb mcp`: the user's chosen libraries as a read-only knowledge search for other AI
tools, over MCP on standard input/output.

A bridge client like the CLI and the GUI: it attaches to the backend serving the data directory
(or starts one) and never opens the database. The backend decides what it may see — only
libraries switched on as "available to external AI tools", re-checked on every call.
``config`` (the command and client snippets) has no SDK import, so the GUI can use it.
"""

from __future__ import annotations
