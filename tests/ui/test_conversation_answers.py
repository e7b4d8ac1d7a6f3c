"""What a person does with answers, through the real window over a real backend (a library of
the fixture documents, a loopback chat model): export to Markdown and HTML with the numbered
sources, copy an answer with its sources, regenerate the last answer in the same scope and
mode, the sources pane following the answer chosen (never keeping another's context), a
conversation reopening at its latest answer, a new answer kept in view unless the person
scrolled up, and the mode and model kept across a relaunch."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.servers.chatserver import ChatScript, chat_server, evidence_of
from tests.ui.helpers import MakeLibrary, ask_chat, chat_with, handbook, open_window

pytestmark = [pytest.mark.gui, pytest.mark.integration]
LEFT = QtCore.Qt.MouseButton.LeftButton
LONG = "\n".join(f"Line {i} of a long answer." for i in range(60))


def cite_first(request: dict[str, object]) -> str:
    """An answer citing the first passage it was given (none: an uncited answer)."""
    return "Rooms cost at most 600 yuan [1]." if evidence_of(request) else "No sources."


def click(view: ChatView, url: str) -> None:
    """A click on a link in the transcript (a marker or an action under an answer)."""
    view.transcript.anchorClicked.emit(QtCore.QUrl(url))


def answers(view: ChatView) -> list[c.Message]:
    return [m for m in view.messages if m.role == "assistant"]


def in_always_mode(qtbot: QtBot, win: MainWindow, base: str) -> ChatView:
    chat_with(qtbot, win, base)
    view = win.chat_view
    qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
    qtbot.mouseClick(view.popover.always, LEFT)
    return view


def test_export_copy_regenerate_and_the_sources_pane_following_the_answer(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary, tmp_path: Path
) -> None:
    make_library(handbook())
    script = ChatScript(turns=[[{"text": cite_first}]] * 3)
    with chat_server(script) as base:
        view = in_always_mode(qtbot, window, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
        ask_chat(qtbot, view, "年假怎么结转？")
        first, last = answers(view)
        assert first.citations and last.citations
        # Copy: the answer and its numbered sources on the clipboard.
        clipboard = QtWidgets.QApplication.clipboard()
        clipboard.clear()
        with qtbot.waitSignal(view.manage.copied, timeout=5_000):
            click(view, f"copy:{last.id}")
        copied = clipboard.text()
        assert "600 yuan [1]" in copied and last.citations[0].document_title in copied
        # in the window's language alone (it was "来源 / Sources" in the English window)
        assert "**Sources**" in copied and "来源" not in copied
        assert view.conversation_list.notice.label.text() == "Answer and its sources copied"
        # Export to Markdown and to HTML: every answer with its numbered sources.
        assert view.export_button.isEnabled()
        for form, name in (("markdown", "chat.md"), ("html", "chat.html")):
            with qtbot.waitSignal(view.manage.exported, timeout=10_000) as written:
                view.manage.export_to(view.conversation_id or "", str(tmp_path / name), form)
            assert written.args == [str(tmp_path / name)]
            text = (tmp_path / name).read_text(encoding="utf-8")
            assert "出差住宿一线城市每晚多少钱" in text and "年假怎么结转" in text
            assert text.count("600 yuan [1]") == 2
            assert first.citations[0].document_title in text
            assert "Question" in text and "问题" not in text and "回答" not in text
            assert (form == "html") == text.lstrip().lower().startswith("<!doctype html")
        assert "chat.html" in view.conversation_list.notice.label.text()
        # The sources pane follows the answer chosen, never keeping another's context.
        assert view.sources.label.text() == "<b>Sources consulted</b>"
        view.sources.select(1)
        qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
        click(view, f"sources:{first.id}")
        assert view.sources.label.text() == "<b>Sources consulted (answer 1)</b>"
        assert view.citations.rows == first.citations
        # its first source comes up with its own context (the click on "Sources (1)" changed
        # nothing to see when the pane already showed that answer's sources)
        assert view.sources.current_number() == 1
        qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
        assert "3.1 差旅报销" in view.reference.toPlainText()
        view.sources.select(1)  # asked, then at once another answer: its late reply is dropped
        click(view, f"sources:{last.id}")
        qtbot.wait(800)
        assert view.citations.rows == last.citations
        # the other answer's context is gone, its own first source's shows
        assert "2.1 年假" in view.reference.toPlainText()
        assert "3.1 差旅报销" not in view.reference.toPlainText()
        # Regenerate the last answer: same scope and mode, a new search, the old answer gone.
        asked = len(script.requests)
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            click(view, f"regenerate:{last.id}")
        assert len(script.requests) == asked + 1
        request = script.requests[-1]
        assert evidence_of(request), "searched again (always mode, the same library)"
        assert "年假怎么结转" in str(request["messages"])
        now = answers(view)
        assert len(now) == 2 and now[0].id == first.id and now[1].id != last.id
        assert view.popover.mode == "always" and len(view.selected) == 1
        assert view.transcript.toPlainText().count("年假怎么结转") == 1
        # the model wrote the same words: the input says it ran and came out the same
        remark = view.composer.remark
        assert not remark.isHidden() and remark.text() == (
            "Searched and answered again: the new answer is the same as before."
        )


def test_reopen_at_the_latest_answer_follow_a_new_one_and_keep_mode_and_model_on_relaunch(
    qtbot: QtBot, data_dir: Path
) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        script = ChatScript(turns=[[{"text": LONG}], [{"text": LONG}], [{"text": LONG}]])
        with chat_server(script) as base:
            chat_with(qtbot, win, base)
            view = win.chat_view
            win.top_tabs.setCurrentWidget(view)
            qtbot.mouseClick(view.popover.always, LEFT)
            ask_chat(qtbot, view, "first")
            qtbot.mouseClick(view.new_button, LEFT)
            ask_chat(qtbot, view, "second")
            qtbot.waitUntil(lambda: view.conversations.rowCount() == 2, timeout=5_000)
            bar = view.transcript.verticalScrollBar()
            assert bar.maximum() > 0 and bar.value() == bar.maximum()
            bar.setSliderPosition(0)  # the person scrolls up to read the start ...
            # ... then opens the other conversation: it opens at its latest answer.
            view.conversation_list.select(view.conversations.rows[1].id)
            qtbot.waitUntil(lambda: "first" in view.transcript.toPlainText(), timeout=5_000)
            qtbot.wait(100)
            assert bar.maximum() > 0 and bar.value() == bar.maximum()
            # Scrolled up, the person asks again: the question and its answer come into view.
            bar.setSliderPosition(0)
            ask_chat(qtbot, view, "third")
            qtbot.wait(100)
            assert bar.value() == bar.maximum()
            assert view.model_label.text() == "Answered by: qwen2.5-7b"
        win.close()
        # A relaunch: the conversation opens at its latest answer, in its mode, with its model.
        again = open_window(qtbot, data_dir, "en")
        try:
            view = again.chat_view
            again.top_tabs.setCurrentWidget(view)
            qtbot.waitUntil(lambda: "third" in view.transcript.toPlainText(), timeout=10_000)
            qtbot.wait(200)
            bar = view.transcript.verticalScrollBar()
            assert bar.maximum() > 0 and bar.value() == bar.maximum()
            assert view.popover.mode == "always"
            assert view.model_label.text() == "Answered by: qwen2.5-7b"
        finally:
            again.link.shutdown()
    finally:
        win.link.shutdown()


def test_assistant_instructions_in_settings_and_in_the_scope_popover(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    make_library({"a.md": "# A\n\nSome text.\n"}, vectors=False)
    window.tabs.setCurrentWidget(window.settings_tab)
    box = window.settings_tab.instructions
    qtbot.waitUntil(box.save_button.isEnabled, timeout=5_000)
    box.text.setPlainText("x" * 2_001)
    assert not box.save_button.isEnabled() and box.error.isVisible()
    assert box.counter.text() == "2001 / 2000 characters"
    box.text.setPlainText("Answer as the HR helpdesk, in Chinese.")
    assert box.save_button.isEnabled() and not box.error.isVisible()
    with qtbot.waitSignal(box.notice, timeout=5_000):
        qtbot.mouseClick(box.save_button, LEFT)
    view = window.chat_view
    window.top_tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
    view.show_scope()
    popover = view.popover
    qtbot.waitUntil(popover.instructions.isVisible, timeout=5_000)
    assert popover.instructions.text() == (
        "Assistant instructions\nHandbook: Answer as the HR helpdesk, in Chinese."
    )
    popover.hide()


def test_a_language_switch_keeps_the_answer_and_citation_the_sources_pane_showed(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    """After a language switch the sources pane fell back to the latest answer with nothing
    selected: the person lost the older answer's source they were reading."""
    make_library(handbook())
    script = ChatScript(turns=[[{"text": cite_first}]] * 2)
    try:
        with chat_server(script) as base:
            view = in_always_mode(qtbot, window, base)
            ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
            ask_chat(qtbot, view, "年假怎么结转？")
            first, _last = answers(view)
            click(view, f"cite:{first.id}/1")
            assert view.sources.current_number() == 1
            passage = first.citations[0].document_title
            window.language_actions["zh"].trigger()
            qtbot.waitUntil(lambda: window.chat_view is not view, timeout=10_000)
            new = window.chat_view
            qtbot.waitUntil(lambda: new.sources.current_number() == 1, timeout=10_000)
        assert new.shown_answer == first.id
        assert "第 1 个回答" in new.sources.label.text()
        assert new.sources.model.rows[0].document_title == passage
    finally:
        set_language("en")
