"""GoodBuddy KB: a local-first desktop knowledge base (GUI process + privileged backend).

The version is the installed distribution's (``importlib.metadata``), so `--version`, About and
the backend's ping all say what was built, from the one number in pyproject.toml."""

from __future__ import annotations

from importlib.metadata import version

__version__ = version("goodbuddy-kb")
__all__ = ["__version__"]
