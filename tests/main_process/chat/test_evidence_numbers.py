"""One turn's evidence numbering, without a database: searches continue one numbering, a passage
found again keeps its number, the list stops at the citation cap (and the model is told that
further passages were left out, never shown them unnumbered), and degraded channels are kept once
each with their code."""

from __future__ import annotations

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.limits import MAX_CITATIONS_PER_MESSAGE
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.chat.evidence import TurnEvidence
from goodbuddy_kb.main_process.chat.transcript import answer_markdown, answer_text
from tests.answers import stored_answer
from tests.servers.chatserver import evidence_of, relevance_of

LIB, DOC = "a" * 32, "d" * 32


def chunk(n: int) -> str:
    return f"{n:032x}"


def response(hits: list[int], degraded: list[str] | None = None) -> r.KnowledgeRetrievalResponse:
    """A search whose context groups are ``hits`` in rank order (a group per hit)."""
    results = [
        r.RetrievalResult(
            rank=i + 1,
            chunk_id=chunk(n),
            document_id=DOC,
            library_id=LIB,
            source_id=LIB,
            document_title=f"Doc {n}",
            document_path=f"/d/{n}.md",
            heading_path=[],
            locator={},
            snippet=f"passage {n}",
            channel_ranks={"fts": i + 1},
            vector_similarity=None,
            rrf_score=0.1,
            pre_rerank_rank=i + 1,
            relevance=0.1 + 0.01 * n,  # deliberately not in rank order
            features={},
        )
        for i, n in enumerate(hits)
    ]
    groups = [
        r.ContextGroup(
            document_id=DOC,
            library_id=LIB,
            document_title=f"Doc {n}",
            chunk_ids=[chunk(n)],
            hit_chunk_ids=[chunk(n)],
            locators=[{}],
            text=f"text of passage {n}",
            character_count=10,
            kind="chunks",
            truncated=False,
            relevance=0.5,
        )
        for n in hits
    ]
    diagnostics = r.Diagnostics(
        requested_channels=["fts", "vector"],
        used_channels=["fts"],
        degraded_channels=[r.DegradedChannel(channel="vector", reason=x) for x in degraded or []],
        candidate_counts={},
        timings_ms={},
        vector_scanned=0,
        filtered_by_similarity=0,
        fused_candidates=len(hits),
        rerank=r.RerankDiagnostics(requested="off", applied="off"),
    )
    return r.KnowledgeRetrievalResponse(
        query="q",
        duration_ms=1.0,
        settings=KnowledgeRetrievalSettings(),
        diagnostics=diagnostics,
        results=results,
        context=r.Context(character_count=0, budget=1000, truncated=False, groups=groups),
        zero_result=None,
    )


def test_one_numbering_across_the_turns_searches() -> None:
    evidence = TurnEvidence()
    first = evidence_of({"messages": [{"content": evidence.block(response([7, 3, 9]))}]})
    second = evidence_of({"messages": [{"content": evidence.block(response([4, 3, 8]))}]})
    assert {n: text.split("\n")[0] for n, text in first.items()} == {
        1: "Doc 7",
        2: "Doc 3",
        3: "Doc 9",
    }
    assert {n: text.split("\n")[0] for n, text in second.items()} == {
        4: "Doc 4",
        2: "Doc 3",  # found again: the number it was first given
        5: "Doc 8",
    }
    assert [(x.number, x.document_title) for x in evidence.citations] == [
        (1, "Doc 7"),
        (2, "Doc 3"),
        (3, "Doc 9"),
        (4, "Doc 4"),
        (5, "Doc 8"),
    ]


def test_passages_past_the_cap_are_not_given_to_the_model() -> None:
    evidence = TurnEvidence()
    block = evidence.block(response(list(range(1, MAX_CITATIONS_PER_MESSAGE + 4))))
    seen = evidence_of({"messages": [{"content": block}]})
    assert sorted(seen) == list(range(1, MAX_CITATIONS_PER_MESSAGE + 1))
    assert "left out" in block and evidence.left_out == 3
    assert len(evidence.citations) == MAX_CITATIONS_PER_MESSAGE


def test_degraded_channels_are_kept_once_with_their_code() -> None:
    evidence = TurnEvidence()
    evidence.block(response([1], ["the query could not be embedded: x"]))
    evidence.block(response([2], ["the query could not be embedded: x"]))
    reason = evidence.degraded_reason()
    state = c.RetrievalState(mode="auto", status="degraded", reason=reason, searches=2)
    assert state.reason == "vector: the query could not be embedded: x"
    assert state.reason_code == "channel.reason" and state.reason_params["channel"] == "vector"


def library_name(_library_id: str) -> str:
    return "Library"


def test_a_copied_or_exported_answer_says_which_numbers_no_source_has() -> None:
    """The window says under an answer that [9] matches no source; a copy or an export kept
    "Compare [9]." without a word (a helper's try)."""
    message = stored_answer("Rooms cost 600 yuan [1]. Compare [9].", "Rooms cost at most 600 yuan.")
    text = answer_text(message, library_name, "en")
    assert "No source matches [9] in this answer" in text, text
    assert text.index("No source matches") < text.index("Sources:"), "under the answer"
    assert "回答中的 [9] 没有对应的来源" in answer_markdown(message, library_name, "zh")
    fine = message.model_copy(update={"content": "Rooms cost 600 yuan [1]."})
    assert "No source matches" not in answer_text(fine, library_name, "en")


