"""The bridge client side: find or start the backend, authenticate, and make typed calls.

Used by the GUI and the CLI alike; imports contracts and Qt's network module, never the backend.
"""

from __future__ import annotations

from goodbuddy_kb.bridge.client import AsyncClient, BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session, open_session

__all__ = ["AsyncClient", "BackendProcess", "BlockingClient", "Session", "open_session"]
