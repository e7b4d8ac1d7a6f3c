"""A passage written in a script the question does not use: the lexical channels could not have
matched it, so fusion counts their silence less against it and the relevance judges it on the
vector's evidence alone; a question in both scripts, or a passage they matched, is unchanged."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.main_process.lexical.tokens import build_query
from goodbuddy_kb.main_process.retrieval import calibration
from goodbuddy_kb.main_process.retrieval.fusion import (
    BUNDLED_MODEL,
    adaptive_fusion,
    lexical_ranking,
    vector_ranking,
)
from goodbuddy_kb.main_process.retrieval.scripts import observable, share_in

ZH = "女员工生育享受产假一百五十八天，男员工享受陪产假十五天。"
EN = "The on-call engineer must acknowledge a page within 15 minutes."


def test_the_share_of_a_passage_in_the_questions_scripts() -> None:
    assert share_in(ZH, cjk=False, latin=True) == 0.0
    assert share_in(EN, cjk=False, latin=True) == 1.0
    assert share_in(EN, cjk=True, latin=False) == 0.0
    mixed = "年休假在 HR-Portal 提交申请"  # a Chinese passage quoting a system's name
    assert 0 < share_in(mixed, cjk=False, latin=True) < 0.5
    assert share_in("2026-12-01", cjk=True, latin=False) == 1.0  # nothing to read either way


def test_only_passages_in_the_other_script_are_unseen() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE chunks (id TEXT PRIMARY KEY, content TEXT)")
    conn.executemany("INSERT INTO chunks VALUES (?, ?)", [("zh", ZH), ("en", EN)])
    english = build_query("How many days of maternity leave do female employees get?")
    assert observable(conn, english, ["zh", "en"]) == {"zh": 0.0}
    assert observable(conn, build_query("产假有多少天？"), ["zh", "en"]) == {"en": 0.0}
    # a question in both scripts can be read in either: nothing is unseen
    assert observable(conn, build_query("VPN 闲置多久会断开？"), ["zh", "en"]) == {}


def test_lexical_silence_on_an_unseen_passage_counts_less_against_it() -> None:
    """The English question's answer is a Chinese passage, first by the vector; full text can
    only match the English passage that mentions leave, second by the vector."""
    vec = vector_ranking(["zh", "en", "x"], [0.844, 0.809, 0.80], 0.77, 0.018, 1.0)
    lex = lexical_ranking("fts", ["en", "y"], [1.0, 0.25], 0.3, 1.0)
    blind = adaptive_fusion([vec, lex], BUNDLED_MODEL)
    assert blind.ranked[0].chunk_id == "en", "agreement wins when silence counts against"
    seen = adaptive_fusion([vec, lex], BUNDLED_MODEL, observable={"zh": 0.0})
    assert [f.chunk_id for f in seen.ranked][:2] == ["zh", "en"]
    # a passage the lexical channels did match keeps its score, whatever it is written in
    also = adaptive_fusion([vec, lex], BUNDLED_MODEL, observable={"zh": 0.0, "en": 0.0})
    en = next(f for f in also.ranked if f.chunk_id == "en")
    assert en.score == next(f for f in seen.ranked if f.chunk_id == "en").score


def test_a_passage_the_vector_puts_above_all_the_lexical_channels_found_is_not_held_back() -> None:
    """A Chinese question whose answer is an English passage: the CJK channel's best hit is a
    Chinese passage sharing some of the question's words (the figures of the cross-language
    fixtures' 硬件安全密钥丢失后要在多长时间内报告？). The vector puts the English passage above
    it by 0.6 of the background's deviation: the one channel that could read both prefers it, so
    it leads; ahead by a hair, or behind, it does not."""
    cjk = lexical_ranking("cjk", ["laptop", "classes", "benefits"], [0.58, 0.14, 0.12], 0.24, 1.0)
    ids = ["keys", "laptop", "incident", "password", "tls", "retention", "support", "classes"]
    sims = [0.8809, 0.8703, 0.8611, 0.8559, 0.8502, 0.8465, 0.846, 0.8436]
    english = {"keys": 0.0, "incident": 0.0, "tls": 0.0, "retention": 0.0}
    vec = vector_ranking(ids, sims, 0.8216, 0.0170, 1.0)
    fused = adaptive_fusion([vec, cjk], BUNDLED_MODEL, observable=english)
    assert [f.chunk_id for f in fused.ranked][:2] == ["keys", "laptop"]
    # the vector's second pick in the other script still comes after the Chinese hit
    assert [f.chunk_id for f in fused.ranked].index("incident") > 1
    # ahead by a tenth of a deviation, not a quarter: no preference, and the Chinese hit leads
    hair = vector_ranking(ids, [0.8720, *sims[1:]], 0.8216, 0.0170, 1.0)
    fused = adaptive_fusion([hair, cjk], BUNDLED_MODEL, observable=english)
    assert [f.chunk_id for f in fused.ranked][:2] == ["laptop", "keys"]
    swapped = ["laptop", "keys", *ids[2:]]
    vec = vector_ranking(swapped, sims, 0.8216, 0.0170, 1.0)
    fused = adaptive_fusion([vec, cjk], BUNDLED_MODEL, observable=english)
    assert [f.chunk_id for f in fused.ranked][:2] == ["laptop", "keys"]


def test_a_passage_the_lexical_channels_could_read_ends_the_vectors_lead() -> None:
    """登录口令最少要几个字符 (the Chinese fixtures): full text finds nothing, the vector's first
    pick is an English passage, its second the Chinese answer, which full text could have read
    and did not match. Only the English passage above it is freed of the lexical silence; the
    vector's English picks below it stay behind it."""
    ids = ["ratelimit", "password", "product", "errors", "review", "runbook"]
    sims = [0.8459, 0.8457, 0.8429, 0.8332, 0.8318, 0.8315]
    vec = vector_ranking(ids, sims, 0.8264, 0.0191, 1.0)
    cjk = lexical_ranking("cjk", [], [], 0.0, 1.0)
    english = {"ratelimit": 0.0, "errors": 0.0, "review": 0.0, "runbook": 0.0}
    order = [
        f.chunk_id for f in adaptive_fusion([vec, cjk], BUNDLED_MODEL, observable=english).ranked
    ]
    assert order[:2] == ["ratelimit", "password"]
    assert order.index("errors") > order.index("password")


def test_an_unseen_result_is_judged_on_the_vectors_evidence_alone() -> None:
    first = {"fused": 1.0}  # no text feature could match: all zero
    hidden = calibration.relevance_list([first], [0.07], "bundled", [0.0])[0]
    assumed_low = calibration.relevance_list([first], [0.07], "bundled")[0]
    assert hidden > 0.2 > assumed_low, "above the default floor only once judged fairly"
    # the same result seen by the text features, with nothing matched, stays low
    assert calibration.relevance_list([first], [0.07], "bundled", [1.0])[0] == assumed_low
    # the other family has no vector-only model: unchanged
    assert calibration.relevance_list([first], [0.07], "other", [0.0]) == (
        calibration.relevance_list([first], [0.07], "other")
    )
