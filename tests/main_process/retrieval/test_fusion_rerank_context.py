"""Pure stages: weighted RRF, local rerank determinism, context merge and budget rules."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goodbuddy_kb.main_process.lexical.tokens import build_query
from goodbuddy_kb.main_process.retrieval import calibration, fusion, rerank
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.context import Unit, assemble, join_trimmed
from goodbuddy_kb.main_process.retrieval.fusion import (
    BUNDLED_MODEL,
    DEFAULT,
    adaptive_fusion,
    lexical_ranking,
    vector_ranking,
    weighted_rrf,
)
from goodbuddy_kb.main_process.retrieval.rerank import local_rerank


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


def test_a_confident_channel_leads_and_a_guessing_one_follows() -> None:
    ids = [f"v{i}" for i in range(20)]
    lexical_ids = [f"l{i}" for i in range(20)]
    # the vector channel's best hit stands 9 standard deviations above the background
    sims = [0.95] + [0.80 - i * 0.001 for i in range(19)]
    confident_vector = vector_ranking(ids, sims, 0.77, 0.02, 1.0)
    # the lexical channel's best hit covers a fifth of the question
    weak_lexical = lexical_ranking(
        "cjk", lexical_ids, [0.5 - i * 0.01 for i in range(20)], 0.2, 1.0
    )
    fused = adaptive_fusion([weak_lexical, confident_vector])
    assert fused.ranked[0].chunk_id == "v0"
    assert fused.confidence["vector"] > fused.confidence["cjk"]
    # and the other way round: an exact lexical hit, a vector channel near its background
    vague_vector = vector_ranking(ids, [0.78 - i * 0.001 for i in range(20)], 0.77, 0.02, 1.0)
    strong_lexical = lexical_ranking(
        "cjk", lexical_ids, [1.2 - i * 0.05 for i in range(20)], 1.0, 1.0
    )
    fused = adaptive_fusion([strong_lexical, vague_vector])
    assert fused.ranked[0].chunk_id == "l0"
    assert fused.confidence["cjk"] > fused.confidence["vector"]


def test_a_stray_word_matched_once_does_not_make_full_text_sure() -> None:
    """An English question in a Chinese library: full text matched only "a" (in "S、A、B 五个
    等级"), once. With no tenth hit to stand above, its margin was whole and its confidence 1.0,
    so the stray passage led and the vector's answer was withheld. Few hits count as far as
    the best of them covers the question."""
    ids = [f"v{i}" for i in range(20)]
    vec = vector_ranking(ids, [0.84] + [0.80 - i * 0.001 for i in range(19)], 0.79, 0.014, 1.0)
    stray = lexical_ranking("fts", ["grades"], [0.9], 1 / 14, 1.0)
    for params in (DEFAULT, BUNDLED_MODEL):
        assert adaptive_fusion([stray, vec], params).confidence["fts"] < 0.5
    assert adaptive_fusion([stray, vec], BUNDLED_MODEL).ranked[0].chunk_id == "v0"
    # one hit holding the whole question is as sure as before; so is a margin over other hits
    exact = lexical_ranking("fts", ["rule"], [0.9], 1.0, 1.0)
    assert adaptive_fusion([exact, vec], BUNDLED_MODEL).confidence["fts"] == 1.0
    two = lexical_ranking("fts", ["grades", "rule"], [1.0, 0.1], 1 / 5, 1.0)
    assert adaptive_fusion([two, vec], BUNDLED_MODEL).confidence["fts"] == 0.9
    # however many hits, a best one holding a fourteenth of the question matched a stray word
    # ("book" in "Room-Booking"): its margin counts in proportion to a tenth
    stray_two = lexical_ranking("fts", ["grades", "rule"], [1.0, 0.1], 1 / 14, 1.0)
    sure = adaptive_fusion([stray_two, vec], BUNDLED_MODEL).confidence["fts"]
    assert sure == round(0.9 * 10 / 14, 4)


def test_agreement_lifts_a_candidate_and_weights_still_apply() -> None:
    vec = vector_ranking(["a", "c", "b"], [0.9, 0.89, 0.88], 0.7, 0.05, 1.0)
    lex = lexical_ranking("fts", ["c", "x", "y"], [1.0, 0.3, 0.2], 0.8, 1.0)
    assert adaptive_fusion([vec, lex]).ranked[0].chunk_id == "c"
    muted = lexical_ranking("fts", ["c", "x", "y"], [1.0, 0.3, 0.2], 0.8, 0.0)
    assert [f.chunk_id for f in adaptive_fusion([vec, muted]).ranked] == ["a", "c", "b"]


def test_a_graph_path_to_the_answer_leads_two_fairly_sure_channels() -> None:
    """The bundled model's fusion lets a less confident channel keep its say; a graph path that
    reached what the question asks for still leads, as sharply as before."""
    fts = lexical_ranking("fts", ["b", "c"], [1.0, 0.25], 1.0, 1.0)  # margin: confidence 0.75
    vec = vector_ranking(["b", "c"], [0.8, 0.7], 0.5, 0.1, 1.0)  # z 3 and 2: confidence 0.875
    path = lexical_ranking("graph", ["a"], [1.0], 1.0, 1.0)
    answered = replace(path, known_confidence=1.0)
    assert adaptive_fusion([fts, vec, answered], BUNDLED_MODEL).ranked[0].chunk_id == "a"
    # the same two channels beside a graph that only reads its own scores: they agree on b
    unsure = lexical_ranking("graph", ["a", "d"], [1.0, 0.8], 1.0, 1.0)
    assert adaptive_fusion([fts, vec, unsure], BUNDLED_MODEL).ranked[0].chunk_id == "b"


def test_a_graph_path_never_softens_sharper_constants() -> None:
    """Every model but the bundled one fuses with sharpness 16: a graph path to the answer keeps
    that (it once fell to the bundled model's 8, costing the deterministic provider 0.045
    MRR@10 on the English graph fixtures with the graph on)."""
    fts = lexical_ranking("fts", ["b", "c"], [1.0, 0.3], 0.6, 1.0)
    vec = vector_ranking(["b", "c"], [0.9, 0.6], 0.5, 0.1, 1.0)
    path = replace(lexical_ranking("graph", ["a"], [1.0], 1.0, 1.0), known_confidence=1.0)
    shipped = adaptive_fusion([fts, vec, path], DEFAULT)
    assert shipped == adaptive_fusion([fts, vec, path], replace(DEFAULT, known_sharpness=16.0))
    softer = adaptive_fusion([fts, vec, path], replace(DEFAULT, sharpness=8.0))
    assert [f.score for f in shipped.ranked] != [f.score for f in softer.ranked]


def test_each_library_weights_its_own_candidates_in_the_adaptive_fusion() -> None:
    vec = vector_ranking(["a1", "b1"], [0.9, 0.9], 0.7, 0.05, 1.0)
    lex = lexical_ranking("cjk", ["b1", "a1"], [1.0, 0.9], 1.0, 1.0)
    group_of = {"a1": "A", "b1": "B"}
    weights = {"A": {"vector": 1.0, "cjk": 0.0}, "B": {"vector": 0.0, "cjk": 1.0}}
    only_vector = adaptive_fusion([vec], group_of=group_of, group_weights=weights)
    only_cjk = adaptive_fusion([lex], group_of=group_of, group_weights=weights)
    assert {f.chunk_id for f in only_vector.ranked} == {"a1"}  # B gives the vector no weight
    assert {f.chunk_id for f in only_cjk.ranked} == {"b1"}  # A gives full text no weight
    both = adaptive_fusion([vec, lex], group_of=group_of, group_weights=weights)
    assert {f.chunk_id for f in both.ranked} == {"a1", "b1"}


@given(
    st.lists(st.sampled_from("abcdefgh"), max_size=8, unique=True),
    st.lists(st.sampled_from("abcdefgh"), max_size=8, unique=True),
    st.floats(0.0, 1.0),
)
def test_adaptive_fusion_is_deterministic_sorted_and_bounded(
    lexical: list[str], vector: list[str], coverage: float
) -> None:
    rankings = [
        lexical_ranking(
            "fts", lexical, [1.0 - 0.1 * i for i in range(len(lexical))], coverage, 1.0
        ),
        vector_ranking(vector, [0.9 - 0.01 * i for i in range(len(vector))], 0.5, 0.1, 1.0),
    ]
    first = adaptive_fusion(rankings, DEFAULT)
    assert first == adaptive_fusion(list(reversed(rankings)), DEFAULT)
    scores = [f.score for f in first.ranked]
    assert scores == sorted(scores, reverse=True) and all(0 <= x <= 1.0 + 1e-9 for x in scores)
    assert {f.chunk_id for f in first.ranked} == set(lexical) | set(vector)


@pytest.mark.parametrize("family", ["bundled", "other"])
def test_calibrated_relevance_rises_with_evidence_and_stays_in_range(family: str) -> None:
    def first(features: dict[str, float], margin: float | None) -> float:
        return calibration.relevance_list([{"fused": 1.0, **features}], [margin], family)[0]

    weak = first({"coverage": 0.1, "weightedCoverage": 0.05, "phrase": 0.0}, 0.01)
    strong = first({"coverage": 1.0, "weightedCoverage": 1.0, "phrase": 1.0}, 0.2)
    assert 0 <= weak < strong <= 1
    even = {"coverage": 0.5, "weightedCoverage": 0.5, "phrase": 0.5}
    assert first(even, 0.15) >= first(even, 0.02)
    lexical_only = first({"coverage": 1.0, "weightedCoverage": 1.0, "phrase": 1.0}, None)
    assert 0 < lexical_only <= 1
    assert first({"coverage": 1.0, "weightedCoverage": 1.0}, None) > first(
        {"coverage": 0.2, "weightedCoverage": 0.1}, None
    )


feature_values = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            feature_values,
            feature_values,
            feature_values,
            feature_values,
            st.one_of(st.none(), st.floats(-0.3, 0.5, allow_nan=False)),
        ),
        min_size=1,
        max_size=10,
    ),
    family=st.sampled_from(["bundled", "other"]),
    seen=st.lists(feature_values, min_size=10, max_size=10),
)
def test_calibrated_relevance_never_rises_down_the_list(
    rows: list[tuple[float, float, float, float, float | None]], family: str, seen: list[float]
) -> None:
    """Whatever the features of each rank (and however far the text features could see each
    result), the shown relevance is monotone in rank: the budget and the floor, spent in rank
    order, agree with what the person reads."""
    feats = [
        {"coverage": c, "weightedCoverage": w, "phrase": p, "fused": f} for c, w, p, f, _ in rows
    ]
    margins = [m for *_, m in rows]
    values = calibration.relevance_list(feats, margins, family, seen[: len(rows)])
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a >= b for a, b in itertools.pairwise(values))


def hx(name: str) -> str:
    return hashlib.md5(name.encode()).hexdigest()


def cand(
    cid: str, doc: str, content: str, fused: float, ordinal: int = 0, **kw: object
) -> Candidate:
    c = Candidate(hx(cid), {"fts": 1}, None, fused, 1)
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


def numbered(pool: list[Candidate]) -> None:
    """Each candidate's fused rank is its place in ``pool``."""
    for i, c in enumerate(pool, start=1):
        c.pre_rank = i


def test_local_rerank_is_deterministic_and_keeps_pre_rank() -> None:
    q = build_query("年假 天数 annual leave")
    pool = [
        cand("c1", "d1", "年假天数见下表 annual leave table", 0.03),
        cand("c2", "d1", "年假天数另有规定", 0.031),
        cand("c3", "d2", "病假证明", 0.032),
    ]
    numbered(pool)
    first = [c.chunk_id for c in local_rerank([*pool], q)]
    second = [c.chunk_id for c in local_rerank(list(reversed(pool)), q)]
    assert first == second
    assert {"fused", "coverage", "phrase", "title", "vector", "rerankScore"} <= set(
        pool[0].features
    )
    assert [c.pre_rank for c in pool] == [1, 2, 3]


@pytest.mark.parametrize("kind", ["local", "openai-compatible", "deterministic", None])
def test_local_rerank_lifts_another_document_over_a_second_passage(kind: str | None) -> None:
    """Local rerank earns its place whatever the embedding provider (or none): on today's fused
    order the one correction that holds on every development set for both families is a second
    passage of the same document yielding a near tie to another document (``WEIGHTS``,
    ``BUNDLED_MODEL_WEIGHTS``)."""
    q = build_query("差旅 报销 标准")
    pool = [
        cand("c1", "差旅报销标准", "住宿每晚不超过五百元", 0.0310),
        cand("c2", "差旅报销标准", "交通费凭票报销", 0.0305),
        cand("c3", "费用报销流程", "报销单须部门负责人签字", 0.0303),
    ]
    numbered(pool)
    reranked = local_rerank([*pool], q, rerank.weights_for(kind))
    assert [c.chunk_id for c in reranked] == [hx("c1"), hx("c3"), hx("c2")]
    off = local_rerank([*pool], q, {"fused": 1.0})
    assert [c.chunk_id for c in off] == [hx("c1"), hx("c2"), hx("c3")]


def test_rerank_order_breaks_ties_by_the_fused_rank_and_penalises_duplicates() -> None:
    rows = [
        ("a0", "same", 1, {"fused": 1.0}),
        ("a1", "same", 2, {"fused": 0.99}),
        ("b0", "other", 3, {"fused": 0.98}),
        ("c0", "third", 4, {"fused": 0.98}),
    ]
    plain = [cid for cid, _ in rerank.order(rows, {"fused": 1.0})]
    assert plain == ["a0", "a1", "b0", "c0"]
    spread = [cid for cid, _ in rerank.order(rows, {"fused": 1.0, "duplicate": 0.05})]
    assert spread == ["a0", "b0", "c0", "a1"]


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


def test_a_passage_answering_one_of_two_questions_is_matched_as_fully_as_one_answering_one() -> (
    None
):
    """ "去上海出差住宿标准是多少？报销要多久内提交？" asks two things: the passage on the deadline
    covered half of the text's terms and read "0.19, below the floor" although it answers the
    second question whole. Coverage, weighted coverage and phrase take the best question."""
    from goodbuddy_kb.main_process.retrieval.rerank import features

    deadline = cand(
        "d", "差旅管理办法", "四、报销时限：出差结束后报销要在30天内提交，逾期不予报销。", 0.9
    )
    two = build_query("去上海出差住宿标准是多少？报销要多久内提交？")
    one = build_query("报销要多久内提交")
    weights = {t: 1.0 for t in (*two.cjk_terms, *two.latin_terms)}
    both = features(deadline, two, 1.0, weights)
    alone = features(deadline, one, 1.0, weights)
    for name in ("coverage", "weightedCoverage", "phrase"):
        assert both[name] == pytest.approx(alone[name]), name
    whole = features(deadline, replace(two, clauses=()), 1.0, weights)
    assert both["coverage"] > 1.5 * whole["coverage"], (both, whole)
    # one question with a comma is still one question: nothing is split
    assert build_query("在上海，出差住宿标准是多少").clauses == ()
    assert build_query("我几乎每天加班，怎么申请调休").clauses == ()


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        (
            "去上海出差，住宿标准是多少，报销要多久内提交",
            ["去上海出差 住宿标准是多少", "去上海出差 报销要多久内提交"],
        ),
        (
            "What is the daily meal allowance, and who approves expenses above 500 USD?",
            ["what is the daily meal allowance", "who approves expenses above 500 usd"],
        ),
        (
            "Is taxi allowed? Can I fly business class?",
            ["is taxi allowed", "can i fly business class"],
        ),
        # traditional characters ask as the simplified do (什麼, 幾)
        (
            "去台北出差，住宿標準是什麼，報銷要幾天內提交",
            ["去台北出差 住宿標準是什麼", "去台北出差 報銷要幾天內提交"],
        ),
        ("what is the parking fee", []),
        ("v2.1 release notes, what changed", []),
        # interrogatives that ask nothing: 任何 "any", 几 beside a numeral "some", 无论何种
        # "whichever", 沒什麼 "nothing"
        ("任何人來訪，都要登記", []),
        ("幾千年來，這裡有二十幾所學校，無論何種", []),
        ("沒什麼是不可能的，幾何學", []),
        ("不管怎样，报销要多久，谁来审批", ["不管怎样 报销要多久", "不管怎样 谁来审批"]),
    ],
)
def test_a_text_asking_several_questions_parts_into_them(text: str, clauses: list[str]) -> None:
    assert [c.normalized for c in build_query(text).clauses] == clauses


def test_arbitration_moves_the_full_texts_pick_above_what_lacks_the_question() -> None:
    coverage = {"near": 0.1, "other": 0.7, "pick": 0.75, "foreign": 0.0, "low": 0.05}.__getitem__
    # the pick passes the first passage holding clearly less of the question, and only it
    assert fusion.arbitrate(["other", "near", "pick"], ["pick"], coverage, 0.2) == [
        "other",
        "pick",
        "near",
    ]
    # of two lexical channels' picks, the one holding more of the question is weighed
    assert (
        fusion.arbitrate(["near", "other", "pick"], ["other", "pick"], coverage, 0.2)[0] == "pick"
    )
    # a passage in another script, or reached by a graph path, is not passed
    assert fusion.arbitrate(
        ["foreign", "pick"], ["pick"], coverage, 0.2, {"foreign"}.__contains__
    ) == [
        "foreign",
        "pick",
    ]
    # a pick that is already first, or holds little itself, changes nothing
    assert fusion.arbitrate(["pick", "near"], ["pick"], coverage, 0.2) == ["pick", "near"]
    assert fusion.arbitrate(["near", "low"], ["low"], coverage, 0.2) == ["near", "low"]
