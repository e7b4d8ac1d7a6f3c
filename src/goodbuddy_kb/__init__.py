"""GoodBuddy KB: a local-first desktop knowledge base (GUI process + privileged backend).

The version is the installed distribution's (``importlib.metadata``), so `--version`, About and
the backend's ping all say what was built, from the one number in pyproject.toml."""

from __future__ import annotations

import os
from importlib.metadata import version

# ONNX Runtime's official Linux and macOS builds (1.2x and later) collect telemetry by default: a
# device identifier and an offline cache under ~/.cache/Microsoft, and uploads to Microsoft. The
# product promises no network except to endpoints the user configured, so it is switched off
# in every process of the product before ONNX Runtime can be imported (it reads this once).
os.environ["ORT_DISABLE_TELEMETRY"] = "1"

__version__ = version("goodbuddy-kb")
__all__ = ["__version__"]
