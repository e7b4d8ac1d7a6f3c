"""What assistive technology hears in the real window: the chunk switch is a Switch (with its
on/off state), the chat's retrieval mode is one exclusive group of radio buttons that the arrow
keys move through; and without a chat model, an "always" question with no library in its scope
says that nothing was searched because no library is selected."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ui.helpers import MakeLibrary, ask_chat, open_from_row, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Role = QtGui.QAccessible.Role


def heard(widget: QtWidgets.QWidget) -> QtGui.QAccessibleInterface:
    face = QtGui.QAccessible.queryAccessibleInterface(widget)
    assert face is not None
    return face


def test_the_chunk_switch_is_announced_as_a_switch(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    make_library({"a.md": "# Rules\n\nRule one: walrus.\n"}, vectors=False)
    dialog = open_from_row(qtbot, window, "a.md")
    switch = dialog.pane.switch
    face = heard(switch)
    assert face.role() == Role.Switch, "not a check box"
    assert face.state().checkable and face.state().checked
    assert face.text(QtGui.QAccessible.Text.Name) == "Used in search switch, on"
    with qtbot.waitSignal(dialog.notice, timeout=5_000):
        switch.setFocus()
        qtbot.keyClick(switch, QtCore.Qt.Key.Key_Space)
    assert not heard(switch).state().checked
    dialog.reject()


def test_the_chat_mode_is_a_radio_group_the_arrows_move_through(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.top_tabs.setCurrentWidget(window.chat_view)
    view = window.chat_view
    view.show_scope()
    popover = view.popover
    qtbot.waitUntil(popover.isVisible, timeout=2_000)
    auto, always = popover.auto, popover.always
    assert [heard(b).role() for b in (auto, always)] == [Role.RadioButton, Role.RadioButton]
    # each says what it does, to the eye and to a screen reader
    assert auto.toolTip().startswith("The model decides whether and when to search")
    assert "searches the selected libraries first" in always.accessibleDescription()
    # searching first is the first choice
    assert heard(always).state().checked and not heard(auto).state().checked
    always.setFocus()
    qtbot.keyClick(always, QtCore.Qt.Key.Key_Left)
    assert popover.mode == "auto" and auto.hasFocus()
    assert heard(auto).state().checked and not heard(always).state().checked
    qtbot.keyClick(auto, QtCore.Qt.Key.Key_Right)
    assert popover.mode == "always" and always.hasFocus()
    popover.hide()


def test_always_with_no_library_and_no_chat_model_says_no_library_is_selected(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    wait_call(qtbot, window, LIBRARY_CREATE, lib.LibraryCreateRequest(name="Alpha"))
    window.top_tabs.setCurrentWidget(window.chat_view)
    view = window.chat_view
    qtbot.waitUntil(lambda: view.popover.list.count() == 1, timeout=10_000)
    view.popover.list.item(0).setCheckState(QtCore.Qt.CheckState.Unchecked)
    view.popover.always.setChecked(True)
    assert view.selected == set() and view.popover.mode == "always"
    ask_chat(qtbot, view, "What is the travel allowance?")
    text = view.transcript.toPlainText()
    assert "no library is selected" in text and "nothing was searched" in text
    assert "model decides" not in text
