"""Sources → documents: folder listing, web fetching, incremental sync, watching."""

from __future__ import annotations
