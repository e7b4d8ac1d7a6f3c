"""The local extractor's parts without a database: matching, discovery, relations, offsets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from goodbuddy_kb.main_process.graph.local import compile_patterns, discover, relations_in
from goodbuddy_kb.main_process.graph.matching import Matcher, fold, normalise_name
from goodbuddy_kb.main_process.graph.ontology import starter


def test_longest_match_wins_over_overlapping_aliases() -> None:
    matcher = Matcher([("财务", "a"), ("财务部", "b"), ("部长", "c")])
    found = matcher.find("请财务部长签字")
    assert [(m.start, m.end, m.payload) for m in found] == [(1, 4, ("b",))]


def test_folding_of_width_and_case_and_mixed_scripts() -> None:
    matcher = Matcher([("Orion Gateway", "o"), ("ＥＲＰ系统", "e")])
    text = "升级ORION  gateway 前先备份 erp系统。"
    found = matcher.find(text)
    assert {m.payload[0] for m in found} == {"e"}, "inner double space is not the same name"
    found = matcher.find("升级ＯＲＩＯＮ Gateway前先备份ERP系统。")
    assert [m.payload[0] for m in found] == ["o", "e"]
    for m in found:
        assert normalise_name("升级ＯＲＩＯＮ Gateway前先备份ERP系统。"[m.start : m.end]) == m.key


def test_latin_names_match_whole_words_only() -> None:
    matcher = Matcher([("API", "a")])
    assert matcher.find("the capital and rapid API calls")[0].start == 22
    assert len(matcher.find("the capital and rapid API calls")) == 1


@given(st.text(min_size=0, max_size=80))
def test_fold_keeps_length_so_offsets_map_back(text: str) -> None:
    assert len(fold(text)) == len(text)


@given(st.text(alphabet="财务部系统审批由的ABC abc，。", max_size=60))
def test_evidence_offsets_always_equal_the_mention(text: str) -> None:
    matcher = Matcher([("财务部", "f"), ("ABC 系统", "s"), ("审批", "t")])
    for m in matcher.find(text):
        assert normalise_name(text[m.start : m.end]) == m.key


def test_discovery_from_cues_and_defined_terms() -> None:
    text = "差旅报销制度由财务部审批。客户关系管理系统（简称CRM）由信息中心负责。The Finance Department approves budgets."
    found = {(m.type_key, m.name) for m in discover(text, starter())}
    assert ("policy", "差旅报销制度") in found
    assert ("organization", "财务部") in found
    assert ("organization", "信息中心") in found
    assert ("system", "客户关系管理系统") in found
    assert ("organization", "Finance Department") in found
    term = next(m for m in discover(text, starter()) if m.type_key == "term")
    assert term.name == "客户关系管理系统" and term.aliases == ("CRM",)
    for m in discover(text, starter()):
        assert text[m.start : m.end] == m.name


def _relations(text: str, names: list[tuple[str, str, str]]) -> list[tuple[str, str, str, float]]:
    ontology = starter()
    matcher = Matcher((n, i) for n, i, _t in names)
    type_of = {i: t for _n, i, t in names}
    mentions = matcher.find(text)
    found = relations_in(text, mentions, type_of, compile_patterns(ontology), ontology)
    return [(r.type_key, r.head.payload[0], r.tail.payload[0], r.confidence) for r in found]


def test_pattern_relations_respect_their_endpoint_types() -> None:
    names = [("差旅报销制度", "p", "policy"), ("财务部", "f", "organization")]
    assert _relations("差旅报销制度由财务部审批。", names) == [("approves", "f", "p", 0.9)]
    # a relation whose endpoints the ontology does not allow is rejected
    wrong = [("差旅报销制度", "p", "location"), ("财务部", "f", "location")]
    assert _relations("差旅报销制度由财务部审批。", wrong) == []


def test_cooccurrence_is_weaker_than_a_pattern_and_stays_in_its_sentence() -> None:
    names = [
        ("订单系统", "s", "system"),
        ("北京", "b", "location"),
        ("财务部", "f", "organization"),
    ]
    found = _relations("订单系统部署在北京。财务部另有安排。", names)
    assert found == [("located_in", "s", "b", 0.45)]
