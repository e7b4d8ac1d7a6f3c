"""The confirmation every area asks before a destructive or doubtful action: its default (and
Escape) button is Cancel, and the action button names what happens."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr


def confirm_action(
    parent: QtWidgets.QWidget, title: str, text: str, action: str
) -> QtWidgets.QMessageBox:
    """A confirmation whose default button is Cancel; the action button is the box's
    ``confirmButton`` property. The caller opens it and reads ``clickedButton()``."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(text)
    confirm = box.addButton(action, QtWidgets.QMessageBox.ButtonRole.AcceptRole)
    cancel = box.addButton(tr("dialog.cancel"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.setProperty("confirmButton", confirm)
    return box
