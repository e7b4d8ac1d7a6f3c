"""Dialogs stay within their screen: the Diagnostics dialog opened 820 px wide on an 800-pixel
screen, its Close button half off the edge (a helper's try under Xvfb at 800×600)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.widgets.screen_fit import install_screen_fitter


def test_a_dialog_larger_than_its_screen_is_brought_within_it(qtbot: QtBot) -> None:
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    install_screen_fitter(owner)
    dialog = QtWidgets.QDialog()
    qtbot.addWidget(dialog)
    room = dialog.screen().availableGeometry()
    dialog.resize(room.width() + 20, room.height() + 40)
    dialog.move(room.left() + 30, room.top() + 10)
    dialog.show()
    qtbot.waitUntil(lambda: room.contains(dialog.frameGeometry()), timeout=2000)
    assert dialog.width() <= room.width() and dialog.height() <= room.height()
    small = QtWidgets.QDialog()
    qtbot.addWidget(small)
    small.resize(300, 200)
    small.move(room.left() + 40, room.top() + 40)
    small.show()
    qtbot.wait(200)
    assert (small.width(), small.height(), small.x(), small.y()) == (300, 200, 40, 40)


def test_the_main_window_is_fitted_when_first_shown_only(qtbot: QtBot) -> None:
    """The main window took the screen's whole available height under its title bar, so its foot
    (the status bar, where a refused source says why) lay below an 800×600 screen (Xvfb with a
    window manager). Fitted on its first show; a size the person gives it later stays."""
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    install_screen_fitter(owner)
    window = QtWidgets.QMainWindow()
    qtbot.addWidget(window)
    room = window.screen().availableGeometry()
    window.resize(room.width(), room.height() + 30)
    window.show()
    qtbot.waitUntil(lambda: room.contains(window.frameGeometry()), timeout=2000)
    window.hide()
    window.resize(room.width(), room.height() + 30)
    window.show()
    qtbot.wait(250)
    assert window.height() == room.height() + 30, "the person's own size is kept"
