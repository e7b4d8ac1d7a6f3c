"""Managing conversations through the real window over a real backend, with a loopback chat
model: titles made from the first question with the date and time, the last activity under
each title, search by a word of an answer (English and Chinese, with the snippet), pin from
the context menu, rename in place with F2, delete with the Delete key after a confirmation and
"Undo" bringing it back; the new controls are all on screen at 800×600 in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.cli.runner import run
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.helpers import KEY, ask_chat, chat_with, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]
LEFT = QtCore.Qt.MouseButton.LeftButton


def titles(view: ChatView) -> list[str]:
    return [row.title for row in view.conversations.rows]


def two_conversations(qtbot: QtBot, win: MainWindow, base: str) -> ChatView:
    """ "travel" (answered about hotels) then "leave" (answered about carrying days over)."""
    chat_with(qtbot, win, base)
    view = win.chat_view
    ask_chat(qtbot, view, "travel")
    qtbot.mouseClick(view.new_button, LEFT)
    ask_chat(qtbot, view, "leave")
    # both listed under their question's title (the list is refreshed after the answer)
    qtbot.waitUntil(
        lambda: sorted(titles(view)) == ["leave", "travel"],
        timeout=5_000,
    )
    return view


def row_rect(view: ChatView, row: int) -> QtCore.QRect:
    return view.conversation_view.visualRect(view.conversations.index(row, 0))


def test_rename_pin_search_delete_and_undo_with_keyboard_and_menu(
    qtbot: QtBot, window: MainWindow
) -> None:
    script = ChatScript(
        turns=[
            [{"text": "Hotels are refunded up to 600 yuan a night."}],
            [{"text": "Unused annual leave carries over until March. 年假可以结转到三月。"}],
        ]
    )
    with chat_server(script) as base:
        view = two_conversations(qtbot, window, base)
    listed = view.conversation_list
    # Titled by the first question (the date is the row's second line, not part of the
    # title: it came back in a rename and an export's file name); newest first
    assert titles(view) == ["leave", "travel"]
    first_line, second_line = view.conversations.data(view.conversations.index(0, 0)).split("\n")
    assert first_line == titles(view)[0] and re.fullmatch(
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", second_line
    )

    # Search finds a conversation by a word that is only in an answer (English, then Chinese).
    for word in ("carries", "结转"):
        listed.search.setText(word)
        qtbot.waitUntil(lambda: len(titles(view)) == 1, timeout=5_000)
        assert titles(view)[0].startswith("leave")
        shown = view.conversations.data(view.conversations.index(0, 0))
        assert word in shown.split("\n", 1)[1], "the snippet shows the match"
    listed.search.setText("nothing-like-this")
    qtbot.waitUntil(lambda: not titles(view) and listed.empty.isVisible(), timeout=5_000)
    listed.search.clear()
    qtbot.waitUntil(lambda: len(titles(view)) == 2, timeout=5_000)

    # Pin "travel" from its context menu: it lists first, saying it is pinned.
    listed.show_menu(row_rect(view, 1).center())
    assert listed.menu is not None
    pin = next(a for a in listed.menu.actions() if a.text() == "Pin")
    pin.trigger()
    qtbot.waitUntil(lambda: titles(view)[0].startswith("travel"), timeout=5_000)
    assert view.conversations.rows[0].pinned
    assert (
        view.conversations.data(view.conversations.index(0, 0))
        .split("\n")[1]
        .startswith("Pinned · ")
    )

    # F2 renames the current conversation in place.
    travel = view.conversations.rows[0]
    listed.view.setCurrentIndex(view.conversations.index(0, 0))
    qtbot.waitUntil(lambda: view.conversation_id == travel.id, timeout=5_000)
    listed.view.setFocus()
    qtbot.keyClick(listed.view, KEY.Key_F2)
    editor = listed.view.findChild(QtWidgets.QLineEdit)
    assert editor is not None and editor.text() == travel.title
    editor.selectAll()
    qtbot.keyClicks(editor, "Hotel costs")
    qtbot.keyClick(editor, KEY.Key_Return)
    qtbot.waitUntil(lambda: titles(view)[0] == "Hotel costs", timeout=5_000)
    assert view.header.title_label.text() == "Hotel costs"

    # Delete asks first, then the conversation goes; "Undo" brings it back, opened.
    listed.view.setFocus()
    qtbot.keyClick(listed.view, KEY.Key_Delete)
    box = view.manage.confirm_box
    assert box is not None and box.isVisible() and "Hotel costs" in box.text()
    qtbot.mouseClick(box.property("deleteButton"), LEFT)
    qtbot.waitUntil(lambda: len(titles(view)) == 1, timeout=5_000)
    assert titles(view)[0].startswith("leave")
    notice = listed.notice
    assert notice.isVisible() and "Hotel costs" in notice.label.text()
    assert view.conversation_id != travel.id and "600 yuan" not in view.transcript.toPlainText()
    qtbot.mouseClick(notice.undo_button, LEFT)
    qtbot.waitUntil(lambda: "Hotel costs" in titles(view), timeout=5_000)
    qtbot.waitUntil(lambda: "600 yuan" in view.transcript.toPlainText(), timeout=5_000)
    assert view.conversation_id == travel.id and not notice.isVisible()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_new_controls_are_on_screen_at_800x600(
    qtbot: QtBot, data_dir: Path, language: str
) -> None:
    win = open_window(qtbot, data_dir, language)
    try:
        script = ChatScript(turns=[[{"text": "Fine."}]])
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            ask_chat(qtbot, view, "How are you doing today, assistant?")
        win.resize(800, 600)
        view.conversation_list.notice.say("x" * 10, undoable=True)
        qtbot.wait(200)
        for widget in (
            view.conversation_list.search,
            view.export_button,
            view.conversation_list.notice.undo_button,
            view.send_button,
            view.scope_button,
        ):
            assert widget.isVisible(), widget
            hint = widget.minimumSizeHint()
            assert widget.width() >= hint.width() and widget.height() >= hint.height(), widget
            corner = widget.mapTo(win, QtCore.QPoint(widget.width(), widget.height()))
            assert win.rect().contains(corner - QtCore.QPoint(1, 1)), widget
        links = view.transcript.toPlainText()
        # no library searched, no sources: the answer offers "Copy", not "Copy with sources"
        if language == "zh":
            assert "复制 · 重新生成" in links and "含来源" not in links
            assert view.conversation_list.search.placeholderText() == "搜索对话（标题和内容）"
        else:
            assert "Copy · Regenerate" in links and "with sources" not in links
        (answer,) = [m for m in view.messages if m.role == "assistant"]
        with qtbot.waitSignal(view.manage.copied, timeout=5_000):
            view.transcript.anchorClicked.emit(QtCore.QUrl(f"copy:{answer.id}"))
        said = view.conversation_list.notice.label.text()
        assert said == ("已复制回答" if language == "zh" else "Answer copied"), said
        shoot(win, f"chat-800x600-{language}")
    finally:
        win.link.shutdown()
        set_language("en")


def test_a_conversation_asked_from_the_command_line_appears(
    qtbot: QtBot, window: MainWindow, data_dir: Path
) -> None:
    """Conversations made with `goodbuddy-kb chat ask` while the window was open appeared only
    after a message was sent in the window (a helper's try): they appear when the chat is shown,
    and while it is shown."""
    view = window.chat_view
    window.top_tabs.setCurrentWidget(view)
    qtbot.wait(200)
    window.top_tabs.setCurrentIndex(0)
    asked = run(data_dir, "chat", "ask", "asked from the command line")
    assert asked.returncode in (0, 1), asked.stderr
    window.top_tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: "asked from the command line" in titles(view), timeout=5_000)
    run(data_dir, "chat", "ask", "asked while the chat is shown")
    qtbot.waitUntil(lambda: "asked while the chat is shown" in titles(view), timeout=5_000)


def ink_rows(image: QtGui.QImage, rect: QtCore.QRect) -> list[int]:
    """The y of each pixel line inside ``rect`` that holds dark pixels (text drawn on the light
    theme's unselected row)."""
    return [
        y
        for y in range(rect.top(), rect.bottom() + 1)
        if sum(
            QtGui.QColor(image.pixel(x, y)).lightness() < 128
            for x in range(max(0, rect.left() + 2), min(image.width(), rect.right() - 2))
        )
        >= 2
    ]


def test_a_long_title_keeps_its_second_line(
    qtbot: QtBot, qapp: QtWidgets.QApplication, window: MainWindow
) -> None:
    """A title too long for the list was elided with the row's second line (the last activity)
    dropped, so conversations that began with the same question could not be told apart (a
    helper's try, in Chinese). Each line is elided on its own: both are drawn."""
    script = ChatScript(turns=[[{"text": "At most 600 yuan."}], [{"text": "At most 600 yuan."}]])
    question = "出差住酒店一线城市每晚最多能报销多少钱，超出的部分能不能自己补上差价"
    set_language("zh-CN")  # Chinese text: its fallback font's lines are taller than the list's
    with chat_server(script) as base:
        chat_with(qtbot, window, base)
        view = window.chat_view
        ask_chat(qtbot, view, question)
        qtbot.mouseClick(view.new_button, LEFT)
        ask_chat(qtbot, view, question)
        qtbot.waitUntil(lambda: titles(view) == [question, question], timeout=5_000)
    apply_theme(qapp, dark=False)  # the app's style sheet, as a person sees the list
    list_view = view.conversation_view
    list_view.clearSelection()
    list_view.setCurrentIndex(QtCore.QModelIndex())
    rect = row_rect(view, 1)
    assert rect.height() >= 2 * list_view.fontMetrics().lineSpacing()
    image = list_view.viewport().grab().toImage()
    inked = ink_rows(image, rect)
    bands = [y for y in inked if y - 1 not in inked]  # where each drawn line of text starts
    assert len(bands) >= 2, f"one line drawn in a {rect.height()} px row: the date was dropped"
