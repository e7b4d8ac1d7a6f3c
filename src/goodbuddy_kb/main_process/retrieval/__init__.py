"""The retrieval pipeline: channels → weighted RRF → threshold → rerank → context → budget."""

from __future__ import annotations
