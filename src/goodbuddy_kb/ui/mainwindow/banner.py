"""The banner over the main window when the backend is gone: the reason and a restart button."""

from __future__ import annotations

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_text


class BackendBanner(QtWidgets.QFrame):
    """Shown when the backend is gone: the reason, and a restart button."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backendBanner")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.restart_button = QtWidgets.QPushButton(tr("backend.restart"))
        self.restart_button.setAccessibleName(tr("backend.restart"))
        layout = QtWidgets.QHBoxLayout(self)
        icon = QtWidgets.QLabel("⚠")
        icon.setAccessibleName("warning")
        layout.addWidget(icon)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.restart_button)
        self.hide()

    def say_down(self, reason: str) -> None:
        """Why the backend is gone (it read "The backend stopped: the backend stopped." when
        the reason was just that; a helper's try)."""
        coded = classify(reason)
        if coded is not None and coded.code == "backend.stopped":
            self.label.setText(tr("backend.down.plain"))
        else:
            self.label.setText(tr("backend.down", reason=say_text(reason)))
