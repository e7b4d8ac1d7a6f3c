"""The shared on/off switch: a checkable control whose accessible name says that it is a switch
and what state it is in (PRD §11: persistent binary states use a switch, ``role="switch"``).
It reports the Switch accessible role (``widgets/accessible.py``; Qt's check box would say
CheckBox); the text says the state too, so it never rests on colour or the box alone."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.accessible import announce_as


class SwitchWidget(QtWidgets.QCheckBox):
    def __init__(self, label: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._label = label
        announce_as(self, QtGui.QAccessible.Role.Switch)
        self.setAccessibleDescription(tr("switch.role"))
        self.toggled.connect(lambda _on: self._describe())
        self._describe()

    def set_quietly(self, on: bool) -> None:
        """Show a state without emitting ``toggled`` (a confirmed or reverted state)."""
        self.blockSignals(True)
        self.setChecked(on)
        self.blockSignals(False)
        self._describe()

    def _describe(self) -> None:
        state = tr("switch.on") if self.isChecked() else tr("switch.off")
        self.setText(tr("switch.text", label=self._label, state=state))
        self.setAccessibleName(tr("switch.name", label=self._label, state=state))
