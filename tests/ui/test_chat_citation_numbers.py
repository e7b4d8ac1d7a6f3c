"""One numbering for citations, in the real window against a real backend and a loopback chat
model: the model answers with [2] and [1] in two turns ("always retrieve first", then "model
decides" with two tool searches); clicking each marker in each turn — after both turns, and
again after a relaunch on the same data directory — opens the chunk the model was given under
that number. A marker with no such citation is plain text, and so is every marker of an answer
stored before the numbers were kept (its numbers cannot be known)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import REFERENCE_CONTEXT, SETTINGS_UPDATE
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.chat.transcript import message_html
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.servers.chatserver import ChatScript, chat_server, evidence_of, token_of, tool
from tests.ui.helpers import (
    MakeLibrary,
    ask_chat,
    handbook,
    open_window,
    searching_first,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]

FIRST = "Hotels cost at most 600 yuan [2]; core hours are fixed [1]; no such source [19]."


def flat(text: str) -> str:
    return " ".join(text.split())


def letters(text: str) -> str:
    """Only the words: the pane draws a chunk's Markdown table as a table (no pipes)."""
    return "".join(ch for ch in text if ch.isalnum())


def second_answer(request: dict[str, Any]) -> str:
    """The tool-mode answer: [2], [1] and the last number the second search gave."""
    last = max(evidence_of(request))
    return f"The gateway needs memory [2]; travel rules apply [1]; requirements [{last}]."


def click_marker(qtbot: QtBot, view: ChatView, phrase: str) -> None:
    """Click the [n] that ends ``phrase`` in the transcript (as a person would)."""
    doc = view.transcript.document()
    found = doc.find(phrase)
    assert not found.isNull(), phrase
    cursor = view.transcript.textCursor()
    cursor.setPosition(found.selectionEnd() - 1)  # inside the marker's digits
    assert cursor.charFormat().isAnchor(), f"{phrase!r} is a link"
    view.reference.clear()
    point = view.transcript.cursorRect(cursor).center()
    qtbot.mouseClick(view.transcript.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)


def opened_chunk(qtbot: QtBot, win: MainWindow, view: ChatView) -> tuple[int, str]:
    """The number the selected citation row is headed by, and the text of the chunk it opens."""
    row = view.citation_view.currentIndex().row()
    assert row >= 0, "a citation is selected"
    number = view.citations.headerData(row, QtCore.Qt.Orientation.Vertical)
    cited = view.citations.rows[row]
    ref = wait_call(
        qtbot,
        win,
        REFERENCE_CONTEXT,
        r.ReferenceRequest(
            library_id=cited.library_id, document_id=cited.document_id, chunk_id=cited.chunk_id
        ),
    )
    hit = next(chunk.content for chunk in ref.chunks if chunk.is_hit)
    assert letters(hit)[:40] in letters(view.reference.toPlainText()), "the pane shows that chunk"
    return int(number), hit


