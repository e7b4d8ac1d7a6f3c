"""The small form dialog every area builds on: a titled form with OK and Cancel and an inline
error line next to the fields, which keeps the backend's refusal where the person typed."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import tr

#: The least width of a form dialog, in pixels.
FORM_WIDTH = 440


class FormDialog(QtWidgets.QDialog):
    """A titled form with OK/Cancel and an inline error line; ``submitted`` carries the
    request built by ``build`` (None keeps the dialog open)."""

    submitted = QtCore.Signal(object)

    def __init__(self, title: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(True)
        # room for a typed name, a list of aliases or an address (a form on its fields' hints
        # alone opened 200 px wide, its placeholder cut to "Separated by co…"), within the screen
        room = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.setMinimumWidth(min(FORM_WIDTH, room.width() - 40))
        self.form = QtWidgets.QFormLayout()
        self.error_label = QtWidgets.QLabel()
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
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
        layout.addLayout(self.form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.build: Callable[[], object] = lambda: None

    def add(self, key: str, widget: QtWidgets.QWidget) -> None:
        label = QtWidgets.QLabel(tr(key))
        label.setBuddy(widget)
        widget.setAccessibleName(tr(key))
        self.form.addRow(label, widget)
        if self.form.rowCount() == 1:
            widget.setFocus()  # typing goes to the first field (Add web page opened without it)
        if isinstance(widget, QtWidgets.QLineEdit):
            # Enter in a field submits, also after a refusal (the default button no longer
            # answered once it had been disabled while the backend was asked)
            widget.returnPressed.connect(self._submit)

    def _submit(self) -> None:
        if not self.ok_button.isEnabled():
            return  # already asked (Enter reaches the field and the default button)
        request = self.build()
        if request is None:
            return
        self.ok_button.setEnabled(False)
        self.submitted.emit(request)

    def show_error(self, message: str) -> None:
        self.ok_button.setEnabled(True)
        self.error_label.setText(message)
        self.error_label.show()
