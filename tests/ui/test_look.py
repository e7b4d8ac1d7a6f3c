"""The look: tables keep at least eight rows at 800×600 and nothing is squeezed below its
minimum; the workbench reads the snippet without sideways scrolling; Qt's own buttons and
dialogs (the file dialog whole) speak Chinese; theme and language persist across restarts; the
dark theme's disabled buttons look disabled."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import detect_language, set_language
from goodbuddy_kb.ui.i18n.qt_translations import install_qt_translations, with_mnemonic
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.theme import apply_theme, wants_dark
from tests.ui.helpers import (
    MakeLibrary,
    ask,
    handbook,
    latin_words,
    open_window,
    shoot,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def visible_rows(view: QtWidgets.QTableView) -> float:
    return view.viewport().height() / max(1, view.verticalHeader().defaultSectionSize())


def squeezed(root: QtWidgets.QWidget) -> list[str]:
    """Visible buttons narrower than their text needs."""
    return [
        b.text()
        for b in root.findChildren(QtWidgets.QAbstractButton)
        if b.isVisibleTo(root) and b.text() and b.width() < b.minimumSizeHint().width()
    ]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_tables_keep_eight_rows_at_800x600_and_grow_at_1400x900(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    language: str,
    qapp: QtWidgets.QApplication,
    make_library: MakeLibrary,
) -> None:
    apply_theme(qapp, language == "zh")  # the real look: the style sheet, light and dark
    win = open_window(qtbot, data_dir, language)
    try:
        make_library(handbook(), win=win)
        tab = win.documents_tab
        win.resize(800, 600)
        qtbot.wait(200)
        assert visible_rows(tab.document_view) >= 8, "the document table keeps 8 rows"
        assert not squeezed(win), f"squeezed at 800×600: {squeezed(win)}"
        assert tab.watch_box.width() >= tab.watch_box.sizeHint().width()
        shoot(win, f"look-documents-800x600-{language}")
        for page, view in ((win.tasks_tab, win.tasks_tab.view),):
            win.tabs.setCurrentWidget(page)
            qtbot.wait(100)
            assert visible_rows(view) >= 8
        win.tabs.setCurrentIndex(0)
        win.resize(1400, 900)
        qtbot.wait(200)
        assert visible_rows(tab.document_view) >= 16, "the height goes to the table"
        assert win.splitter.sizes()[1] > 1000, "the width goes to the content, not the list"
        win.resize(800, 600)
        bench = ask(qtbot, win, "年假怎么结转")
        bench.resize(800, 600)
        qtbot.wait(200)
        assert bench.splitter.orientation() == QtCore.Qt.Orientation.Vertical
        assert bench.preview.isVisible() and bench.preview.width() <= bench.width()
        assert bench.preview.horizontalScrollBar().maximum() == 0, "the snippet wraps"
        shoot(bench, f"look-workbench-800x600-{language}")
        assert visible_rows(bench.table) >= 3
        bench.reject()
    finally:
        win.link.shutdown()
        set_language("en")
        apply_theme(qapp, False)


def test_qt_dialogs_and_buttons_speak_chinese(qapp: QtWidgets.QApplication) -> None:
    installed = install_qt_translations(qapp, "zh")
    try:
        assert installed, "Qt's Chinese translations ship with PySide6"
        box = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Cancel
            | QtWidgets.QDialogButtonBox.StandardButton.Yes
        )
        cancel = box.button(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        assert cancel.text() == "取消"
        assert "是" in box.button(QtWidgets.QDialogButtonBox.StandardButton.Yes).text()
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)
    assert install_qt_translations(qapp, "en") == []


def test_theme_and_language_persist_and_dark_disabled_looks_disabled(
    qtbot: QtBot,
    data_dir: Path,
    qapp: QtWidgets.QApplication,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GOODBUDDY_THEME", raising=False)
    monkeypatch.delenv("GOODBUDDY_LANG", raising=False)
    win: MainWindow = open_window(qtbot, data_dir, "en")
    try:
        win.theme_action.setChecked(True)
        assert wants_dark(qapp), "a restart keeps the dark theme"
        palette = qapp.palette()
        role, group = QtGui.QPalette.ColorRole, QtGui.QPalette.ColorGroup
        assert palette.color(group.Disabled, role.ButtonText) != palette.color(
            group.Active, role.ButtonText
        ), "disabled buttons read as disabled in the dark theme"
        win.resize(800, 600)
        shoot(win, "look-dark-800x600-en")
        win.theme_action.setChecked(False)
        assert not wants_dark(qapp)
        win.language_actions["zh"].trigger()
        assert detect_language() == "zh", "a restart opens in Chinese"
        # It applies at once now (tests/ui/test_language_switch.py), said once, in Chinese.
        qtbot.waitUntil(lambda: win.statusBar().currentMessage() == "界面语言已切换为中文。")
        win.language_actions["en"].trigger()
        assert detect_language() == "en"
        qtbot.waitUntil(lambda: win.tabs.tabText(win.tabs.indexOf(win.tasks_tab)) == "Tasks")
    finally:
        apply_theme(qapp, False)
        win.link.shutdown()


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


def test_ctrl_q_quits_the_window_and_its_backend(qtbot: QtBot, data_dir: Path) -> None:
    """Ctrl+Q did nothing and no menu offered Quit: only the window's close button ended the
    app. Quit is now the Settings menu's last item, in both languages, and its shortcut works
    from anywhere in the window."""
    win: MainWindow = open_window(qtbot, data_dir, "en")
    try:
        process = win.link.process
        assert process is not None and process.alive()
        assert win.quit_action.text() == "&Quit GoodBuddy KB"
        assert win.quit_action.shortcut().toString() == "Ctrl+Q"
        win.show()
        win.activateWindow()
        qtbot.waitUntil(win.isActiveWindow, timeout=5_000)
        qtbot.keyClick(win, QtCore.Qt.Key.Key_Q, QtCore.Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not win.isVisible(), timeout=5_000)
        qtbot.waitUntil(lambda: not process.alive(), timeout=20_000)
    finally:
        win.link.shutdown()


def _luminance(colour: QtGui.QColor) -> float:
    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.red())
        + 0.7152 * channel(colour.green())
        + 0.0722 * channel(colour.blue())
    )


@pytest.mark.parametrize("dark", [False, True])
def test_a_scroll_bars_thumb_stands_out_from_its_track(
    qtbot: QtBot, qapp: QtWidgets.QApplication, dark: bool
) -> None:
    """Under Xvfb the documents table's thumb was white on a light grey track, hard to find.
    Its colour, as drawn, differs from the track's by a contrast ratio of at least 1.8."""
    apply_theme(qapp, dark=dark)
    try:
        view = QtWidgets.QListWidget()
        view.addItems([f"row {i}" for i in range(200)])
        view.resize(240, 300)
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
        bar = view.verticalScrollBar()
        option = QtWidgets.QStyleOptionSlider()
        bar.initStyleOption(option)
        style, control = bar.style(), QtWidgets.QStyle.ComplexControl.CC_ScrollBar
        slider = style.subControlRect(
            control, option, QtWidgets.QStyle.SubControl.SC_ScrollBarSlider, bar
        )
        page = style.subControlRect(
            control, option, QtWidgets.QStyle.SubControl.SC_ScrollBarAddPage, bar
        )
        image = bar.grab().toImage()
        thumb = image.pixelColor(slider.center())
        track = image.pixelColor(page.center())
        lighter, darker = sorted((_luminance(thumb), _luminance(track)), reverse=True)
        assert (lighter + 0.05) / (darker + 0.05) >= 1.8, (thumb.name(), track.name())
    finally:
        apply_theme(qapp, dark=False)


