"""A regenerated answer is "the same as before" only when nothing a person sees changed."""

from __future__ import annotations

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.ui.chat.composer import same_answer

IDS = "0123456789abcdef0123456789abcdef"


def answer(searched: int, chunks: list[str]) -> c.Message:
    return c.Message(
        id=IDS,
        conversation_id=IDS,
        role="assistant",
        content="根据资料[1]，每晚不超过600元。",
        state="complete",
        retrieval=c.RetrievalState(
            mode="auto", status="searched" if searched else "none", searches=searched
        ),
        citations=[
            c.Citation(
                number=n,
                library_id=IDS,
                document_id=IDS,
                chunk_id=chunk,
                relevance=0.8,
                channels=["fts"],
                document_title="差旅管理办法",
                locator={},
                snippet="每晚不超过600元",
            )
            for n, chunk in enumerate(chunks, start=1)
        ],
        error=None,
        created_at="2026-12-06T22:00:00Z",
    )


def test_the_same_words_with_new_sources_or_a_search_are_a_new_answer() -> None:
    unsearched = answer(0, [])
    assert same_answer(unsearched, answer(0, []))
    # the model's words came out the same, but this time it searched and cited two passages
    assert not same_answer(unsearched, answer(1, ["a" * 32, "b" * 32]))
    # the same search, another passage under [2]
    assert not same_answer(answer(1, ["a" * 32, "b" * 32]), answer(1, ["a" * 32, "c" * 32]))
    assert same_answer(answer(1, ["a" * 32, "b" * 32]), answer(1, ["a" * 32, "b" * 32]))
