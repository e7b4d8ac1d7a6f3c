"""The knowledge graph in the user's language: relation names (in the tab and in a path the
backend wrote with keys, as the workbench shows it) and the starter ontology's descriptions read
in Chinese when the UI is Chinese, while types a person defined read as they typed them and the
stored ontology keeps its keys and the starter's text."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.ui.graph.ontology import OntologyDialog
from goodbuddy_kb.ui.graph.texts import (
    relation_here,
    relation_names_in,
    relation_text,
    type_description,
    type_label,
)
from goodbuddy_kb.ui.i18n import STRINGS, language, set_language
from goodbuddy_kb.ui.workbench.report import _search_lines, status_text
from goodbuddy_kb.ui.workbench.results import preview_html

A, B = "1" * 32, "2" * 32


def plain(text: str) -> str:
    """Shown text as copied: the joiners that keep a relation on one line dropped."""
    return text.replace("\u2060", "").replace("\u00a0", " ")


@pytest.fixture
def chinese() -> Iterator[None]:
    before = language()
    set_language("zh")
    yield
    set_language(before)


def approves() -> g.Relation:
    return g.Relation(
        id="3" * 32, type_key="approves", head_id=A, head_name="财务部", tail_id=B,
        tail_name="差旅报销制度", confidence=0.9, extractor="local",
    )  # fmt: skip


@pytest.mark.usefixtures("chinese")
def test_relations_read_in_chinese_in_the_tab_and_in_a_backend_path() -> None:
    ontology = starter()
    assert relation_text(ontology, approves()) == "财务部 —审批→ 差旅报销制度"
    assert relation_here(ontology, approves(), A) == "—审批→ 差旅报销制度"
    path = "报销系统 —owns→ 财务共享中心; 财务共享中心 —located_in→ 上海"
    assert relation_names_in(path) == "报销系统 —负责→ 财务共享中心; 财务共享中心 —位于→ 上海"
    backwards = "差旅报销制度 ←approves— 财务部 —located_in→ 上海"
    assert relation_names_in(backwards) == "差旅报销制度 ←审批— 财务部 —位于→ 上海"
    custom = g.RelationType(key="supplies", name_zh="供货", name_en="supplies")
    with_custom = ontology.model_copy(update={"relation_types": [custom]})
    assert relation_names_in("甲 —supplies→ 乙", with_custom) == "甲 —供货→ 乙", "as typed"


@pytest.mark.usefixtures("chinese")
def test_the_starter_ontology_reads_in_chinese_and_a_persons_types_as_typed() -> None:
    ontology = starter()
    person = next(t for t in ontology.entity_types if t.key == "person")
    assert type_description(person) == "人员，由紧挨职务的姓名找到（经理谭一鸣、led by Ann Lee）。"
    retyped = person.model_copy(update={"description": "Staff member", "name_en": "Staff"})
    assert type_description(retyped) == "Staff member" and type_label(retyped) == "人员"
    for t in [*ontology.entity_types, *ontology.relation_types]:
        assert "\u4e00" <= type_label(t)[0] <= "\u9fff", f"{t.key} has a Chinese name"
        if t.description:
            assert not type_description(t).isascii(), f"{t.key}'s description is translated"


def test_every_starter_type_has_both_languages_in_the_catalogue() -> None:
    for t in starter().entity_types:
        assert STRINGS[f"starter.entity.{t.key}"][1] == t.name_en
        if t.description:
            assert STRINGS[f"starter.entity.{t.key}.description"][1] == t.description
    for relation in starter().relation_types:
        assert STRINGS[f"starter.relation.{relation.key}"][1] == relation.name_en


def starter_person() -> g.EntityType:
    return next(t for t in starter().entity_types if t.key == "person")


@pytest.mark.gui
@pytest.mark.usefixtures("chinese")
def test_the_ontology_editor_shows_chinese_and_saves_the_starter_text_unchanged(
    qtbot: QtBot,
) -> None:
    dialog = OntologyDialog(starter())
    qtbot.addWidget(dialog)
    page = dialog.entity_page
    row = next(i for i, t in enumerate(page.types) if t["key"] == "person")
    page.list.setCurrentRow(row)
    assert page.description.text() == "人员，由紧挨职务的姓名找到（经理谭一鸣、led by Ann Lee）。"
    saved: list[g.Ontology] = []
    dialog.submitted.connect(saved.append)
    dialog.ok_button.click()
    assert saved, dialog.error_label.text()
    person = next(t for t in saved[0].entity_types if t.key == "person")
    assert person.description == starter_person().description, "the stored text stays"


@pytest.mark.usefixtures("chinese")
def test_the_workbench_names_the_graphs_relations_in_chinese() -> None:
    result = r.RetrievalResult.model_construct(
        document_path="rules.md", heading_path=[], locator={}, snippet="报销系统由财务部负责。",
        graph_reasons=["报销系统 —owns→ 财务部"],
    )  # fmt: skip
    shown = plain(preview_html(result))
    assert "—负责→" in shown and "owns" not in shown


def test_the_workbench_leaves_out_a_name_a_relation_beside_it_names() -> None:
    """ "From the knowledge graph: Confluence; R&D Productivity team —owns→ Confluence; R&D
    Productivity team" read as noise (a helper's try): the relation says it all."""
    result = r.RetrievalResult.model_construct(
        document_path="tools.md", heading_path=[], locator={}, snippet="Confluence (wiki).",
        graph_reasons=["Confluence", "R&D Productivity team —owns→ Confluence",
                       "R&D Productivity team", "Jira"],
    )  # fmt: skip
    shown = plain(preview_html(result))
    # a bare name is said to be one ("; Miao Ruolin" after a path read as part of it)
    assert (
        "From the knowledge graph: R&amp;D Productivity team —owns→ Confluence; names Jira" in shown
    )


