"""The chat runtime: conversations, request-scoped knowledge search, model clients, citations."""

from __future__ import annotations
