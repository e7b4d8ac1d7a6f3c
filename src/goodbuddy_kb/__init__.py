"""GoodBuddy KB: a local-first desktop knowledge base (GUI process + privileged backend)."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
