"""The backend's reasons for people, exactly as the backend words them, travel with a catalogue
code and read in Chinese: the zero result "nothing relevant enough" (best relevance and floor as
parameters), the graph channel's and the graph task's reasons, embedding, vector and rebuild
failures, and the parsers' and the reader's refusals."""

from __future__ import annotations

import re

import pytest

from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.contracts.retrieval import DegradedChannel
from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.graph import channel as graph_channel
from goodbuddy_kb.main_process.parsing import parse
from goodbuddy_kb.main_process.parsing.model import ParseError
from goodbuddy_kb.main_process.references import STALE
from goodbuddy_kb.main_process.retrieval.zero import nothing_relevant
from goodbuddy_kb.main_process.storage.documents import NO_RETRIEVABLE_CONTENT
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.i18n.messages import say_field, say_text

#: Sentences as the backend builds them (the f-strings of its modules, filled as they fill them).
BACKEND_SENTENCES = {
    graph_channel.NO_ENTITIES: "graph.no_entities",
    "the knowledge graph could not be searched (OperationalError)": "graph.search_failed",
    "the knowledge graph is off for this library": "graph.task_off",
    "model extraction is not available in this version; choose the local strategy": (
        "graph.model_unavailable"
    ),
    STALE: "reference.stale",
    NO_RETRIEVABLE_CONTENT: "document.no_retrievable_content",
    str(netio.BodyTooLarge(8 * 1048576)): "net.too_large",
    "the embedding service did not answer in time (30 s)": "embedding.timeout_seconds",
    "the embedding service sent 768-dimensional vectors; 384 were expected": (
        "embedding.wrong_dimensions"
    ),
    "the embedding service sent non-finite or absurd values": "embedding.absurd_values",
    "the embedding service sent an empty (all-zero or constant) vector": (
        "embedding.constant_vector"
    ),
    "3 chunks have no vector yet; they are found by full-text only": "vector.partial",
    "interrupted: the app stopped during the build": "vector.interrupted",
    "the service returned 768-dimensional vectors; the index has 384": "rebuild.dimensions",
    "the embedding service failed for 3 documents in a row (the embedding service answered "
    "HTTP 500); 7 documents were not rebuilt and keep their previous version": (
        "rebuild.embedding_stopped"
    ),
    "2 documents failed; a document with a previous version keeps it (first: a.md: empty file)": (
        "rebuild.failed"
    ),
    "empty file (the previous version is still searchable)": "rebuild.kept_previous",
    "the page is nested more than 10,000 elements deep": "parse.html_open_elements",
    "the PDF has too many pages (5000; at most 2000)": "parse.pdf_pages",
    "the path is now a folder (FIFOs, devices and sockets are not read)": "read.now_folder",
    "no program to open files is available on this system (xdg-open was not found)": (
        "reference.no_opener"
    ),
}


@pytest.mark.parametrize("sentence", sorted(BACKEND_SENTENCES))
def test_backend_sentences_carry_their_codes(sentence: str) -> None:
    coded = classify(sentence)
    assert coded is not None, f"no code for: {sentence}"
    assert coded.code == BACKEND_SENTENCES[sentence]
    assert coded.english() == sentence


def test_nothing_relevant_travels_with_best_relevance_and_floor() -> None:
    zero = nothing_relevant(0.01234, 0.015)
    assert zero.message_code == "zero.nothing_relevant"
    assert zero.message_params == {"best": "0.01", "floor": "0.015"}
    assert zero.next_step_code == "zero.nothing_relevant.next"
    set_language("zh")
    try:
        message = say_field(zero, "message")
        assert "0.01" in message and "0.015" in message and "最低相关度" in message
        assert not re.search(r"[A-Za-z]{3,}", message + say_field(zero, "next_step"))
    finally:
        set_language("en")
    assert say_field(zero, "message") == zero.message


def test_a_best_match_below_the_floor_never_reads_as_reaching_it() -> None:
    """0.1996 against the default floor 0.2 once read "relevance 0.20, below this library's
    minimum of 0.2"; the figure is cut, not rounded, wherever it stands beside a floor."""
    from goodbuddy_kb.ui.widgets.relevance import relevance_text

    zero = nothing_relevant(0.1996, 0.2)
    assert zero.message_params["best"] == "0.19", zero.message
    assert relevance_text(0.1996, below_floor=True).startswith("0.19 ")
    assert relevance_text(0.2).startswith("0.20 ") and relevance_text(0.29).startswith("0.29 ")
    assert relevance_text(1.0).startswith("1.00 ")
    # the dots are cut the same way: none under 0.2, so a result below the default floor never
    # shows the dot of a "possibly relevant" one
    assert relevance_text(0.18, below_floor=True) == "0.18 ○○○○○ below the floor"
    assert relevance_text(0.28).startswith("0.28 ●○○○○")
    assert relevance_text(0.18).startswith("0.18 ○○○○○")
    assert relevance_text(0.72).startswith("0.72 ●●●●○")
    # the calibration's highest step is about 0.9: "very likely relevant" reaches the fifth dot
    assert relevance_text(0.96).startswith("0.96 ●●●●●") and "●●●●●" in relevance_text(0.9)


def test_graph_channel_reasons_read_in_chinese() -> None:
    degraded = DegradedChannel(channel="graph", reason=graph_channel.NO_ENTITIES)
    assert degraded.reason_code == "graph.no_entities"
    set_language("zh")
    try:
        assert say_field(degraded, "reason") == "问题中没有找到图谱里的实体"
        nested = "the knowledge graph could not be searched (OperationalError)"
        assert say_text(nested) == "无法检索知识图谱（意外的错误）"  # the name: in the tooltip
    finally:
        set_language("en")


def test_parser_refusals_read_back_to_their_codes() -> None:
    with pytest.raises(ParseError) as refused:
        parse(b"# x\n" * 10, "notes.xyz")
    coded = classify(refused.value.reason)
    assert coded is not None and coded.code == "parse.unsupported_type"
    assert set(CATALOGUE) >= set(BACKEND_SENTENCES.values())
