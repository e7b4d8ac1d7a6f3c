"""The application's icon: the PNG sizes rendered from ``ui/resources/goodbuddy-kb.svg``, for the
window, the task bar and About."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.qt.widgets import QtGui

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def app_icon() -> QtGui.QIcon:
    icon = QtGui.QIcon()
    for size in SIZES:
        icon.addFile(str(RESOURCES / f"goodbuddy-kb-{size}.png"))
    return icon
