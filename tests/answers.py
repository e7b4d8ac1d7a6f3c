"""A stored chat answer citing one source, for tests of how answers are shown, copied and
exported (no backend needed)."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import chat as c


def stored_answer(
    content: str, snippet: str, title: str = "Travel", locator: dict[str, Any] | None = None
) -> c.Message:
    """An assistant message with ``content`` and one source, [1], of document ``title``
    quoting ``snippet``."""
    ids = "0" * 32
    cited = c.Citation(
        number=1,
        library_id=ids,
        document_id=ids,
        chunk_id=ids,
        relevance=0.5,
        channels=["fts"],
        document_title=title,
        locator=locator or {},
        snippet=snippet,
    )
    return c.Message(
        id=ids,
        conversation_id=ids,
        role="assistant",
        content=content,
        state="complete",
        retrieval=None,
        citations=[cited],
        error=None,
        created_at="2026-12-05T00:00:00Z",
    )