@pytest.mark.parametrize("dark", [False, True])
def test_a_disabled_list_item_is_drawn_greyed(
    qtbot: QtBot, qapp: QtWidgets.QApplication, dark: bool
) -> None:
    """The graph strategy's "Model (needs a chat model)", which cannot be chosen, was drawn like
    the items that can: the style sheet's list colour won over a disabled item's (under Xvfb).
    Its text, as drawn, is nearer the background than an enabled item's."""
    apply_theme(qapp, dark=dark)
    try:
        view = QtWidgets.QListWidget()
        view.addItems(["█████ ████", "█████ ████"])
        off = view.item(1)
        off.setFlags(off.flags() & ~QtCore.Qt.ItemFlag.ItemIsEnabled)
        view.resize(240, 120)
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
        image = view.viewport().grab().toImage()
        background = _luminance(image.pixelColor(image.width() - 5, image.height() - 5))

        def ink(row: int) -> float:
            """How far the row's text is from the background, at its farthest pixel."""
            rect = view.visualItemRect(view.item(row))
            ratio = image.devicePixelRatio()
            far = 0.0
            for x in range(int(rect.left() * ratio), int(rect.right() * ratio), 2):
                colour = image.pixelColor(x, int(rect.center().y() * ratio))
                far = max(far, abs(_luminance(colour) - background))
            return far

        assert ink(1) < ink(0) * 0.8, (ink(0), ink(1))
    finally:
        apply_theme(qapp, dark=False)


@pytest.mark.parametrize("dark", [False, True])
def test_the_graph_strategy_that_needs_a_chat_model_is_drawn_greyed(
    qtbot: QtBot, qapp: QtWidgets.QApplication, dark: bool
) -> None:
    """In the graph settings' drop-down, "Model (needs a chat model)" was drawn like "Off" and
    "Local" (the combo's menu-like delegate ignores the style sheet's disabled colour; seen under
    Xvfb). Its text, as drawn in the open list, is nearer the background than the others'."""
    from goodbuddy_kb.contracts.graph import GraphSettings
    from goodbuddy_kb.ui.widgets.graph_settings import GraphSettingsDialog

    apply_theme(qapp, dark=dark)
    try:
        settings = GraphSettings(strategy="local")
        dialog = GraphSettingsDialog("0" * 32, settings, 0.8, chat_model=False)
        qtbot.addWidget(dialog)
        dialog.show()
        combo = dialog.strategy
        combo.showPopup()
        view = combo.view()
        qtbot.waitExposed(view)
        image = view.viewport().grab().toImage()
        ratio = image.devicePixelRatio()

        def ink(row: int) -> float:
            rect = view.visualRect(combo.model().index(row, 0))
            y = int(rect.center().y() * ratio)
            base = _luminance(image.pixelColor(int((rect.right() - 2) * ratio), y))
            xs = range(int(rect.left() * ratio), int(rect.right() * ratio) - 1)
            return max(abs(_luminance(image.pixelColor(x, y)) - base) for x in xs)

        off = combo.findData("off")
        model = combo.findData("model")
        assert ink(model) < ink(off) * 0.8, (ink(off), ink(model))
        combo.hidePopup()
    finally:
        apply_theme(qapp, dark=False)
