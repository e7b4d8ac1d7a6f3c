"""The chat view end to end against a real backend and a scripted loopback chat model: always
mode, stop, scope following libraries, Enter and Shift+Enter, a transcript that follows a
streaming answer, and the model-decides mode without a chat model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, LIBRARY_DELETE
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chat.citations import CITATION_COLUMNS
from goodbuddy_kb.ui.chat.conversations import CONVERSATION_COLUMNS
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.table_model import RowsModel
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.servers.chatserver import ChatScript, chat_server, token_of, tool
from tests.ui.helpers import (
    KEY,
    MOD,
    MakeLibrary,
    ask_chat,
    chat_with,
    handbook,
    open_window,
    searching_first,
    shoot,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def answered_once(qtbot: QtBot, win: MainWindow, base: str) -> ChatView:
    """The chat view pointed at the model at ``base``, with "one" asked and answered."""
    chat_with(qtbot, win, base)
    view = win.chat_view
    view.input.setPlainText("one")
    with qtbot.waitSignal(view.reply_finished, timeout=10_000):
        view.send()
    return view


@pytest.mark.parametrize(
    ("language", "dark"), [("en", False), ("zh", True), ("en", True), ("zh", False)]
)
def test_always_mode_shows_searched_first_and_sources(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    qapp: QtWidgets.QApplication,
    language: str,
    dark: bool,
    qtmodeltester: Any,
    make_library: MakeLibrary,
) -> None:
    win = open_window(qtbot, data_dir, language)
    try:
        make_library(handbook(), win=win)
        script = ChatScript(turns=[[{"text": "一线城市每晚不超过六百元 [1]。"}]])
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            assert view.scope_button.text() in (  # the scope names its library
                "Handbook · Always retrieve first",
                "Handbook · 每次先检索",
            )
            view.input.setPlainText("出差住宿一线城市每晚多少钱？")
            with qtbot.waitSignal(view.reply_finished, timeout=20_000):
                qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
        text = view.transcript.toPlainText()
        assert "六百元" in text and ("Searched first" in text or "已预检索" in text)
        assert view.citations.rowCount() >= 1
        qtmodeltester.check(view.citations, force_py=False)
        qtmodeltester.check(view.conversations, force_py=False)
        view.citation_view.selectRow(0)
        view.expand_citation()
        qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
        apply_theme(qapp, dark)
        win.resize(1100, 760)
        shoot(win, f"chat-{'dark' if dark else 'light'}-{language}")
        apply_theme(qapp, False)
    finally:
        win.link.shutdown()
        from goodbuddy_kb.ui.i18n import set_language

        set_language("en")


def test_stop_keeps_the_partial_reply(qtbot: QtBot, data_dir: Path, tmp_path: Path) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        script = ChatScript(turns=[[{"text": "Partial answer, "}, {"stall": 10}]])
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            # Send only with something to send (it stood enabled over an empty box)
            view.input.setPlainText("  \n")
            assert not view.send_button.isEnabled()
            view.input.setPlainText("question")
            assert view.send_button.isEnabled()
            qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
            qtbot.waitUntil(
                lambda: "Partial answer" in view.transcript.toPlainText(), timeout=10_000
            )
            assert view.stop_button.isEnabled()
            win.activateWindow()
            qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is win)
            view.stop_button.setFocus()
            with qtbot.waitSignal(view.reply_finished, timeout=5_000):
                qtbot.keyClick(view.stop_button, QtCore.Qt.Key.Key_Space)
        assert (
            "Partial answer" in view.transcript.toPlainText()
            and "(stopped)" in view.transcript.toPlainText()
        )
        # Stop greyed: the focus is in the box for the next message (it went to the "Chat" tab)
        qtbot.waitUntil(lambda: QtWidgets.QApplication.focusWidget() is view.input)
    finally:
        win.link.shutdown()


def test_the_sources_of_the_last_answer_say_so_while_a_new_one_streams(
    qtbot: QtBot, data_dir: Path
) -> None:
    """While an answer streamed, the pane showed the answer before it's sources as "Sources
    consulted", as if they were the new one's (a helper's try): they are "answer 1" until the
    new answer has come."""
    win = open_window(qtbot, data_dir, "en")
    try:
        script = ChatScript(turns=[[{"text": "First."}], [{"text": "Second, "}, {"stall": 2}]])
        with chat_server(script) as base:
            view = answered_once(qtbot, win, base)
            assert view.sources.label.text() == "<b>Sources consulted</b>"
            view.input.setPlainText("two")
            view.send()
            qtbot.waitUntil(lambda: "Second" in view.transcript.toPlainText(), timeout=10_000)
            assert view.sources.label.text() == "<b>Sources consulted (answer 1)</b>"
            qtbot.waitSignal(view.reply_finished, timeout=10_000).wait()
            assert view.sources.label.text() == "<b>Sources consulted</b>"
    finally:
        win.link.shutdown()


def test_scope_selection_follows_created_and_deleted_libraries(
    qtbot: QtBot, data_dir: Path
) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        view = win.chat_view
        first = wait_call(qtbot, win, LIBRARY_CREATE, lib.LibraryCreateRequest(name="A")).library
        qtbot.waitUntil(lambda: view.selected == {first.id}, timeout=5_000)
        # a scope holding every library says what a new library will do (ticking the only
        # library there was read as a choice, and its widening as a side effect)
        joins = "libraries created later join this chat's scope too"
        qtbot.waitUntil(lambda: joins in view.popover.note.text(), timeout=5_000)
        view.popover.list.item(0).setCheckState(QtCore.Qt.CheckState.Unchecked)
        assert view.selected == set()
        assert joins not in view.popover.note.text()
        second = wait_call(qtbot, win, LIBRARY_CREATE, lib.LibraryCreateRequest(name="B")).library
        qtbot.waitUntil(lambda: view.popover.list.count() == 2, timeout=5_000)
        # the person emptied the scope: a new library does not fill it behind their back
        assert view.selected == set(), "an emptied scope stays empty"
        view.popover.list.item(1).setCheckState(QtCore.Qt.CheckState.Checked)
        assert view.selected == {second.id}, "a cleared library is not re-enabled"
        wait_call(qtbot, win, LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=second.id))
        qtbot.waitUntil(lambda: view.selected == set(), timeout=5_000)
        assert "Nothing will be searched".lower() in view.popover.note.text().lower()
    finally:
        win.link.shutdown()


@pytest.mark.parametrize("columns", [CONVERSATION_COLUMNS, CITATION_COLUMNS])
def test_chat_models_pass_the_model_tester(qtmodeltester: Any, columns: Any) -> None:
    qtmodeltester.check(RowsModel(columns), force_py=False)


def test_enter_sends_shift_enter_breaks_the_line_and_the_first_question_titles_it(
    qtbot: QtBot, window: MainWindow
) -> None:
    script = ChatScript(turns=[[{"text": "Fine, thanks."}]])
    with chat_server(script) as base:
        chat_with(qtbot, window, base)
        view = window.chat_view
        qtbot.mouseClick(view.new_button, QtCore.Qt.MouseButton.LeftButton)
        view.input.setFocus()
        qtbot.keyClicks(view.input, "how are")
        qtbot.keyClick(view.input, KEY.Key_Return, MOD.ShiftModifier)
        qtbot.keyClicks(view.input, "you")
        assert view.input.toPlainText() == "how are\nyou", "Shift+Enter starts a new line"
        assert view.request_id is None and not script.requests, "and sends nothing"
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            qtbot.keyClick(view.input, KEY.Key_Return)
        assert view.input.toPlainText() == ""
        assert "Fine, thanks." in view.transcript.toPlainText()
        qtbot.waitUntil(
            lambda: [x.title for x in view.conversations.rows] == ["how are you"],
            timeout=5_000,
        )  # titled from the question (the list shows its date beside it)


def piece(text: str) -> dict[str, object]:
    """A piece of the reply ``stream-under-test``, as the backend notifies it."""
    return c.ChatDelta(request_id="stream-under-test", message_id="0" * 32, delta=text).to_wire()


def test_the_transcript_follows_a_streaming_answer_unless_scrolled_up(
    qtbot: QtBot, window: MainWindow
) -> None:
    view = window.chat_view
    window.top_tabs.setCurrentWidget(view)
    qtbot.waitUntil(view.transcript.isVisible)
    bar = view.transcript.verticalScrollBar()
    view.request_id = "stream-under-test"
    for i in range(80):
        view._on_delta(piece(f"line {i}\n"))
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=2_000)
    assert bar.value() == bar.maximum(), "it follows the answer"
    bar.setSliderPosition(10)  # the reader scrolls up
    for i in range(20):
        view._on_delta(piece(f"more {i}\n"))
        qtbot.wait(5)
    assert bar.value() == 10, "it stays where the reader is"
    bar.setSliderPosition(bar.maximum())  # back at the bottom: following again
    for i in range(10):
        view._on_delta(piece(f"last {i}\n"))
        qtbot.wait(5)
    assert bar.value() == bar.maximum() and "last 9" in view.transcript.toPlainText()
    # a value set by Qt itself (laying the text out), not by the reader, stops nothing (a
    # conversation reopened after a relaunch once stayed at its top, 4 px down)
    bar.setValue(4)
    for i in range(10):
        view._on_delta(piece(f"after {i}\n"))
        qtbot.wait(5)
    assert bar.value() == bar.maximum() and "after 9" in view.transcript.toPlainText()
    view.request_id = None


def test_model_decides_without_a_chat_model_answers_with_the_evidence_in_chinese(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    make_library: MakeLibrary,
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        make_library(handbook(), win=win)
        view = win.chat_view
        win.top_tabs.setCurrentWidget(view)
        qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
        # a first conversation searches first (a model could otherwise answer a new user
        # with no source)
        assert view.popover.mode == "always"
        # before a question: the message box says what one will give, and where a model is set
        qtbot.waitUntil(lambda: "尚未配置对话模型" in view.input.placeholderText(), timeout=5_000)
        assert "设置 → 模型连接" in view.input.placeholderText()
        # the scope button says how a question is answered (it said "Model decides" with no
        # model to decide), and the popover says why; the choice is kept for a model
        qtbot.waitUntil(lambda: view.scope_button.text() == "Handbook · 每次先检索", timeout=5_000)
        assert "未配置对话模型：每个问题都先检索" in view.popover.note.text()
        assert view.popover.scope().mode == "always"
        # "Model decides" is greyed: not in effect, not to be chosen
        assert view.popover.always.isChecked() and not view.popover.auto.isEnabled()
        ask_chat(qtbot, view, "年假怎么结转？")
        text = view.transcript.toPlainText()
        # no model to decide: it searched first, and the answer is what the libraries say
        assert "未配置对话模型；以下是知识库中的相关内容" in text and "[1]" in text
        assert "没有进行检索" not in text and "No chat model" not in text
        assert view.citations.rowCount() >= 1
        # Regenerate gives the same passages: the input says so (nothing on screen changed)
        answer = [m for m in view.messages if m.role == "assistant"][-1]
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            view.transcript.anchorClicked.emit(QtCore.QUrl(f"regenerate:{answer.id}"))
        assert [m for m in view.messages if m.role == "assistant"][-1].id != answer.id
        assert not view.composer.remark.isHidden()
        assert "新回答与原来的相同：没有对话模型时" in view.composer.remark.text()
        ask_chat(qtbot, view, "病假怎么请？")  # gone at the next question
        assert view.composer.remark.isHidden()
        # a model set up elsewhere: the box asks for the message again
        chat_with(qtbot, win, "http://127.0.0.1:9/v1")
        qtbot.waitUntil(lambda: view.input.placeholderText() == "输入问题", timeout=5_000)
        qtbot.waitUntil(view.popover.auto.isEnabled, timeout=5_000)
        assert view.scope_button.text() == "Handbook · 每次先检索"
        assert view.popover.always.isChecked(), "the choice stays with a model"
        assert "未配置对话模型" not in view.popover.note.text()
        # and "Model decides" may be chosen now
        view.popover.auto.setChecked(True)
        qtbot.waitUntil(
            lambda: view.scope_button.text() == "Handbook · 模型按需检索", timeout=5_000
        )
    finally:
        win.link.shutdown()
        set_language("en")


def test_an_answer_the_model_gave_without_searching_says_so_in_the_window(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    """In "Model decides" mode a model that answered "[1]" without searching showed no badge:
    the answer carried no retrieval state, so the badge written for it never appeared (a
    helper's try under Xvfb)."""
    make_library(handbook())
    script = ChatScript(turns=[[{"text": "It is 600 a night [1]."}]])
    with chat_server(script) as base:
        chat_with(qtbot, window, base)
        view = window.chat_view
        qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
        qtbot.waitUntil(view.popover.auto.isEnabled, timeout=5_000)
        view.popover.auto.setChecked(True)
        ask_chat(qtbot, view, "How much for a hotel night?")
    text = view.transcript.toPlainText()
    assert "The model did not search your libraries: not checked against your documents" in text
    assert view.citations.rowCount() == 0


def test_the_scope_popover_opens_above_its_button_at_its_own_height(
    qtbot: QtBot, data_dir: Path
) -> None:
    """The popover was placed by its size hint before it showed: it opened in a different place
    each time and once covered its own button (a helper's try). Its bottom is on the button's
    top, every time."""
    win = open_window(qtbot, data_dir, "en")
    try:
        for name in ("A", "B", "C", "D", "E"):
            wait_call(qtbot, win, LIBRARY_CREATE, lib.LibraryCreateRequest(name=name))
        win.resize(1200, 800)
        win.top_tabs.setCurrentWidget(win.chat_view)
        view = win.chat_view
        qtbot.waitUntil(lambda: view.popover.list.count() == 5, timeout=5_000)
        button = view.scope_button
        places = []
        for _ in range(2):
            view.show_scope()
            qtbot.waitUntil(view.popover.isVisible, timeout=2_000)
            qtbot.wait(100)
            frame = view.popover.frameGeometry()
            top = button.mapToGlobal(QtCore.QPoint(0, 0)).y()
            assert frame.bottom() < top, (frame, top)
            places.append(frame.topLeft())
            view.popover.hide()
        assert places[0] == places[1], "the same place each time"
    finally:
        win.link.shutdown()


def test_an_answer_streaming_while_another_conversation_is_opened_stays_in_its_own(
    qtbot: QtBot, data_dir: Path
) -> None:
    """A helper's try: opened during a streaming answer, another conversation showed that
    answer at its end, with a Regenerate link that then acted on the other conversation."""
    win = open_window(qtbot, data_dir, "en")
    try:
        script = ChatScript(turns=[[{"text": "First."}], [{"text": "Slow, "}, {"stall": 2}]])
        with chat_server(script) as base:
            view = answered_once(qtbot, win, base)
            first = view.conversation_id
            qtbot.waitUntil(lambda: view.conversations.rowCount() == 1, timeout=5_000)
            row = view.conversations.rows[0]
            view.new_conversation()
            view.input.setPlainText("two")
            view.send()
            qtbot.waitUntil(lambda: "Slow" in view.transcript.toPlainText(), timeout=10_000)
            second = view.conversation_id
            assert second not in (None, first)
            view.conversation_list.opened.emit(row)  # the person opens the first meanwhile
            qtbot.waitUntil(lambda: "First." in view.transcript.toPlainText(), timeout=5_000)
            assert "Slow" not in view.transcript.toPlainText()
            qtbot.waitSignal(view.reply_finished, timeout=10_000).wait()
            assert view.conversation_id == first
            assert "two" not in view.transcript.toPlainText()
            assert {m.conversation_id for m in view.messages} == {first}
            assert [m.content for m in view.messages] == ["one", "First."]
    finally:
        win.link.shutdown()


def test_each_conversation_keeps_its_own_unsent_words(qtbot: QtBot, data_dir: Path) -> None:
    """A helper's try: words typed in one conversation stayed in the box after opening
    another, to be sent there."""
    win = open_window(qtbot, data_dir, "en")
    try:
        script = ChatScript(turns=[[{"text": "First."}], [{"text": "Second."}]])
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            for question in ("one", "two"):
                view.new_conversation()
                view.input.setPlainText(question)
                with qtbot.waitSignal(view.reply_finished, timeout=10_000):
                    view.send()

            def titled() -> dict[str, Any]:
                return {r.title.split(" ")[0]: r for r in view.conversations.rows}

            # each is listed under its question once the answer's listing comes back
            qtbot.waitUntil(lambda: {"one", "two"} <= set(titled()), timeout=5_000)
            rows = titled()
            view.input.setPlainText("half a question for two")
            view.conversation_list.opened.emit(rows["one"])
            qtbot.waitUntil(lambda: "First." in view.transcript.toPlainText(), timeout=5_000)
            assert view.input.toPlainText() == ""
            view.input.setPlainText("for one")
            view.conversation_list.opened.emit(rows["two"])
            qtbot.waitUntil(lambda: "Second." in view.transcript.toPlainText(), timeout=5_000)
            assert view.input.toPlainText() == "half a question for two"
            view.conversation_list.opened.emit(rows["one"])
            qtbot.waitUntil(lambda: "First." in view.transcript.toPlainText(), timeout=5_000)
            assert view.input.toPlainText() == "for one"
    finally:
        win.link.shutdown()


def test_a_reply_arriving_after_the_conversation_was_reloaded_is_shown_once(
    qtbot: QtBot, window: MainWindow
) -> None:
    """The conversation list, refreshed at the first words of a new conversation's answer, can
    reopen it and reload its messages after the answer is stored but before the reply itself
    arrives; the answer was then listed twice (CI saw two assistant messages)."""
    script = ChatScript(turns=[[{"text": "Only once."}]])
    with chat_server(script) as base:
        view = answered_once(qtbot, window, base)
    user, answer = view.messages
    # the reload (as kept: both messages, with their times) lands first, then the reply
    view.messages = []
    view._load(view.conversation_id or "")
    qtbot.waitUntil(lambda: len(view.messages) == 2, timeout=5_000)
    view.request_id = "in flight"
    with qtbot.waitSignal(view.reply_finished, timeout=5_000):
        view._sent(c.SendResponse(user_message=user, assistant_message=answer), None)
    assert [m.role for m in view.messages] == ["user", "assistant"]
    assert view.transcript.toPlainText().count("Only once.") == 1


def test_the_reply_says_where_it_is_before_its_first_words(
    qtbot: QtBot, data_dir: Path, make_library: MakeLibrary
) -> None:
    """4–8 s showed only "Assistant" and a cursor while the app searched and the model thought
    (a helper's try): the reply says it found passages and waits for the model, in both modes,
    and the words replace that line."""
    win = open_window(qtbot, data_dir, "en")
    try:
        make_library(handbook(), win=win)
        script = ChatScript(
            turns=[
                [{"stall": 2}, {"text": "六百元 [1]。"}],
                [{"stall": 1}, tool(lambda req: {"query": "住宿标准", "token": token_of(req)})],
                [{"stall": 2}, {"text": "See [1]."}],
            ]
        )
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            view.input.setPlainText("出差住宿一线城市每晚多少钱？")
            with qtbot.waitSignal(view.reply_finished, timeout=20_000):
                qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
                qtbot.waitUntil(
                    lambda: (
                        re.search(
                            r"Found \d+ passages?; waiting for the chat model…",
                            view.transcript.toPlainText(),
                        )
                        is not None
                    ),
                    timeout=5_000,
                )
                # the passages found are listed while the model thinks (the list stayed empty
                # until the whole answer came)
                waiting = list(view.citations.rows)
                assert waiting and view.sources.label.text() == "<b>Sources consulted</b>"
                shoot(win, "chat-waiting-en")
            assert "waiting for the chat model" not in view.transcript.toPlainText()
            assert view.citations.rows == waiting  # the answer's own, the same passages
            view.popover.auto.setChecked(True)  # the model decides: it searches, then thinks
            view.input.setPlainText("And the hotel standard?")
            seen: list[str] = []
            view.transcript.textChanged.connect(lambda: seen.append(view.transcript.toPlainText()))
            with qtbot.waitSignal(view.reply_finished, timeout=20_000):
                qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
                # the model's own search's passages, listed as it thinks again
                qtbot.waitUntil(lambda: "(answer 1)" not in view.sources.label.text())
                assert view.request_id is not None and view.citations.rows
            said = "\n".join(seen)
            assert "Waiting for the chat model…" in said and "Searching your libraries…" in said
            assert "waiting for the chat model" not in view.transcript.toPlainText()
    finally:
        win.link.shutdown()
