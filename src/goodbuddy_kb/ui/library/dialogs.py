"""Small dialogs of the library list: name entry (with an inline field error) and delete."""

from __future__ import annotations

from goodbuddy_kb.contracts.limits import MAX_LIBRARY_NAME_CHARACTERS
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import tr


class LibraryNameDialog(QtWidgets.QDialog):
    """Asks for a library name; ``submitted`` carries it, and errors stay next to the field."""

    submitted = QtCore.Signal(str)

    def __init__(self, title: str, initial: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        self.name_edit = QtWidgets.QLineEdit(initial)
        self.name_edit.setPlaceholderText(tr("dialog.name.placeholder"))
        self.name_edit.setAccessibleName(tr("dialog.name.label"))
        self.name_edit.setMaxLength(MAX_LIBRARY_NAME_CHARACTERS * 2)
        # Room for the example and a name of a few words (the title bar is not always there).
        example = self.name_edit.fontMetrics().horizontalAdvance(tr("dialog.name.placeholder"))
        self.name_edit.setMinimumWidth(max(320, example + 40))
        self.error_label = QtWidgets.QLabel()
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        self.error_label.setAccessibleName(tr("dialog.name.label"))
        label = QtWidgets.QLabel(tr("dialog.name.label"))
        label.setBuddy(self.name_edit)
        buttons = QtWidgets.QDialogButtonBox()
        self.ok_button = buttons.addButton(
            tr("dialog.ok"), QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole
        )
        cancel = buttons.addButton(
            tr("dialog.cancel"), QtWidgets.QDialogButtonBox.ButtonRole.RejectRole
        )
        self.ok_button.setDefault(True)
        self.ok_button.clicked.connect(self._submit)
        cancel.clicked.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.name_edit)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.name_edit.selectAll()
        self.name_edit.setFocus()

    def _submit(self) -> None:
        name = self.name_edit.text().strip()
        if not name:
            self.show_error(tr("dialog.name.empty"))
            return
        if len(name) > MAX_LIBRARY_NAME_CHARACTERS:
            self.show_error(tr("dialog.name.too_long", limit=MAX_LIBRARY_NAME_CHARACTERS))
            return
        self.ok_button.setEnabled(False)
        self.submitted.emit(name)

    def show_error(self, message: str) -> None:
        self.ok_button.setEnabled(True)
        self.error_label.setText(message)
        self.error_label.setVisible(True)
        self.name_edit.setFocus()


def confirm_delete(parent: QtWidgets.QWidget, name: str) -> QtWidgets.QMessageBox:
    """A delete confirmation naming the library; the caller opens it and reads the answer."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setWindowTitle(tr("dialog.delete.title"))
    box.setText(tr("dialog.delete.text", name=name))
    delete = box.addButton(
        tr("dialog.delete.confirm", name=name), QtWidgets.QMessageBox.ButtonRole.DestructiveRole
    )
    cancel = box.addButton(tr("dialog.cancel"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(cancel)
    box.setProperty("deleteButton", delete)
    return box
