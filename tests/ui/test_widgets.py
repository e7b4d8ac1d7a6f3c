"""The shared helpers of ``ui/widgets``: the button helper, the "latest request wins" ticket
and the pager."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.i18n import set_language, tr
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.pager import PagerWidget
from goodbuddy_kb.ui.widgets.ticket import Ticket

pytestmark = pytest.mark.gui


def test_only_the_latest_answer_is_taken() -> None:
    ticket = Ticket()
    answers: list[str] = []
    first = ticket.latest(answers.append)
    second = ticket.latest(answers.append)
    first("old page")  # arrives late: a newer request was made
    second("new page")
    assert answers == ["new page"]
    third = ticket.latest(answers.append)
    ticket.drop()  # the screen moved on: nothing on its way is wanted
    third("stale")
    assert answers == ["new page"]
    number = ticket.take()
    assert ticket.is_latest(number) and not ticket.is_latest(number - 1)


def test_button_reads_its_key_and_calls_its_slot(qtbot: QtBot) -> None:
    set_language("en")
    clicks: list[bool] = []
    pushed = button("docs.next", lambda: clicks.append(True), auto_default=False)
    qtbot.addWidget(pushed)
    assert pushed.text() == pushed.accessibleName() == tr("docs.next")
    assert not pushed.autoDefault()
    qtbot.mouseClick(pushed, QtCore.Qt.MouseButton.LeftButton)
    assert clicks == [True]


def test_pager_steps_and_shows_its_page(qtbot: QtBot) -> None:
    set_language("en")
    pager = PagerWidget(arrows=True)
    qtbot.addWidget(pager)
    assert pager.next_button.text() == "›" and pager.next_button.toolTip() == tr("docs.next")
    pager.show_page("1–100 of 105", has_previous=False, has_next=True)
    assert pager.page_label.text() == "1–100 of 105"
    assert not pager.prev_button.isEnabled() and pager.next_button.isEnabled()
    with qtbot.waitSignal(pager.step) as step:
        qtbot.mouseClick(pager.next_button, QtCore.Qt.MouseButton.LeftButton)
    assert step.args == [1]
