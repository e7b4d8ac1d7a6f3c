"""Lexical channels: full-text (FTS5 unicode61) and CJK bigrams, with their index lifecycle."""

from __future__ import annotations

from goodbuddy_kb.main_process.lexical.search import LexicalHit, search
from goodbuddy_kb.main_process.lexical.tokens import LexicalQuery, build_query

__all__ = ["LexicalHit", "LexicalQuery", "build_query", "search"]