def test_a_copied_or_exported_source_keeps_its_table_rows_on_their_lines() -> None:
    """A table snippet ran together into one line ("| City tier | Examples | …") in the
    Markdown export and the copy (a helper's try)."""
    table = "| City | Limit |\n| --- | --- |\n| Beijing | 600 |"
    message = stored_answer("At most 600 [1].", table)
    assert "> | City | Limit |\n> | --- | --- |\n> | Beijing | 600 |" in answer_markdown(
        message, library_name, "en"
    )
    assert "    | City | Limit |\n    | --- | --- |" in answer_text(message, library_name, "en")


def test_the_parts_passages_are_numbered_with_the_whole_questions_by_relevance() -> None:
    """A helper's try: the whole question's passage was [1] at 0.30 and a part's [2] at 0.89;
    the numbers follow relevance across the turn's first searches."""

    def rated(hits: list[int], relevance: list[float]) -> r.KnowledgeRetrievalResponse:
        found = response(hits)
        groups = [
            g.model_copy(update={"relevance": v})
            for g, v in zip(found.context.groups, relevance, strict=True)
        ]
        return found.model_copy(
            update={"context": found.context.model_copy(update={"groups": groups})}
        )

    evidence = TurnEvidence()
    block = evidence.block(rated([7], [0.30]), rated([4, 7], [0.89, 0.25]), rated([5], [0.45]))
    seen = evidence_of({"messages": [{"content": block}]})
    # and the model reads how relevant each is (a passage at 0.23 read like one at 0.89)
    assert relevance_of({"messages": [{"content": block}]}) == {1: 0.89, 2: 0.45, 3: 0.30}
    assert {n: text.split("\n")[0] for n, text in seen.items()} == {
        1: "Doc 4",
        2: "Doc 5",
        3: "Doc 7",
    }
    assert [x.document_title for x in evidence.citations] == ["Doc 4", "Doc 5", "Doc 7"]


def test_an_exported_answer_reads_in_the_readers_language() -> None:
    """A helper's try: a Chinese export said "l. 3–7" where the window says "第 3–7 行", and
    "(failed: …)" under an answer that did not end."""
    message = stored_answer(
        "住宿每晚六百元 [1]。", "一线城市每晚不超过六百元。", locator={"lineStart": 3, "lineEnd": 7}
    ).model_copy(update={"state": "failed", "error": "the chat model cannot be reached"})
    zh = answer_markdown(message, library_name, "zh")
    assert "第 3–7 行" in zh and "l. 3" not in zh, zh
    assert "（失败：the chat model cannot be reached）" in zh, zh
    en = answer_text(message, library_name, "en")
    assert "l. 3–7" in en and "(failed: the chat model cannot be reached)" in en, en


def test_an_exported_answer_says_when_no_document_backed_it() -> None:
    """A helper's try: in an export, an answer the model gave without searching read like a
    grounded one; the window's badge says it was not checked against the documents."""
    unchecked = stored_answer("Probably yes.", "x").model_copy(
        update={
            "citations": [],
            "retrieval": c.RetrievalState(mode="auto", status="none", searches=0),
        }
    )
    assert answer_markdown(unchecked, library_name, "zh").startswith(
        "（模型未检索知识库：回答未对照你的文档）"
    )
    assert "not checked against your documents" in answer_text(unchecked, library_name, "en")
    empty = unchecked.model_copy(
        update={"retrieval": c.RetrievalState(mode="always", status="searched_empty", searches=1)}
    )
    assert "(Searched: nothing relevant was found)" in answer_text(empty, library_name, "en")
    grounded = unchecked.model_copy(
        update={"retrieval": c.RetrievalState(mode="auto", status="searched", searches=1)}
    )
    assert answer_text(grounded, library_name, "en").startswith("Probably yes.")


def test_a_passage_the_graph_led_to_carries_its_path() -> None:
    """A helper's try: "客户数据导出，最终审批人是谁？" gave the model the DPO's page without the
    rule that the DPO approves exports; the graph path that bridged them was only in the
    diagnostics. The passage's heading now carries it (at most two paths)."""
    found = response([3, 5])
    paths = ["数据导出审批 —approves→ 数据保护官 —led_by→ 常婧", "a —b→ c", "d —e→ f"]
    first = found.results[0].model_copy(update={"graph_reasons": paths})
    found = found.model_copy(update={"results": [first, *found.results[1:]]})
    block = TurnEvidence().block(found)
    assert "[1] Doc 3 (relevance 0.50; knowledge graph: 数据导出审批 —approves→ 数据保护官" in block
    assert "| a —b→ c)\n" in block and "d —e→ f" not in block
    assert "[2] Doc 5 (relevance 0.50)\n" in block, "no path, no mention"
    assert relevance_of({"messages": [{"content": block}]}) == {1: 0.5, 2: 0.5}
    assert evidence_of({"messages": [{"content": block}]})[1].startswith("Doc 3\n")
