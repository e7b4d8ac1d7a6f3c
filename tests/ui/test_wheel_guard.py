"""The wheel scrolls the page over a combo box or spin box a person has not clicked into, and
changes the value only once they have (scrolling down the Settings tab switched the chunking
mode it passed under the pointer)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.widgets.wheel_guard import install_wheel_guard


def wheel_down(widget: QtWidgets.QWidget) -> None:
    centre = QtCore.QPointF(widget.rect().center())
    event = QtGui.QWheelEvent(
        centre,
        QtCore.QPointF(widget.mapToGlobal(centre.toPoint())),
        QtCore.QPoint(0, 0),
        QtCore.QPoint(0, -120),
        QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.KeyboardModifier.NoModifier,
        QtCore.Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QtWidgets.QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_page_until_a_setting_is_clicked(qtbot: QtBot) -> None:
    page = QtWidgets.QWidget()
    qtbot.addWidget(page)
    install_wheel_guard(page)
    body = QtWidgets.QWidget()
    column = QtWidgets.QVBoxLayout(body)
    combo = QtWidgets.QComboBox()
    combo.addItems(["structure", "parent-child", "fixed"])
    spin = QtWidgets.QSpinBox()
    spin.setRange(0, 100)
    spin.setValue(50)
    column.addWidget(combo)
    column.addWidget(spin)
    column.addSpacing(3000)
    scroll = QtWidgets.QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setWidget(body)
    QtWidgets.QVBoxLayout(page).addWidget(scroll)
    focus_sink = QtWidgets.QLineEdit()
    page.layout().addWidget(focus_sink)
    page.resize(400, 300)
    page.show()
    qtbot.waitExposed(page)
    focus_sink.setFocus()

    bar = scroll.verticalScrollBar()
    assert bar.value() == 0
    wheel_down(combo)
    wheel_down(spin)
    assert combo.currentIndex() == 0 and spin.value() == 50, "unclicked settings keep their value"
    assert bar.value() > 0, "the page scrolled instead"
    assert not combo.hasFocus(), "the wheel gives no focus"

    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    wheel_down(combo)
    assert combo.currentIndex() == 1, "a combo box a person chose still follows the wheel"
