"""What survives, through the real window over a real backend: a conversation's knowledge scope
across a language switch, a theme switch and a relaunch (kept with the conversation in the
backend); where the person was — library, area, tab, window geometry and the question typed
and not sent — across a relaunch;
an empty scope in "always" mode says in the transcript that nothing was searched and why (and
the chat model gets no evidence); the scope button names the libraries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import window as w
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, WINDOW_STATE_GET
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.chat.scope import LIBRARY_ID
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import language, set_language
from goodbuddy_kb.ui.mainwindow.menus import choose_theme
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.helpers import ask_chat, chat_with, open_window, shoot, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]
UNCHECKED = QtCore.Qt.CheckState.Unchecked


def libraries(qtbot: QtBot, win: MainWindow, *names: str) -> list[str]:
    return [
        wait_call(qtbot, win, LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
        for name in names
    ]


def untick(view: ChatView, library_id: str) -> None:
    """Clear one library in the scope popover, as a click on its box does."""
    items = view.popover.list
    row = next(i for i in range(items.count()) if items.item(i).data(LIBRARY_ID) == library_id)
    items.item(row).setCheckState(UNCHECKED)


def in_chat(qtbot: QtBot, win: MainWindow, *names: str) -> tuple[list[str], ChatView]:
    """Libraries of these names, and the chat showing them listed in its scope."""
    ids = libraries(qtbot, win, *names)
    view = win.chat_view
    win.top_tabs.setCurrentWidget(view)
    listed(qtbot, view, len(names))
    return ids, view


def listed(qtbot: QtBot, view: ChatView, count: int) -> None:
    qtbot.waitUntil(lambda: view.popover.list.count() == count, timeout=10_000)


def test_a_conversations_scope_survives_language_theme_and_relaunch_and_so_does_the_window(
    qtbot: QtBot, data_dir: Path
) -> None:
    script = ChatScript(turns=[[{"text": "Hello."}]])
    win = open_window(qtbot, data_dir, "en")
    try:
        alpha, beta, gamma = libraries(qtbot, win, "Alpha", "Beta", "Gamma")
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            listed(qtbot, view, 3)
            qtbot.waitUntil(  # once the window has heard of the model
                lambda: view.scope_button.text() == "Alpha +2 · Always retrieve first",
                timeout=5_000,
            )
            ask_chat(qtbot, view, "hello")  # the conversation exists from here on
        untick(view, beta)
        untick(view, gamma)
        qtbot.mouseClick(view.popover.auto, QtCore.Qt.MouseButton.LeftButton)
        assert view.selected == {alpha} and view.popover.mode == "auto"
        assert view.scope_button.text() == "Alpha · Model decides"
        # A language switch keeps the partial scope and the mode.
        win.language_actions["zh"].trigger()
        qtbot.waitUntil(lambda: language() == "zh", timeout=2_000)
        assert win.chat_view is not view
        view = win.chat_view
        listed(qtbot, view, 3)
        qtbot.wait(300)  # the conversation list arrives and reopens the conversation
        assert view.selected == {alpha} and view.popover.mode == "auto"
        assert view.scope_button.text() == "Alpha · 模型按需检索"
        # So does a theme switch.
        win.theme_action.trigger()
        qtbot.wait(100)
        assert view.selected == {alpha} and view.popover.mode == "auto"
        # Where the person is: library Beta, its Tasks tab, the chat area, a smaller window.
        win.top_tabs.setCurrentIndex(0)
        win.list_view.setCurrentIndex(win.model.index(win.model.row_of(beta)))
        win.tabs.setCurrentIndex(2)
        win.top_tabs.setCurrentWidget(view)
        win.resize(760, 560)
        wanted = w.WindowState(
            library_id=beta, area="chat", tab="tasks", conversation_id=view.conversation_id
        )

        def kept() -> bool:
            state = wait_call(qtbot, win, WINDOW_STATE_GET, w.WindowStateGetRequest()).state
            return (
                state is not None
                and state.model_copy(update={"geometry": None}) == wanted
                and bool(state.geometry)
            )

        qtbot.waitUntil(kept, timeout=5_000)
        # A last change just before closing is kept too (closing waits for it), and so is a
        # question typed and not sent.
        win.resize(720, 540)  # (within the offscreen screen: a restore keeps a window on it)
        view.input.setPlainText("出差住宿标准是多少？ (not sent yet)")
    finally:
        win.close()
    # Relaunch: a new backend and a new window on the same data directory.
    again = open_window(qtbot, data_dir, "zh")
    try:
        qtbot.waitUntil(lambda: again.current_library_id() == beta, timeout=10_000)
        assert again.tabs.currentIndex() == 2 and again.top_tabs.currentWidget() is again.chat_view
        assert (again.width(), again.height()) == (720, 540)
        view = again.chat_view
        listed(qtbot, view, 3)
        qtbot.waitUntil(lambda: view.conversation_id is not None, timeout=5_000)
        qtbot.waitUntil(lambda: view.selected == {alpha}, timeout=5_000)
        assert view.popover.mode == "auto"
        assert view.scope_button.text() == "Alpha · 模型按需检索"
        assert view.input.toPlainText() == "出差住宿标准是多少？ (not sent yet)"
        shoot(again, "relaunch-restored-zh")
    finally:
        again.link.shutdown()
        set_language("en")
        choose_theme(False)  # the light theme again, for the windows of later tests


def test_a_relaunch_opens_the_conversation_open_at_the_quit_not_the_newest(
    qtbot: QtBot, data_dir: Path
) -> None:
    """The newest conversation opened after a relaunch, not the one the person had open (a
    helper's try)."""
    script = ChatScript(turns=[[{"text": "One."}], [{"text": "Two."}]])
    win = open_window(qtbot, data_dir, "en")
    try:
        libraries(qtbot, win, "Alpha")
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            listed(qtbot, view, 1)
            ask_chat(qtbot, view, "first question")
            first = view.conversation_id
            qtbot.mouseClick(view.new_button, QtCore.Qt.MouseButton.LeftButton)
            ask_chat(qtbot, view, "second question")
            assert first is not None and view.conversation_id not in (None, first)
        view.conversation_list.select(first)
        qtbot.waitUntil(lambda: view.conversation_id == first, timeout=5_000)

        def kept() -> bool:
            state = wait_call(qtbot, win, WINDOW_STATE_GET, w.WindowStateGetRequest()).state
            return state is not None and state.conversation_id == first

        qtbot.waitUntil(kept, timeout=5_000)
    finally:
        win.close()
    again = open_window(qtbot, data_dir, "en")
    try:
        view = again.chat_view
        qtbot.waitUntil(lambda: view.conversation_id == first, timeout=10_000)
        qtbot.wait(300)  # the listing arrived and did not move on to the newest
        assert view.conversation_id == first
        assert "first question" in view.transcript.toPlainText()
    finally:
        again.link.shutdown()


def ask_with_no_library(
    qtbot: QtBot, win: MainWindow, script: ChatScript, mode: str
) -> tuple[str, ChatView]:
    """Library Alpha unticked, ``mode`` ("always" or "auto") chosen, a question asked."""
    (alpha,) = libraries(qtbot, win, "Alpha")
    with chat_server(script) as base:
        chat_with(qtbot, win, base)
        view = win.chat_view
        listed(qtbot, view, 1)
        untick(view, alpha)
        qtbot.waitUntil(view.popover.auto.isEnabled, timeout=5_000)  # once the model is known
        button = view.popover.always if mode == "always" else view.popover.auto
        qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
        said = "Always retrieve first" if mode == "always" else "Model decides"
        assert view.scope_button.text() == f"No library · {said}"
        ask_chat(qtbot, view, "What is the travel allowance?")
    return alpha, view


def test_an_empty_scope_in_always_mode_says_nothing_was_searched_and_why(
    qtbot: QtBot, data_dir: Path
) -> None:
    script = ChatScript(turns=[[{"text": "I can only guess."}]])
    win = open_window(qtbot, data_dir, "en")
    try:
        alpha, view = ask_with_no_library(qtbot, win, script, "always")
        text = view.transcript.toPlainText()
        assert "nothing was searched: no library is selected in this chat's knowledge scope" in (
            text
        )
        (request,) = script.requests
        given = json.dumps([m for m in request["messages"] if m["role"] != "system"])
        assert "<untrusted-evidence" not in given and not request.get("tools"), "no evidence"
        # In Chinese too (the reason travels as a code).
        win.language_actions["zh"].trigger()
        qtbot.waitUntil(lambda: language() == "zh", timeout=2_000)
        qtbot.waitUntil(
            lambda: (
                "未检索：本对话的知识范围中没有选择任何知识库"
                in win.chat_view.transcript.toPlainText()
            ),
            timeout=5_000,
        )
        shoot(win, "empty-scope-always-zh")
        # A new chat does not inherit "No library": it starts with every library, in the mode
        # the person chose (its first question went unsearched too).
        view = win.chat_view
        qtbot.mouseClick(view.new_button, QtCore.Qt.MouseButton.LeftButton)
        assert view.conversation_id is None and view.selected == {alpha}
        assert view.scope_button.text() == "Alpha · 每次先检索"
    finally:
        win.link.shutdown()
        set_language("en")


def test_model_decides_with_an_empty_scope_says_there_was_nothing_to_search(
    qtbot: QtBot, data_dir: Path
) -> None:
    """In "Model decides" with no library ticked the answer read "The model did not search your
    libraries", blaming a choice the model never had (a helper's try under Xvfb)."""
    script = ChatScript(turns=[[{"text": "I can only guess."}]])
    win = open_window(qtbot, data_dir, "en")
    try:
        _alpha, view = ask_with_no_library(qtbot, win, script, "auto")
        text = view.transcript.toPlainText()
        assert "nothing was searched: no library is selected in this chat's knowledge scope" in (
            text
        )
        assert "The model did not search your libraries" not in text
    finally:
        win.link.shutdown()
        set_language("en")


def test_a_new_chats_partial_scope_in_always_mode_survives_a_language_switch(
    qtbot: QtBot, data_dir: Path
) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        (alpha, beta), view = in_chat(qtbot, win, "Alpha", "Beta")
        assert view.conversation_id is None
        untick(view, beta)
        qtbot.mouseClick(view.popover.always, QtCore.Qt.MouseButton.LeftButton)
        win.language_actions["zh"].trigger()
        qtbot.waitUntil(lambda: language() == "zh", timeout=2_000)
        view = win.chat_view
        listed(qtbot, view, 2)
        qtbot.wait(300)
        assert view.selected == {alpha} and view.popover.mode == "always"
        assert view.scope_button.text() == "Alpha · 每次先检索"
    finally:
        win.link.shutdown()
        set_language("en")


def test_a_new_library_joins_a_whole_scope_but_never_one_the_person_narrowed(
    qtbot: QtBot, data_dir: Path
) -> None:
    """Creating a library once filled an emptied scope ("No library" became "Gamma") and
    widened a narrowed one behind the person's back; it joins only a scope that held every
    library, as a new chat's does."""
    win = open_window(qtbot, data_dir, "en")
    try:
        (alpha, beta), view = in_chat(qtbot, win, "Alpha", "Beta")
        assert view.selected == {alpha, beta}, "a new chat's scope holds every library"
        (gamma,) = libraries(qtbot, win, "Gamma")
        listed(qtbot, view, 3)
        qtbot.waitUntil(lambda: view.selected == {alpha, beta, gamma}, timeout=5_000)
        untick(view, beta)  # narrowed: Alpha and Gamma
        (delta,) = libraries(qtbot, win, "Delta")
        listed(qtbot, view, 4)
        qtbot.wait(300)
        assert view.selected == {alpha, gamma}, "a narrowed scope stays as it was left"
        untick(view, alpha)
        untick(view, gamma)  # emptied
        libraries(qtbot, win, "Epsilon")
        listed(qtbot, view, 5)
        qtbot.wait(300)
        assert view.selected == set() and view.scope_button.text().startswith("No library")
        assert delta not in view.selected
    finally:
        win.link.shutdown()
