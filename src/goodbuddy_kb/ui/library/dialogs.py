"""Small dialogs of the library list: name entry (a form dialog with an inline field error)
and the delete confirmation."""

from __future__ import annotations

from goodbuddy_kb.contracts.limits import MAX_LIBRARY_NAME_CHARACTERS
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog


class LibraryNameDialog(FormDialog):
    """Asks for a library name; ``submitted`` carries it, and errors stay next to the field."""

    def __init__(self, title: str, initial: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(title, parent)
        self.name_edit = QtWidgets.QLineEdit(initial)
        self.name_edit.setPlaceholderText(tr("dialog.name.placeholder"))
        self.name_edit.setAccessibleName(tr("dialog.name.label"))
        self.name_edit.setMaxLength(MAX_LIBRARY_NAME_CHARACTERS * 2)
        # Room for the example and a name of a few words (the title bar is not always there).
        example = self.name_edit.fontMetrics().horizontalAdvance(tr("dialog.name.placeholder"))
        self.name_edit.setMinimumWidth(max(320, example + 40))
        self.error_label.setAccessibleName(tr("dialog.name.label"))
        label = QtWidgets.QLabel(tr("dialog.name.label"))
        label.setBuddy(self.name_edit)
        # The label above its field (rows spanning the form), so a long name has the width.
        self.form.addRow(label)
        self.form.addRow(self.name_edit)
        self.build = self._name
        self.name_edit.selectAll()
        self.name_edit.setFocus()

    def _name(self) -> str | None:
        """The name typed, or None (with the reason next to the field)."""
        name = self.name_edit.text().strip()
        if not name:
            self.show_error(tr("dialog.name.empty"))
            return None
        if len(name) > MAX_LIBRARY_NAME_CHARACTERS:
            self.show_error(tr("dialog.name.too_long", limit=MAX_LIBRARY_NAME_CHARACTERS))
            return None
        return name

    def show_error(self, message: str) -> None:
        super().show_error(message)
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
