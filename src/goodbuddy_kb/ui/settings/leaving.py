"""Closing the window with settings changed and not saved asks first (Ctrl+Q dropped them
without a word): discard them and close, or stay."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.qt.widgets import QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import listing, tr
from goodbuddy_kb.ui.settings.tab import SettingsTab


def _names(tab: SettingsTab) -> list[str]:
    """The libraries whose settings are not saved, by name (the question named none)."""
    return [f"“{tab.names.get(i, '?')}”" for i in tab.unsaved_libraries()]


def held_back(tab: SettingsTab, event: QtGui.QCloseEvent, close: Callable[[], object]) -> bool:
    """True when the close waits for the person: ``event`` is ignored and a question is open
    (``tab.leaving_box``); "discard" drops the changes and calls ``close`` again."""
    if not tab.unsaved():
        return False
    event.ignore()
    if tab.leaving_box is not None and tab.leaving_box.isVisible():
        return True  # asked already
    box = QtWidgets.QMessageBox(tab.window())
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setWindowTitle(tr("settings.leaving.title"))
    names = _names(tab)
    box.setText(tr("settings.leaving.text", names=listing(names), count=len(names)))
    discard = box.addButton(
        tr("settings.leaving.discard"), QtWidgets.QMessageBox.ButtonRole.DestructiveRole
    )
    stay = box.addButton(tr("dialog.cancel"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(stay)

    def answered() -> None:
        if box.clickedButton() is discard:
            tab.discard_unsaved()
            close()

    box.finished.connect(lambda _r: answered())
    tab.leaving_box = box
    box.open()
    return True
