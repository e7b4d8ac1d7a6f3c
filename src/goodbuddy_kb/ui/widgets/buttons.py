"""The push button every area builds the same way: the translated words of one key as its text
and its accessible name, and the slot its click calls."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr


def button(
    key: str, slot: Callable[[], object], *, auto_default: bool = True
) -> QtWidgets.QPushButton:
    """A button reading ``tr(key)`` (also its accessible name) whose click calls ``slot``.

    ``auto_default=False`` keeps Enter in a dialog's fields from pressing it."""
    text = tr(key)
    pushed = QtWidgets.QPushButton(text)
    pushed.setAccessibleName(text)
    if not auto_default:
        pushed.setAutoDefault(False)
    pushed.clicked.connect(slot)
    return pushed