def assert_opens(qtbot: QtBot, win: MainWindow, phrase: str, passages: dict[int, str]) -> None:
    """Clicking the marker ending ``phrase`` opens the chunk the model read under its number in
    that turn (a middle stretch of it: the passage may trim an overlap at its start)."""
    view = win.chat_view
    number = int(re.findall(r"\[(\d+)\]", phrase)[-1])
    click_marker(qtbot, view, phrase)
    shown, hit = opened_chunk(qtbot, win, view)
    assert shown == number, f"{phrase!r} selects citation [{number}], not [{shown}]"
    middle = flat(hit)[len(flat(hit)) // 3 :][:80]
    assert middle in flat(passages[number]), (
        f"{phrase!r}: the chunk opened is not what the model read under [{number}]:\n"
        f"opened: {flat(hit)[:160]}\nmodel read: {flat(passages[number])[:160]}"
    )


def plain(view: ChatView, phrase: str) -> bool:
    found = view.transcript.document().find(phrase)
    assert not found.isNull(), phrase
    cursor = view.transcript.textCursor()
    cursor.setPosition(found.selectionEnd() - 1)
    return not cursor.charFormat().isAnchor()


def test_each_marker_of_each_turn_opens_what_the_model_read_under_its_number(
    qtbot: QtBot, data_dir: Path, make_library: MakeLibrary
) -> None:
    win = open_window(qtbot, data_dir, "en")
    script = ChatScript(
        turns=[
            [{"text": FIRST}],
            [tool(lambda req: {"query": "出差住宿标准 每晚", "token": token_of(req)})],
            [
                tool(
                    lambda req: {
                        "query": "Orion Gateway requirements memory",
                        "token": token_of(req),
                    }
                )
            ],
            [{"text": second_answer}],
        ]
    )
    try:
        make_library(handbook(), win=win)
        # No relevance floor: the numbering is checked over a turn that hands the model several
        # passages (at the default floor, this small library answers with its one right passage).
        library_id = win.current_library_id()
        assert library_id is not None
        wait_call(
            qtbot,
            win,
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id,
                retrieval=KnowledgeRetrievalSettings(minimum_relevance=0.0),
            ),
        )
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
            view.popover.auto.setChecked(True)
            ask_chat(qtbot, view, "What does the gateway need, and what are the travel rules?")
        first = evidence_of(script.requests[0])
        searched_once = evidence_of(script.requests[2])
        second = evidence_of(script.requests[3])
        assert len(first) >= 2 and len(second) >= 2, (first.keys(), second.keys())
        # one numbering across the turn's two searches: the second continues the first
        new = set(second) - set(searched_once)
        assert new and min(new) == max(searched_once) + 1, (searched_once.keys(), second.keys())
        last = max(second)
        second_text = second_answer(script.requests[3])
        turns = [
            (["Hotels cost at most 600 yuan [2]", "core hours are fixed [1]"], first),
            (
                [
                    "The gateway needs memory [2]",
                    "travel rules apply [1]",
                    f"requirements [{last}]",
                ],
                second,
            ),
        ]
        assert second_text in view.transcript.toPlainText()

        def check(window: MainWindow) -> None:
            for phrases, passages in turns:
                for phrase in phrases:
                    assert_opens(qtbot, window, phrase, passages)
            assert plain(window.chat_view, "no such source [19]"), "a marker beyond the list"

        check(win)
        # An older answer's sources are shown under its own title.
        click_marker(qtbot, view, "core hours are fixed [1]")
        assert "answer 1" in view.sources.label.text()
        win.link.shutdown()

        # Relaunch: a new backend and window on the same data directory.
        win = open_window(qtbot, data_dir, "en")
        win.top_tabs.setCurrentWidget(win.chat_view)
        qtbot.waitUntil(lambda: len(win.chat_view.messages) == 4, timeout=10_000)
        check(win)
    finally:
        win.link.shutdown()


def test_a_stored_answer_without_numbers_links_no_marker() -> None:
    old = c.Citation.model_validate(
        {
            "libraryId": "a" * 32,
            "documentId": "d" * 32,
            "chunkId": "1" * 32,
            "relevance": 0.5,
            "channels": ["fts"],
            "documentTitle": "Doc 1",
            "locator": {},
            "snippet": "s",
        }
    )
    assert old.number is None
    message = c.Message(
        id="e" * 32,
        conversation_id="c" * 32,
        role="assistant",
        content="See [1].",
        state="complete",
        retrieval=None,
        citations=[old],
        error=None,
        created_at="2026-01-01",
    )
    assert "href='cite:" not in message_html(message)  # (its actions are links; no marker)
    numbered = message.model_copy(update={"citations": [old.model_copy(update={"number": 1})]})
    assert f"href='cite:{'e' * 32}/1'" in message_html(numbered)
    assert tr("chat.unknown_markers", marks="[1]") not in html.unescape(message_html(message))
    made_up = numbered.model_copy(update={"content": "See [1] and [2]."})
    shown = html.unescape(message_html(made_up))
    assert tr("chat.unknown_markers", marks="[2]") in shown, "a number no source has is said"
    assert "</a> and [2]." in shown and f"href='cite:{'e' * 32}/2'" not in shown
    # nothing found, no source given: every number the model wrote is said (a helper's try:
    # 根据资料[2]……另见[1] stood unflagged under "searched, nothing relevant")
    nothing = made_up.model_copy(update={"citations": [], "content": "根据资料[2]……另见[1]。"})
    shown = html.unescape(message_html(nothing))
    assert tr("chat.unknown_markers", marks="[1] [2]") in shown
