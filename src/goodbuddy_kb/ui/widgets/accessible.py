"""Accessible roles Qt's own interfaces do not give: a checkable button announced as a switch
(PRD §11.3, a persistent on/off state) or as one radio button of an exclusive group (PRD §11.2,
the chat's retrieval mode). ``announce_as`` marks a button before anything asks for its
interface; one factory, installed once, answers for every marked button with its role, its
checked state and a toggle action, so screen readers read it as what it is."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets

QAccessible = QtGui.QAccessible
#: The dynamic property holding a marked button's role (its ``QAccessible.Role`` value).
ROLE_PROPERTY = "goodbuddyAccessibleRole"
#: Whether the factory is installed (once per process; Qt keeps every factory installed).
_installed: list[bool] = []


class RoleAccessible(QtWidgets.QAccessibleWidget):
    """A checkable button's interface with another role than Qt's (CheckBox, Button)."""

    def __init__(self, button: QtWidgets.QAbstractButton, role: QtGui.QAccessible.Role) -> None:
        super().__init__(button, role)
        self.button = button

    def state(self) -> QtGui.QAccessible.State:
        state = super().state()
        state.checkable = True
        state.checked = self.button.isChecked()
        return state

    def text(self, kind: QtGui.QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.button.accessibleName() or self.button.text()
        if kind == QAccessible.Text.Description:
            return self.button.accessibleDescription() or self.button.toolTip()
        return str(super().text(kind))

    def actionNames(self) -> list[str]:
        return [QtGui.QAccessibleActionInterface.toggleAction(), *super().actionNames()]

    def doAction(self, name: str) -> None:
        if name == QtGui.QAccessibleActionInterface.toggleAction():
            self.button.click()
        else:
            super().doAction(name)


def _factory(_key: str, obj: QtCore.QObject) -> QtGui.QAccessibleInterface | None:
    if not isinstance(obj, QtWidgets.QAbstractButton):
        return None
    role = obj.property(ROLE_PROPERTY)
    return RoleAccessible(obj, QAccessible.Role(role)) if isinstance(role, int) else None


def announce_as(button: QtWidgets.QAbstractButton, role: QtGui.QAccessible.Role) -> None:
    """``button`` reports ``role`` (with its checked state) to assistive technology."""
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed.append(True)
    button.setProperty(ROLE_PROPERTY, role.value)
