"""Polish at 800×600 and in Chinese, against the real GUI over a real backend: the chat's
"Sources consulted" table never scrolls sideways (light and dark, zh and en) and keeps the whole
citation in its tooltip; Qt's widget file dialog speaks Chinese whole (the strings Qt 6's
catalogue lacks are answered from its older entries); Add folder… adds the chosen folder; the
file chooser offers every kind of file the backend reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.main_process.parsing import SUPPORTED_SUFFIXES
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chat.citations import CHANNELS, DOCUMENT, DOCUMENT_MIN, SNIPPET
from goodbuddy_kb.ui.documents.source_actions import DOCUMENT_SUFFIXES
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.i18n.qt_translations import install_qt_translations, with_mnemonic
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.test_chat_view import chat_with
from tests.ui.test_workspace import create_library_with_folder, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def latin_words(text: str) -> list[str]:
    """Runs of two or more Latin letters (English words) in ``text``."""
    import re

    return re.findall(r"[A-Za-z]{2,}", text)


@pytest.mark.parametrize(("language", "dark"), [("en", False), ("zh", True)])
def test_the_citation_table_never_scrolls_sideways_at_800x600(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    qapp: QtWidgets.QApplication,
    language: str,
    dark: bool,
) -> None:
    win = open_window(qtbot, data_dir, language)
    try:
        apply_theme(qapp, dark)
        create_library_with_folder(qtbot, win, tmp_path)
        script = ChatScript(turns=[[{"text": "每晚不超过六百元 [1]。"}]])
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
            view.popover.always.setChecked(True)
            view.input.setPlainText("出差住宿一线城市每晚多少钱？")
            with qtbot.waitSignal(view.reply_finished, timeout=20_000):
                view.send()
        table = view.citation_view
        assert view.citations.rowCount() >= 1
        for width, height in ((800, 600), (1400, 900), (800, 600)):
            win.resize(width, height)
            qtbot.wait(150)
            header = table.horizontalHeader()
            shown = [c for c in range(header.count()) if not table.isColumnHidden(c)]
            used = sum(header.sectionSize(c) for c in shown)
            assert used <= table.viewport().width(), (width, used, table.viewport().width())
            assert table.horizontalScrollBar().maximum() == 0
            assert header.sectionSize(DOCUMENT) >= DOCUMENT_MIN, "the document name reads"
            if width == 1400:
                assert not table.isColumnHidden(SNIPPET) and not table.isColumnHidden(CHANNELS)
        assert table.isColumnHidden(SNIPPET), "at 800 px the snippet steps aside"
        citation = view.citations.row_at(0)
        assert citation is not None
        tip = view.citations.data(
            view.citations.index(0, DOCUMENT), QtCore.Qt.ItemDataRole.ToolTipRole
        )
        assert citation.document_title in tip and citation.snippet[:40] in tip
        # Moving through the citations (keyboard or mouse) shows each one's context.
        assert view.reference.toPlainText() == ""
        table.setFocus()
        table.selectRow(0)
        qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
        # A new theme redraws the answer's links in its colours and keeps the chosen citation.
        apply_theme(qapp, not dark)
        qtbot.wait(100)
        assert table.currentIndex().row() == 0 and bool(view.reference.toPlainText())
        shoot(win, f"chat-citations-800x600-{language}")
    finally:
        win.link.shutdown()
        set_language("en")
        apply_theme(qapp, False)


def test_qt_file_dialog_speaks_chinese_whole(
    qtbot: QtBot, qapp: QtWidgets.QApplication, tmp_path: Path
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    installed = install_qt_translations(qapp, "zh")
    try:
        dialog = QtWidgets.QFileDialog(None, "t", str(tmp_path))
        dialog.setOption(QtWidgets.QFileDialog.Option.DontUseNativeDialog, True)
        qtbot.addWidget(dialog)
        dialog.show()
        view = dialog.findChild(QtWidgets.QTreeView, "treeView")
        assert view is not None
        model = view.model()

        def listed() -> bool:
            return model.rowCount(view.rootIndex()) == 2

        qtbot.waitUntil(listed, timeout=5_000)
        labels = [
            dialog.findChild(QtWidgets.QLabel, name).text()
            for name in ("lookInLabel", "fileNameLabel", "fileTypeLabel")
        ]
        assert labels[0] == "查找范围(&L)：" and labels[2] == "文件类型(&T)：", labels
        for label in labels:
            assert not latin_words(label.replace("&", "")), label
        rows = {
            model.data(model.index(r, 0, view.rootIndex())): model.data(
                model.index(r, 2, view.rootIndex())
            )
            for r in range(2)
        }
        assert rows["folder"] == "文件夹", rows
        assert "文档" in rows["notes.md"], rows  # the MIME type's name, in Chinese
        dialog.close()
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)
        install_qt_translations(qapp, "en")
    assert with_mnemonic("文件类型：", "T") == "文件类型(&T)："
    assert with_mnemonic("Folder", "") == "Folder"


def test_add_folder_adds_the_chosen_folder_and_the_chooser_knows_every_kind(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    assert set(DOCUMENT_SUFFIXES) == set(SUPPORTED_SUFFIXES), "the chooser offers what is read"
    win = open_window(qtbot, data_dir, "zh")
    try:
        create_library_with_folder(qtbot, win, tmp_path)
        other = tmp_path / "more"
        other.mkdir()
        (other / "extra.md").write_text("# 额外\n\n补充说明。\n", encoding="utf-8")
        tab = win.documents_tab
        tab.add_file_source()
        chooser = tab.folder_dialog
        assert chooser is not None and chooser.isVisible()
        assert chooser.nameFilters()[0].startswith("支持的文档 (*.md")
        chooser.reject()
        assert tab.folder_dialog is None and tab.sources.rowCount() == 1, "Cancel adds nothing"
        tab.add_folder_source()
        chooser = tab.folder_dialog
        assert chooser is not None
        chooser.setDirectory(str(tmp_path))
        chooser.selectFile(str(other))
        chooser.accept()
        qtbot.waitUntil(lambda: tab.sources.rowCount() == 2, timeout=10_000)
        assert str(other) in [s.location for s in tab.sources.rows]
    finally:
        win.link.shutdown()
        set_language("en")


def test_model_decides_without_a_chat_model_says_the_next_step_in_chinese(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        create_library_with_folder(qtbot, win, tmp_path)
        view = win.chat_view
        win.top_tabs.setCurrentWidget(view)
        qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
        assert view.popover.mode == "auto"
        view.input.setPlainText("年假怎么结转？")
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            view.send()
        text = view.transcript.toPlainText()
        assert "没有进行检索" in text and "每次先检索" in text.split("没有进行检索", 1)[1]
        assert "No chat model" not in text
    finally:
        win.link.shutdown()
        set_language("en")


def test_every_diagnostics_event_kind_has_a_name_in_both_languages() -> None:
    from goodbuddy_kb.ui.i18n import STRINGS
    from goodbuddy_kb.ui.settings.diagnostics import KINDS, _kind

    assert {"graph", "ocr"} <= set(KINDS), "every task kind the backend records"
    for kind in KINDS:
        zh, en = STRINGS[f"diagrec.kind.{kind}"]
        assert zh and en and not latin_words(zh.replace("OCR", "")), kind
    set_language("zh")
    try:
        assert _kind("graph") == "图谱抽取"
    finally:
        set_language("en")


def test_a_long_library_name_gives_way_before_the_header_line_is_cut(
    qtbot: QtBot, data_dir: Path
) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        name = "Organisation and systems handbook for the whole company 2026"
        win.new_library()
        dialog = win.name_dialog
        assert dialog is not None
        dialog.name_edit.setText(name)
        qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
        title = win.detail.title
        qtbot.waitUntil(lambda: title.full_text() == name, timeout=5_000)
        win.resize(1400, 900)
        qtbot.waitUntil(lambda: title.text() == name, timeout=5_000)
        assert title.toolTip() == "", "nothing hidden, nothing to repeat"
        win.resize(800, 600)
        qtbot.waitUntil(lambda: title.text().endswith("…"), timeout=5_000)
        assert title.toolTip() == name and title.accessibleName() == name
        created = win.detail.created
        assert created.width() >= created.sizeHint().width(), "the date is not cut off"
        button = win.detail.details_button
        assert button.width() >= button.sizeHint().width(), "nor is the summary button"
        # the library list does not scroll sideways either: the row ends in "…" within the list
        libraries = win.list_view
        row = libraries.visualRect(libraries.model().index(0, 0))
        assert row.width() <= libraries.viewport().width()
        assert not libraries.horizontalScrollBar().isVisible()
    finally:
        win.link.shutdown()
