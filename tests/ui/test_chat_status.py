"""The badge over an answer says truthfully how it was searched: a degraded search first is
still a search first, and searches the model made after it are counted, not hidden (the
diagnostics record counts them; the badge said only "Searched first", found under Xvfb)."""

from __future__ import annotations

import html

import pytest

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.ui.chat.transcript import message_html, status_text
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


def test_the_searches_of_a_questions_parts_are_not_the_models() -> None:
    """A question about several things is searched once for each of them before the answer;
    those searches said "the model searched 3 more times", with no model searching. And it
    says what they added: "3 more searches" read as every part answered, beside one passage."""
    state = c.RetrievalState(mode="always", status="searched", searches=5, parts=3, parts_found=2)
    try:
        set_language("en")
        assert status_text(answer(state)) == (
            "Searched first (the question asks about several things: 3 more searches for them"
            " added 2 passages); the model searched 1 more time"
        )
        state = state.model_copy(update={"searches": 4, "parts_found": 0})
        assert status_text(answer(state)) == (
            "Searched first (the question asks about several things: 3 more searches for them"
            " found nothing more)"
        )
        set_language("zh")
        assert status_text(answer(state)) == (
            "已预检索（问题问了几件事：另为其中各项检索 3 次，没有找到更多相关内容）"
        )
    finally:
        set_language("en")


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


def test_an_answer_the_model_gave_without_searching_says_so() -> None:
    """In "model decides" mode an answer with no search carried no badge: its "[1]" pointed at
    nothing, and nothing said it was not checked against the libraries (a helper's try)."""
    state = c.RetrievalState(mode="auto", status="searched", searches=0)
    try:
        set_language("en")
        assert status_text(answer(state)) == (
            "The model did not search your libraries: not checked against your documents"
        )
        set_language("zh")
        assert status_text(answer(state)) == "模型未检索知识库：回答未对照你的文档"
        streaming = answer(state).model_copy(update={"state": "streaming"})
        assert status_text(streaming) == "", "said once the answer is there"
    finally:
        set_language("en")


def test_a_search_the_scope_refused_says_so_not_that_none_was_made() -> None:
    """A helper's try: the model asked for a library outside the chat's scope, the search was
    refused, and the answer read "The model did not search your libraries"."""
    state = c.RetrievalState(mode="auto", status="none", reason=Reason("chat.tool_refused"))  # type: ignore[arg-type]
    try:
        set_language("en")
        assert status_text(answer(state)).startswith("the model's search was refused")
        set_language("zh")
        assert status_text(answer(state)).startswith("模型的检索被拒绝")
    finally:
        set_language("en")


def test_a_failed_answer_says_where_to_look() -> None:
    failed = answer(c.RetrievalState(mode="always", status="searched", searches=1))
    failed = failed.model_copy(
        update={
            "state": "failed",
            "error": "the chat model cannot be reached (the connection failed)",
        }
    )
    shown = message_html(failed.model_copy(update={"content": ""}), last=True)
    assert "Regenerate" in shown and "Copy" not in shown, "nothing to copy from a failed reply"
    assert "(failed: " not in shown
    assert (
        "— Failed: the chat model cannot be reached (the connection failed). Check the chat"
        " model in Settings → Model connections, then Regenerate." in html.unescape(shown)
    )


def test_a_failure_under_an_answer_of_evidence_stands_on_its_own_line() -> None:
    """With the model out of reach the answer is the evidence; the failure was glued to the last
    quoted passage ("[1] 差旅与报销制度 — …报销。 — 失败：…") and read as part of that source."""
    failed = answer(c.RetrievalState(mode="always", status="searched", searches=1))
    cited = c.Citation.model_validate(
        {
            "number": 1,
            "libraryId": "a" * 32,
            "documentId": "d" * 32,
            "chunkId": "3" * 32,
            "relevance": 0.9,
            "channels": ["fts"],
            "documentTitle": "Travel",
            "locator": {},
            "snippet": "Lodging is 600 a night.",
        }
    )
    failed = failed.model_copy(
        update={
            "state": "failed",
            "content": "[1] Travel — Lodging is 600 a night.",
            "error": "the chat model cannot be reached (the connection failed)",
            "citations": [cited],  # (the evidence it lists: an answer of evidence has them)
        }
    )
    shown = html.unescape(message_html(failed, last=True))
    assert "600 a night.<br><i>Failed: the chat model cannot be reached" in shown, shown