def test_the_diagnostics_say_the_graph_took_a_step_beside_no_entity_in_the_question() -> None:
    """The workbench said "graph not used: no entity of the graph was found in the question"
    beside a result whose reason was the graph's "财务总监 —led_by→ 邵雨桐" (a helper's try):
    the step from the best result is said too."""
    diagnostics = r.Diagnostics.model_construct(
        requested_channels=["fts", "graph"], used_channels=["fts"], degraded_channels=[],
        candidate_counts={}, timings_ms={}, graph_entities=[], graph_paths=[],
        graph_step="财务总监 —led_by→ 邵雨桐",
    )  # fmt: skip
    result = r.KnowledgeRetrievalResponse.model_construct(diagnostics=diagnostics, duration_ms=1.0)
    lines = [plain(line) for line in _search_lines(result)]
    assert (
        "The graph took one step from an entity the search's first result names: 财务总监 —led by→ 邵雨桐"
        " (the passage stating it was moved up)" in lines
    ), lines


def test_the_workbench_header_says_the_graphs_step_beside_no_entity() -> None:
    diagnostics = r.Diagnostics.model_construct(
        degraded_channels=[r.DegradedChannel(
            channel="graph", reason="no entity of the graph was found in the question",
            reason_code="graph.no_entities")],
        graph_step="财务总监 —led_by→ 邵雨桐", rerank=r.RerankDiagnostics.model_construct(
            fallback_reason=None, applied="off", requested="off"),
    )  # fmt: skip
    result = r.KnowledgeRetrievalResponse.model_construct(
        diagnostics=diagnostics, zero_result=None, duration_ms=5.0, results=[]
    )
    lines = plain(status_text(result)).splitlines()
    assert lines[-2:] == [
        "ⓘ Graph: no entity of the graph was found in the question",
        "ⓘ The graph took one step from an entity the search's first result names: 财务总监 —led by→ 邵雨桐"
        " (the passage stating it was moved up)",
    ], lines


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrapped_path_never_breaks_inside_a_relation(lang: str) -> None:
    """A narrow snippet pane wrapped "—located / in→" and "—位 / 于→" (a helper's try): laid
    out as the pane lays it out, every line break falls between a relation and a name."""
    from PySide6.QtGui import QTextDocument

    before = language()
    set_language(lang)
    try:
        result = r.RetrievalResult.model_construct(
            document_path="uk.md", heading_path=[], locator={}, snippet="UK office.",
            graph_reasons=[
                "Annual leave ←approves— Helen Marsh ←led_by— Lanchuan Precision UK Ltd."
                " —located_in→ Riverside House",
                "Helen Marsh —reports_to→ Jason He ←led_by— International Business Department"
                " —located_in→ 7th floor of Building A",
                "Miao Ruolin",
            ],
        )  # fmt: skip
        html = preview_html(result)
    finally:
        set_language(before)
    arrow = re.compile(r"—[^—→←]*→|←[^—→←]*—")
    breaks = 0
    for width in range(140, 420, 7):  # wider than any one relation
        document = QTextDocument()
        document.setHtml(html)
        document.setTextWidth(width)
        document.documentLayout().documentSize()  # lays the text out
        block = document.begin()
        while block.isValid():
            layout, text = block.layout(), block.text()
            spans = [m.span() for m in arrow.finditer(text)]
            for i in range(layout.lineCount() - 1):
                at = layout.lineAt(i).textStart() + layout.lineAt(i).textLength()
                breaks += 1
                inside = [text[a:b] for a, b in spans if a < at < b]
                assert not inside, (width, plain(text[max(0, at - 20) : at + 20]))
            block = block.next()
    assert breaks > 50  # the panes were narrow enough to wrap
