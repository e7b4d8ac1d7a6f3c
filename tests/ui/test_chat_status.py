"""The badge over an answer says truthfully how it was searched: a degraded search first is
still a search first, and searches the model made after it are counted, not hidden (the
diagnostics record counts them; the badge said only "Searched first", found under Xvfb)."""

from __future__ import annotations

import pytest

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.ui.chat.transcript import status_text
from goodbuddy_kb.ui.i18n import set_language


def answer(state: c.RetrievalState) -> c.Message:
    return c.Message(
        id="1" * 32,
        conversation_id="2" * 32,
        role="assistant",
        content="…",
        state="complete",
        retrieval=state,
        citations=[],
        error=None,
        created_at="2026-12-03T00:00:00Z",
    )


@pytest.mark.parametrize(
    ("status", "searches", "reason", "en", "zh"),
    [
        ("searched", 1, None, "Searched first", "已预检索"),
        (
            "searched",
            3,
            None,
            "Searched first; the model searched 2 more times",
            "已预检索；模型又检索了 2 次",
        ),
        (
            "degraded",
            2,
            "the knowledge graph could not be searched (OperationalError)",
            "Searched first, degraded (the knowledge graph could not be searched"
            " (an unexpected error)); the model searched 1 more time",
            "已预检索，已降级（",
        ),
    ],
)
def test_a_search_first_says_what_followed(
    status: str, searches: int, reason: str | None, en: str, zh: str
) -> None:
    state = c.RetrievalState(mode="always", status=status, reason=reason, searches=searches)  # type: ignore[arg-type]
    try:
        set_language("en")
        assert status_text(answer(state)) == en
        set_language("zh")
        assert status_text(answer(state)).startswith(zh)
    finally:
        set_language("en")
