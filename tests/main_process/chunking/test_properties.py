"""Property tests over random Chinese, English and mixed text, for every chunking mode."""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.chunking import chunk_document
from goodbuddy_kb.main_process.chunking.boundaries import split_spans
from goodbuddy_kb.main_process.parsing.text import parse_text

CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF)
LATIN = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789"))
PUNCT = st.sampled_from([*list("。，！？；：、.,!?;:-/_ \n"), "\n\n", "  "])
WORD = st.one_of(
    st.text(CJK, min_size=1, max_size=12),
    st.text(LATIN, min_size=1, max_size=15),
    st.sampled_from(
        ["v2.3.1", "https://example.com/a/b?c=1", "src/app/main.py", "ERR_42", "GB-2000"]
    ),
)
TEXT = st.lists(st.tuples(WORD, PUNCT), min_size=1, max_size=400).map(
    lambda parts: "".join(w + p for w, p in parts)
)
MODES = st.sampled_from(["fixed", "structure", "parent-child"])


def make_settings(
    mode: str, target: int, overlap_share: float, child: int
) -> KnowledgeChunkingSettings:
    return KnowledgeChunkingSettings(
        mode=mode,  # type: ignore[arg-type]
        target_characters=target,
        overlap_characters=int(target * overlap_share),
        parent_characters=1600,
        child_characters=child,
    )


def non_ws(text: str) -> str:
    return re.sub(r"\s+", "", text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT, MODES, st.integers(400, 1200), st.floats(0, 0.4), st.integers(300, 1000))
def test_chunk_properties(text: str, mode: str, target: int, share: float, child: int) -> None:
    cfg = make_settings(mode, target, share, child)
    doc = parse_text(text.encode("utf-8"), "doc")
    drafts = chunk_document(doc, "d" * 32, cfg)
    retrievable = [d for d in drafts if d.role != "parent"]
    bound = cfg.child_characters if mode == "parent-child" else cfg.target_characters
    # every non-whitespace character is in some retrievable chunk, in order
    source = non_ws("".join(s.text for s in doc.sections))
    covered = "".join(non_ws(d.content) for d in retrievable)
    position = 0
    for ch in source:
        found = covered.find(ch, position)
        assert found >= 0
        position = found
    for d in retrievable:
        assert 0 < len(d.content) <= bound
    parents = [d for d in drafts if d.role == "parent"]
    for p in parents:
        assert len(p.content) <= cfg.parent_characters
    ids = {p.id for p in parents}
    assert all(d.parent_id in ids for d in retrievable if d.role == "child")
    # ordinals contiguous per role
    for role in ("standalone", "parent", "child"):
        ords = [d.ordinal for d in drafts if d.role == role]
        assert ords == list(range(len(ords)))
    # deterministic: byte-identical output and ids
    again = chunk_document(parse_text(text.encode("utf-8"), "doc"), "d" * 32, cfg)
    assert again == drafts
    assert len({d.id for d in drafts}) == len(drafts)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.integers(20, 600), st.floats(0, 0.4))
def test_spans_cover_text_with_bounded_overlap(text: str, limit: int, share: float) -> None:
    overlap = int(limit * share)
    spans = split_spans(text, limit, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (a1, b1), (a2, _b2) in itertools.pairwise(spans):
        assert a2 <= b1, "no gap"
        assert b1 - a2 <= overlap, "overlap within its bound"
        assert a2 > a1, "progress"
    for a, b in spans:
        assert 0 < b - a <= limit


def test_unbreakable_token_is_cut_hard() -> None:
    token = "x" * 1000
    spans = split_spans(token, 400)
    assert spans == [(0, 400), (400, 800), (800, 1000)]


def test_never_cuts_inside_identifiers_when_a_boundary_is_near() -> None:
    text = (
        "word " * 70
    ) + "see https://example.com/docs/v2.3.1/index.html and src/app/main.py now."
    for a, b in split_spans(text, 380, 0):
        piece = text[a:b]
        for ident in ("https://example.com/docs/v2.3.1/index.html", "src/app/main.py"):
            if ident[:5] in piece:
                assert ident in piece or piece.endswith(" ")


def test_sentence_end_beats_clause_and_space() -> None:
    text = "甲" * 250 + "。" + "乙" * 100 + "，" + "丙" * 100
    cut = split_spans(text, 400)[0][1]
    assert text[cut - 1] == "。"
