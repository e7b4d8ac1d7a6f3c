"""Pure stages: weighted RRF, local rerank determinism, context merge and budget rules."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from goodbuddy_kb.main_process.lexical.tokens import build_query
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.context import Unit, assemble, join_trimmed
from goodbuddy_kb.main_process.retrieval.fusion import weighted_rrf
from goodbuddy_kb.main_process.retrieval.rerank import local_rerank, rrf_relevance


def test_rrf_matches_the_formula() -> None:
    fused = dict(
        weighted_rrf({"fts": ["a", "b"], "vector": ["b", "c"]}, {"fts": 1.0, "vector": 2.0})
    )
    assert fused["a"] == 1 / 61
    assert fused["b"] == 1 / 62 + 2 / 61
    assert fused["c"] == 2 / 62


def test_zero_weight_channel_is_not_counted_and_ties_break_by_id() -> None:
    fused = weighted_rrf(
        {"fts": ["z", "y"], "cjk": ["q"], "vector": ["x"]}, {"fts": 1, "cjk": 1, "vector": 0}
    )
    assert fused == [("q", 1 / 61), ("z", 1 / 61), ("y", 1 / 62)]


@given(
    st.dictionaries(
        st.sampled_from(["fts", "cjk", "vector"]),
        st.lists(st.sampled_from("abcdefgh"), max_size=8),
        max_size=3,
    )
)
def test_rrf_is_deterministic_and_sorted(rankings: dict[str, list[str]]) -> None:
    weights = {"fts": 1.0, "cjk": 0.5, "vector": 2.0}
    fused = weighted_rrf(rankings, weights)
    assert fused == weighted_rrf(dict(reversed(list(rankings.items()))), weights)
    assert fused == sorted(fused, key=lambda p: (-p[1], p[0]))


def hx(name: str) -> str:
    return hashlib.md5(name.encode()).hexdigest()


def cand(cid: str, doc: str, content: str, rrf: float, ordinal: int = 0, **kw: object) -> Candidate:
    c = Candidate(hx(cid), {"fts": 1}, None, rrf, 1)
    c.document_id, c.library_id, c.content, c.ordinal, c.document_title = (
        hx(doc),
        hx("L"),
        content,
        ordinal,
        doc,
    )
    for k, v in kw.items():
        setattr(c, k, v)
    return c


def test_local_rerank_is_deterministic_normalised_and_keeps_pre_rank() -> None:
    q = build_query("年假 天数 annual leave")
    pool = [
        cand("c1", "d1", "年假天数见下表 annual leave table", 0.03),
        cand("c2", "d1", "年假天数另有规定", 0.031),
        cand("c3", "d2", "病假证明", 0.032),
    ]
    for i, c in enumerate(pool, start=1):
        c.pre_rank = i
    first = [c.chunk_id for c in local_rerank([*pool], q)]
    second = [c.chunk_id for c in local_rerank(list(reversed(pool)), q)]
    assert first == second
    assert first[0] == hx("c1") and first[-1] == hx("c3")
    assert all(0 <= c.relevance <= 1 for c in pool)
    assert {"rrf", "coverage", "phrase", "title", "vector", "duplicatePenalty"} <= set(
        pool[0].features
    )


def test_duplicate_penalty_lets_another_document_through() -> None:
    q = build_query("报销 流程")
    pool = [cand(f"a{i}", "same", "报销流程说明", 0.05 - i * 0.0001) for i in range(3)]
    pool.append(cand("b0", "other", "报销流程说明", 0.0498))
    order = [c.chunk_id for c in local_rerank(pool, q)]
    assert order.index(hx("b0")) < order.index(hx("a2"))


def test_rerank_off_keeps_rrf_order_with_relevance() -> None:
    pool = [cand("x", "d", "t", 0.02), cand("y", "d", "t", 0.01)]
    rrf_relevance(pool, 0.04)
    assert [c.relevance for c in pool] == [0.5, 0.25]


class FakeSource:
    def __init__(
        self,
        docs: dict[str, list[str]],
        parents: dict[str, str] | None = None,
        disabled: set[tuple[str, int]] | None = None,
    ) -> None:
        self.docs = docs
        self.parents = parents or {}
        self.disabled = disabled or set()

    def neighbours(self, document_id: str, ordinal: int, count: int) -> list[Unit]:
        name = next(d for d in self.docs if hx(d) == document_id)
        texts = self.docs[name]
        return [
            Unit(hx(f"{name}-{o}"), o, texts[o])
            for o in range(max(0, ordinal - count), min(len(texts), ordinal + count + 1))
            if (name, o) not in self.disabled
        ]

    def parent(self, parent_id: str) -> Unit | None:
        name = next((p for p in self.parents if hx(p) == parent_id), None)
        return Unit(parent_id, 0, self.parents[name]) if name else None


def hit(
    doc: str, ordinal: int, texts: list[str], relevance: float
) -> Candidate:  # id = hx(f"{doc}-{ordinal}")
    return cand(f"{doc}-{ordinal}", doc, texts[ordinal], 0.0, ordinal, relevance=relevance)


DOC = [f"第{i}段内容。" * 5 for i in range(8)]


def test_adjacent_merge_never_repeats_a_chunk() -> None:
    src = FakeSource({"d": DOC})
    ctx = assemble(
        [hit("d", 3, DOC, 0.9), hit("d", 4, DOC, 0.8), hit("d", 6, DOC, 0.7)], src, 48_000, 1
    )
    assert len(ctx.groups) == 1, "adjacent spans of one document merge into one group"
    ids = ctx.groups[0].chunk_ids
    assert ids == [hx(f"d-{i}") for i in range(2, 8)] and len(set(ids)) == len(ids)
    assert ctx.groups[0].hit_chunk_ids == [hx("d-3"), hx("d-4"), hx("d-6")]
    assert len(ctx.groups[0].locators) == 3, "every hit keeps its citation"


def test_merge_stops_at_a_disabled_gap() -> None:
    src = FakeSource({"d": DOC}, disabled={("d", 2)})
    ctx = assemble([hit("d", 3, DOC, 0.9)], src, 48_000, 2)
    assert ctx.groups[0].chunk_ids == [hx("d-3"), hx("d-4"), hx("d-5")]


def test_child_hits_bring_their_parent_once() -> None:
    parent = "父块全文。" * 100
    src = FakeSource({"d": DOC}, parents={"p1": parent})
    a = hit("d", 1, DOC, 0.9)
    b = hit("d", 2, DOC, 0.8)
    for h in (a, b):
        h.role, h.parent_id = "child", hx("p1")
    ctx = assemble([a, b], src, 48_000, 2)
    assert len(ctx.groups) == 1 and ctx.groups[0].kind == "parent"
    assert ctx.groups[0].chunk_ids == [hx("p1")] and ctx.groups[0].hit_chunk_ids == [
        hx("d-1"),
        hx("d-2"),
    ]


def test_budget_is_spent_in_relevance_order_and_never_displaces() -> None:
    long_doc = ["A" * 1500, "B" * 1500, "C" * 1500]
    src = FakeSource({"x": long_doc, "y": ["Y" * 900], "z": ["Z" * 100]})
    hits = [
        hit("x", 1, long_doc, 0.9),
        hit("y", 0, ["Y" * 900], 0.8),
        hit("z", 0, ["Z" * 100], 0.7),
    ]
    ctx = assemble(hits, src, 2_000, 1)
    assert ctx.character_count <= 2_000
    assert ctx.groups[0].chunk_ids == [hx("x-1")], "neighbours dropped first, the hit kept"
    assert ctx.truncated
    assert [g.document_id for g in ctx.groups][:1] == [hx("x")]
    assert "Y" in ctx.groups[1].text and ctx.groups[1].truncated


def test_over_long_parent_is_cut_around_the_hit_and_marked() -> None:
    parent = "".join(f"第{i:03d}句。" for i in range(3000))
    child = cand(
        "c", "d", "第1500句。第1501句。", 0.0, 0, relevance=0.9, role="child", parent_id=hx("p")
    )
    ctx = assemble([child], FakeSource({"d": []}, parents={"p": parent}), 2_000, 0)
    group = ctx.groups[0]
    assert group.truncated and ctx.truncated and group.character_count <= 2_000
    assert "第1500句" in group.text and group.text.endswith("。")


def test_overlapping_chunks_are_joined_without_repeating_text() -> None:
    a = "alpha beta gamma delta epsilon omicron"
    b = "gamma delta epsilon omicron zeta eta theta"
    assert join_trimmed([a, b]) == "alpha beta gamma delta epsilon omicron zeta eta theta"
    assert join_trimmed(["no overlap here at all, none.", "completely different text"]) == (
        "no overlap here at all, none.\ncompletely different text"
    )
