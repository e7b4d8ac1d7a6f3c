"""Tokeniser and query-builder tests: normalisation, bigrams, and FTS5 syntax safety."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goodbuddy_kb.main_process.lexical.tokens import (
    MAX_QUERY_TERMS,
    build_query,
    cjk_index_text,
    fts_index_text,
    normalize,
    term_set,
    terms_in,
)


def test_full_width_and_half_width_are_the_same() -> None:
    assert normalize("ＧＢ－２０００　版本") == normalize("GB-2000 版本")
    assert (
        build_query("ＥＲＲ＿４２").latin_terms
        == build_query("ERR_42").latin_terms
        == ("err", "42")
    )


def test_case_and_latin_diacritics_fold() -> None:
    assert normalize("Café RÉSUMÉ") == "cafe resume"
    assert fts_index_text("Crème Brûlée 年假") == "creme brule"


def test_english_words_are_indexed_and_queried_by_their_stem() -> None:
    assert fts_index_text("Travel policies") == fts_index_text("travel policy") == "travel polici"
    query = build_query("expired certificates")
    assert query.latin_terms == ("expired", "certificates")
    assert query.fts_match == '"expir" OR "certif"'
    # identifiers keep their exact tokens
    assert fts_index_text("getUserById v2.3.1 ERR_42") == "getuserbyid v2 3 1 err 42"


def test_traditional_characters_are_indexed_as_themselves() -> None:
    assert cjk_index_text("請假制度") == "請假 假制 制度 度"
    assert build_query("請假").cjk_terms == ("請假",)


def test_bigrams_and_last_character_cover_every_character() -> None:
    assert cjk_index_text("请假制度，年假；假") == "请假 假制 制度 度 年假 假 假"
    assert build_query("度").cjk_match == '"度" * OR "度"'


def test_emoji_and_symbols_do_not_become_terms() -> None:
    q = build_query("😀🎉 ★ 年假 👍")
    assert q.cjk_terms == ("年假",) and q.latin_terms == ()


def test_mixed_scripts_split_into_both_channels() -> None:
    q = build_query("星河Gateway4.2版本的ERR_RATE_42报错")
    assert q.cjk_terms == ("星河", "版本", "本的", "报错")
    assert q.latin_terms == ("gateway4", "2", "err", "rate", "42")
    assert "err_rate_42" in q.compounds


def test_one_character_query_uses_the_bounded_fallback() -> None:
    q = build_query("假")
    assert q.cjk_terms == () and q.single_chars == ("假",)
    assert q.cjk_match is not None


@pytest.mark.parametrize("text", ["？！。，", "...", "   ", "!!!???", "——"])
def test_punctuation_only_queries_match_nothing(text: str) -> None:
    q = build_query(text)
    assert q.cjk_match is None and q.fts_match is None


def test_four_thousand_character_query_is_bounded() -> None:
    q = build_query(("员工请假报销流程审批系统" * 400)[:4000] + " gateway timeout")
    assert len(q.cjk_terms) + len(q.latin_terms) <= MAX_QUERY_TERMS
    assert "gateway" in q.latin_terms


OPERATORS = [
    '"unbalanced',
    "a AND b",
    "a OR b",
    "NOT a",
    "a NEAR b",
    "NEAR(a b, 3)",
    "prefix*",
    "^start",
    "text: 年假",
    "{text}: x",
    "(a OR",
    "a) AND (b",
    "-x +y",
    "col:年假 AND NOT 病假",
    '"" AND ""',
]


@pytest.mark.parametrize("text", OPERATORS)
def test_fts5_operators_typed_by_a_user_are_plain_text(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (text)")
    conn.execute("INSERT INTO t VALUES ('and or not near prefix start text 年假 病假 col x y a b')")
    q = build_query(text)
    for match in (q.cjk_match, q.fts_match):
        if match is not None:
            conn.execute(
                "SELECT * FROM t WHERE t MATCH ?", (match,)
            ).fetchall()  # never a syntax error
    for match in (q.cjk_match, q.fts_match):
        # every term is quoted: an operator typed by the user is a word, never an operator
        assert match is None or all(
            term.startswith('"') and term.endswith('"') for term in match.split(" OR ")
        ), match


def test_function_words_are_no_evidence_unless_the_question_has_nothing_else() -> None:
    """ "what is the capital of France" matched a code of conduct on what / is / the / of."""
    assert build_query("what is the capital of France").latin_terms == ("capital", "france")
    assert build_query("Who keeps the contract seal?").latin_terms == ("keeps", "contract", "seal")
    # words that also name things stay: IT, May
    assert build_query("Is IT support open in May?").latin_terms == ("it", "support", "open", "may")
    assert build_query("The Who").latin_terms == ("the", "who")  # nothing else to search
    assert build_query("年假 what").latin_terms == ()  # its Chinese words are its content


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_input_gives_a_valid_fts5_expression(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (text)")
    q = build_query(text)
    for match in (q.cjk_match, q.fts_match):
        if match is not None:
            conn.execute("SELECT * FROM t WHERE t MATCH ?", (match,)).fetchall()


def test_channel_weights_follow_the_query_terms() -> None:
    assert build_query("年假天数").channel_weights(1.0) == {"fts": 0.0, "cjk": 1.0}
    assert build_query("leave days").channel_weights(2.0) == {"fts": 2.0, "cjk": 0.0}
    mixed = build_query("GB-2000 的版本")
    weights = mixed.channel_weights(1.0)
    assert weights["fts"] > 0 and weights["cjk"] > 0 and abs(sum(weights.values()) - 1.0) < 1e-9


def _normalize_slowly(text: str) -> str:
    """The character loop alone, without the shortcut for texts with no mark to drop."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) == "Mn" and out and ord(out[-1]) < 0x250:
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            [
                *"aeouAEOUéèüÅçñ员工请假年假ＡＢＣ１２３\u3000 .-_/",
                "\u0301",
                "\u0308",
                "\u3099",
                "ﬁ",
                "㍿",
            ]
        ),
        max_size=40,
    )
    | st.text(max_size=40)
)
def test_normalize_shortcut_gives_the_loops_result(text: str) -> None:
    from goodbuddy_kb.main_process.lexical.tokens import normalize

    assert normalize(text) == _normalize_slowly(text)


_TEXT = st.text(
    alphabet=st.sampled_from(list("年假申请出差标准aAbé1 -_.ÉｆｕｌｌＡ\u0301")), max_size=40
)


@given(_TEXT, st.lists(_TEXT, max_size=6))
def test_terms_in_answers_as_the_whole_term_set_would(text: str, queries: list[str]) -> None:
    normalized = normalize(text)
    terms = {t for q in queries for t in term_set(normalize(q))}
    assert terms_in(normalized, terms) == term_set(normalized) & terms


def test_normalize_still_drops_latin_diacritics_and_keeps_cjk() -> None:
    assert normalize("Café ＡＢＣ 年假") == "cafe abc 年假"
    assert normalize("e\u0301te\u0301") == "ete"
