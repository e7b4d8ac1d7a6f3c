"""The local extractor's parts without a database: matching, discovery, relations, offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goodbuddy_kb.main_process.graph.local import compile_patterns, discover
from goodbuddy_kb.main_process.graph.matching import Matcher, fold, normalise_name
from goodbuddy_kb.main_process.graph.names import find
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.graph.romanise import han_keys, latin_key
from goodbuddy_kb.main_process.graph.sentences import relations_in


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
    # the short form is the system's other name, not a term of the same name beside it
    assert not [m for m in discover(text, starter()) if m.type_key == "term"]
    (crm,) = [m for m in find(text, starter()) if m.name == "客户关系管理系统"]
    assert crm.type_key == "system" and crm.aliases == ("CRM",)
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
    found = _relations("订单系统的备用机房选在北京。财务部另有安排。", names)
    assert found == [("located_in", "s", "b", 0.45)]


def _fresh(text: str) -> set[tuple[str, str, str, float]]:
    """What a fresh library with the starter ontology finds in ``text``: discovery, resolution
    by type and name, matching, relations (the extraction run's steps without a database)."""
    ontology = starter()
    ids: dict[tuple[str, str], str] = {}
    for m in find(text, ontology):
        ids.setdefault((m.type_key, normalise_name(m.name)), f"{m.type_key}:{m.name}")
    matcher = Matcher((name, i) for (_t, name), i in ids.items())
    type_of = {i: t for (t, _n), i in ids.items()}
    found = relations_in(text, matcher.find(text), type_of, compile_patterns(ontology), ontology)
    return {
        (r.type_key, r.head.payload[0].split(":")[1], r.tail.payload[0].split(":")[1], r.confidence)
        for r in found
    }


def test_starter_patterns_fire_on_sentences_of_the_graph_fixtures() -> None:
    # sentences as fixtures/eval-graph writes them, zh and en
    assert ("owns", "财务共享中心", "费用报销系统", 0.9) in _fresh(
        "费用报销系统由财务共享中心负责。员工提交的电子发票在该系统内完成校验。"
    )
    assert ("approves", "财务共享中心", "差旅费用单据", 0.9) in _fresh(
        "差旅费用单据（以下简称“差旅报销”）指员工完成行程后提交的单据。"
        "差旅费用单据由财务共享中心审批。金额超过两万元的，还须经首席财务官审批。"
    )
    assert ("belongs_to", "信息技术部", "数字化中心", 0.9) in _fresh("信息技术部隶属于数字化中心。")
    assert ("depends_on", "费用报销系统", "统一认证平台", 0.9) in _fresh(
        "统一认证平台由信息技术部负责。费用报销系统依赖统一认证平台。"
    )
    assert ("located_in", "法务部", "总部大楼", 0.9) in _fresh(
        "法务部位于总部大楼十二层，合同审核邮箱 legal@example.com。"
    )
    english = _fresh(
        "The Billing Gateway is owned by the Payments Team. The Billing Gateway depends on the"
        " Ledger Service. The Remote Access Policy is approved by the Security Office."
    )
    assert ("owns", "Payments Team", "Billing Gateway", 0.9) in english
    assert ("depends_on", "Billing Gateway", "Ledger Service", 0.9) in english
    assert ("approves", "Security Office", "Remote Access Policy", 0.9) in english


def test_patterns_read_through_fillers_and_a_few_free_words() -> None:
    # modal and filler words do not count: 须经 = 经, 统一审批 = 审批
    assert _fresh("所谓差旅费用单据，指报销单。差旅费用单据须由财务共享中心统一审批。") == {
        ("approves", "财务共享中心", "差旅费用单据", 0.9)
    }
    # the most specific pattern wins: 负责审批 is approval, not ownership
    assert _fresh("采购审批平台由供应链管理部负责审批。") == {
        ("approves", "供应链管理部", "采购审批平台", 0.9)
    }
    # a few free words on the free side of the literal: a loose match, still above co-occurrence
    assert _fresh("信息技术部负责维护统一认证平台。") == {
        ("owns", "信息技术部", "统一认证平台", 0.75)
    }
    assert _fresh("费用报销系统的登录依赖统一认证平台。") == {
        ("depends_on", "费用报销系统", "统一认证平台", 0.75)
    }
    assert ("owns", "Core Finance Team", "Ledger Service", 0.9) in _fresh(
        "The Ledger Service is maintained by the Core Finance Team."
    )
    # a clause break is not a free word: the clause after it is read with the sentence's
    # subject as its own, never surer than a loose match
    assert _fresh("法务部的档案室，位于总部大楼。") == {("located_in", "法务部", "总部大楼", 0.75)}
    assert _fresh("法务部的档案室位于总部大楼。") == {("located_in", "法务部", "总部大楼", 0.75)}


def test_a_name_with_two_types_is_never_related_to_itself() -> None:
    found = _fresh("客户数据平台（以下简称“北极星”）计划于九月上线。客户数据平台由数据智能部负责。")
    assert all(head != tail for _k, head, tail, _c in found)
    assert ("owns", "数据智能部", "客户数据平台", 0.9) in found


def _names(text: str) -> set[tuple[str, str]]:
    return {(m.type_key, m.name) for m in find(text, starter())}


def test_discovery_trims_function_words_and_verbs_from_names() -> None:
    # real sentences of the fixtures that used to glue a word to a name
    assert ("organization", "人力资源部") in _names("工资发放时间以人力资源部通知为准。")
    assert ("process", "费用报销流程") in _names("本通知废止，以新版费用报销流程为准。")
    assert ("system", "财务系统") in _names("报销单须在三十天内通过财务系统提交。")
    assert ("organization", "信息安全部") in _names("发生泄露须在两小时内报告信息安全部。")
    # a generic post of any unit is no name; a post the text names on its own is a role
    assert _names("请假须在上午十点前告知直属主管。") == set()
    assert ("role", "财务总监") in _names("单笔超过五千元的报销需要财务总监签字。")
    assert ("organization", "信息安全委员会") in _names("信息安全委员会由首席信息官担任主任。")
    for glued in ("以人力资源部", "通过财务系统", "报告信息安全部", "告知直属主管", "担任主任"):
        assert all(glued not in name for _t, name in _names(glued + "。"))
    # function characters at either end are trimmed, words that contain one are kept
    assert ("organization", "财务部") in _names("按财务部的要求，对财务部提交。")
    for inside in (
        "数据智能部",
        "供应链管理部",
        "采购合同管理规定",
        "应急管理中心",
        "员工须知手册",
    ):
        assert any(name == inside for _t, name in _names(f"由{inside}负责。")), inside
    assert ("person", "周宁") in _names("供应链管理部的部门经理为周宁。")
    assert all(name != "部门经理" for _t, name in _names("供应链管理部的部门经理为周宁。"))


def test_discovery_skips_generic_words_and_lowercase_latin_cues() -> None:
    names = _names("内部和外部培训均可报销。住宿费用按城市分级，一线城市五百元。")
    assert not names, names
    assert _names("按照当地规定缴纳。") == set()
    english = _names(
        "The Payments Team sits in the Berlin office. The Security Office runs drills."
    )
    assert ("organization", "Security Office") in english
    assert all(name != "Berlin office" for _t, name in english), "office is not capitalised"


def test_english_pattern_words_name_a_place_without_a_cue() -> None:
    # "sits in", "works from": the starter's located-in patterns, whose tail is a location
    found = _fresh(
        "The Payments Team sits in the Berlin office on the third floor. The Core Finance"
        " Team works from Singapore and closes the books on the fifth working day."
    )
    assert ("located_in", "Payments Team", "Berlin", 0.9) in found
    assert ("located_in", "Core Finance Team", "Singapore", 0.9) in found
    # capitalised words only: "sits in a queue" names nothing
    assert _names("The Payments Team sits in a queue.") == {("organization", "Payments Team")}


def test_chinese_pattern_words_before_a_found_head_name_what_it_approves() -> None:
    # sentences of the bilingual fixtures, whose approved things carry no cue
    assert _fresh("采购合同须经法务部审核后方可签署。") == {("approves", "法务部", "采购合同", 0.9)}
    assert ("approves", "财务总监", "出差申请", 0.9) in _fresh("出差申请由财务总监审批。")
    # too short, a cue's own word, or already a name: no term
    assert _names("本制度由人力资源部负责解释。") == {("organization", "人力资源部")}
    assert _names("加班由直属主管审批。") == set()
    assert ("term", "统一认证平台") not in _names("统一认证平台由信息技术部负责。")


def test_english_verb_groups_company_forms_and_head_offices() -> None:
    # auxiliaries and modals do not change the relation a verb states
    found = _fresh("The Payroll Service and the Billing Platform are owned by the Treasury team.")
    assert ("owns", "Treasury team", "Billing Platform", 0.9) in found
    assert ("approves", "Treasury team", "Billing Platform", 0.9) not in found
    # "Ltd." keeps its full stop, and the sentence does not end there
    names = {m.name for m in discover("Orbis Tooling Ltd. is based in Leeds.", starter())}
    assert "Orbis Tooling Ltd." in names
    assert ("located_in", "Orbis Tooling Ltd.", "Leeds", 0.9) in _fresh(
        "Orbis Tooling Ltd. is based in Leeds."
    )
    # a capitalised place before "headquarters" names the head office
    assert "Lisbon headquarters" in {
        m.name for m in discover("She works at the Lisbon headquarters.", starter())
    }
    # a preposition that opens a sentence is not part of a name
    assert not {m.name for m in discover("For group tools, call the Help Desk.", starter())} & {
        "For group",
        "For group tools",
    }


def test_english_lists_appositions_and_relative_clauses() -> None:
    # a capitalised name listed with a system is a system; the list shares the relation
    found = _fresh(
        "Tickets are filed in the Help Platform and Redmine, which are owned by the Tools team."
    )
    assert ("owns", "Tools team", "Redmine", 0.9) in found
    assert ("owns", "Tools team", "Help Platform", 0.9) in found
    # a relative clause after an apposition reads from the person it describes
    found = _fresh("Orbis Ltd. is run by Ana Ruiz, Country Manager, who reports to Omar Said.")
    assert ("reports_to", "Ana Ruiz", "Omar Said", 0.9) in found
    # "reports to" does not make a person a unit
    assert ("organization", "Omar Said") not in {
        (m.type_key, m.name) for m in find("Ana Ruiz reports to Omar Said.", starter())
    }


def test_english_relative_clause_between_a_subject_and_its_verb() -> None:
    found = _fresh("Maria Lopez, who heads the Tools team, chairs the Release Board.")
    assert ("led_by", "Release Board", "Maria Lopez", 0.9) in found
    assert ("led_by", "Tools team", "Maria Lopez", 0.9) in found
    # a unit "of" another is part of it
    assert ("part_of", "Packing Section", "Operations Department", 0.9) in _fresh(
        "The Packing Section of the Operations Department signs off."
    )


def test_english_nested_places_locate_the_subject_too() -> None:
    found = _fresh("Orbis Ltd. is based in Leeds, on the third floor of Mill House, 3 Canal Road.")
    assert ("located_in", "Orbis Ltd.", "Mill House", 0.9) in found
    assert ("located_in", "Orbis Ltd.", "Leeds", 0.9) in found


def test_english_floor_of_a_building_and_a_verb_after_and() -> None:
    text = "The Porto office is run by Ana Ruiz and sits on the 3rd floor of Building C."
    assert ("location", "3rd floor of Building C") in {
        (m.type_key, m.name) for m in find(text, starter())
    }
    # the verb after "and" is the subject's, not the name right before it
    assert not {r for r in _fresh(text) if r[1] == "Ana Ruiz" and r[3] > 0.45}


def test_english_lower_case_system_names_and_owner_brackets() -> None:
    found = _fresh("Payroll system (owner: Treasury team): the upgrade is done.")
    assert ("owns", "Treasury team", "Payroll system", 0.9) in found


def test_a_bracketed_number_with_its_label_is_no_alias() -> None:
    """系统故障请先报IT服务台（分机8800）: the bracket holds the desk's extension, and the
    graph listed "分机8800" as another name of IT服务台; a bracketed other name still is one."""
    ontology = starter()
    text = "系统故障请先报IT服务台（分机8800）；信息技术部（IT部）负责网络。"
    found = {m.name: m.aliases for m in find(text, ontology)}
    assert found.get("IT服务台", ()) == (), found
    assert found.get("信息技术部") == ("IT部",), found
    # a revision or an edition qualifies the name (company-graph-dev's expense policy listed
    # "2023年修订" as another name of 费用报销制度)
    for title in ("费用报销制度（2023年修订）", "员工手册（第3版）"):
        assert all(not m.aliases for m in find(title, ontology)), title


def test_a_chinese_name_reads_as_its_romanisations() -> None:
    assert {"miao ruolin", "ruolin miao"} <= han_keys("苗若琳")
    assert "zeng guofan" in han_keys("曾国藩"), "every reading of a surname"
    assert "ouyang xiu" in han_keys("欧阳修"), "a two-character surname"
    assert not han_keys("OA系统") and not han_keys("人力资源部经理")
    assert latin_key("Miao  Ruo-lin") == "miao ruolin"
    assert latin_key("Grace") is None and latin_key("Change Advisory Board") is None


@pytest.mark.parametrize(
    ("text", "name", "alias"),
    [
        # a short form the text defines, in a bracket with quotation marks or without
        ("财务管理部（简称“财务部”）设在A栋5楼。", "财务管理部", "财务部"),
        ("信息技术部（下称IT部）负责全公司网络。", "信息技术部", "IT部"),
        ("售后工单系统（以下简称“工单系统”）由客服中心维护。", "售后工单系统", "工单系统"),
        # or after the name, in the sentence itself
        ("质量管理部简称质量部，部门经理俞晴。", "质量管理部", "质量部"),
        (
            'The Marketing Department (hereinafter "Marketing") sets prices.',
            "Marketing Department",
            "Marketing",
        ),
        # a bracket holding a qualifier gives no other name
        ("采购管理办法（摘要）由采购部发布。", "采购管理办法", None),
        ("IT服务台（分机8800）受理报修。", "IT服务台", None),
        ("应用开发组（组长苗若琳）负责OA系统。", "应用开发组", None),
    ],
)
def test_a_name_gets_the_other_name_its_text_gives_it(
    text: str, name: str, alias: str | None
) -> None:
    (m,) = [m for m in find(text, starter()) if m.name == name]
    assert m.aliases == ((alias,) if alias else ())


def test_a_lower_case_word_in_a_bracket_after_a_person_is_no_name() -> None:
    text = "Attendees: Priya Nair (remote), Tom Baker."
    (m,) = [m for m in find(text, starter()) if m.name == "Priya Nair"]
    assert m.aliases == ()
