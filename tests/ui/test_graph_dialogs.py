"""The Knowledge graph tab's dialogs on their own (widgets, no backend): the merge dialog
chooses nothing for the person, so a reflex OK cannot merge the wrong entity; the extraction bar
says when the model server refused a JSON schema."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.graph.dialogs import merge_dialog
from goodbuddy_kb.ui.graph.extraction import ExtractionBar
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.i18n import language, set_language

pytestmark = pytest.mark.gui

ONTOLOGY = g.Ontology(
    entity_types=[g.EntityType(key="organization", name_zh="组织/部门", name_en="Organisation")]
)


def entity(entity_id: str, name: str) -> g.Entity:
    return g.Entity(
        id=entity_id,
        type_key="organization",
        name=name,
        aliases=[],
        description="",
        locked_fields=[],
        mentions=1,
    )


def test_the_merge_dialog_preselects_nothing_and_ok_waits_for_a_choice(qtbot: QtBot) -> None:
    finance = entity("1" * 32, "财务部")
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    dialog = merge_dialog(parent, "9" * 32, ONTOLOGY, finance)
    picker = dialog.picker  # type: ignore[attr-defined]
    sent: list[object] = []
    dialog.submitted.connect(sent.append)
    dialog.show()
    picker.respond([entity("2" * 32, "财务中心"), entity("3" * 32, "法务部"), finance])
    assert picker.list.count() == 2, "the entity itself is not offered"
    assert picker.list.selectedItems() == [] and picker.chosen() == []
    assert not dialog.ok_button.isEnabled(), "OK waits until the person picks"
    dialog.ok_button.click()
    qtbot.keyClick(dialog, QtCore.Qt.Key.Key_Return)
    assert sent == [], "a reflex OK merges nothing"
    picker.list.item(1).setSelected(True)
    assert dialog.ok_button.isEnabled()
    dialog.ok_button.click()
    assert len(sent) == 1
    request = sent[0]
    assert isinstance(request, g.EntityMergeRequest)
    assert request.merged_ids == ["3" * 32], "the one the person picked"


def test_the_extraction_bar_says_when_the_server_refused_a_json_schema(qtbot: QtBot) -> None:
    run = g.GraphRunSummary(run_id="r", strategy="model", json_mode="json_object")
    info = g.GraphInfo(
        library_id="9" * 32,
        settings=g.GraphSettings(strategy="model"),
        ontology=ONTOLOGY,
        needs_rebuild=False,
        entities=1,
        relations=0,
        evidence=1,
        last_run=run,
    )
    before = language()
    set_language("zh")
    try:
        bar = ExtractionBar(GraphState(library_id="9" * 32, info=info))
        qtbot.addWidget(bar)
        bar.show_state()
        assert "已改用普通 JSON 模式" in bar.status.text()
    finally:
        set_language(before)
