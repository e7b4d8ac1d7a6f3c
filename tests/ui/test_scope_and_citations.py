"""The chat scope's 20-library cap and the citation header, in the real window against a real
backend (and a loopback chat model): a 21st library cannot be chosen and says why; a send that
cannot be valid is refused with a message instead of an exception in the slot; "View chunk"
and "Show context" name the library, document, source and locator; the chat's sources table
has a locator column and never scrolls sideways at 800×600; a citation marker opens its
context."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chunks as ch
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.chat import MAX_MESSAGE_CHARACTERS
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.methods import (
    CHUNK_GET,
    CHUNK_UPDATE,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    VECTORS_STATUS,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chat.citations import (
    CHANNELS,
    CITATION_COLUMNS,
    DOCUMENT,
    DOCUMENT_MIN,
    SNIPPET,
    CitationsModel,
)
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.locator import format_locator
from goodbuddy_kb.ui.widgets.table_model import RowsModel
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.answers import stored_answer
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.helpers import (
    MakeLibrary,
    ask,
    ask_chat,
    handbook,
    open_window,
    searching_first,
    shoot,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]
CHECKED = QtCore.Qt.CheckState.Checked


def test_scope_caps_at_twenty_libraries_and_send_never_raises(qtbot: QtBot, data_dir: Path) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        view = win.chat_view
        win.top_tabs.setCurrentWidget(view)
        ids = [
            wait_call(
                qtbot, win, LIBRARY_CREATE, lib.LibraryCreateRequest(name=f"L{n:02d}")
            ).library.id
            for n in range(MAX_LIBRARIES_PER_REQUEST + 1)
        ]
        qtbot.waitUntil(lambda: view.popover.list.count() == len(ids), timeout=10_000)
        assert len(view.selected) == MAX_LIBRARIES_PER_REQUEST, "the 21st does not join"
        assert "At most 20 libraries" in view.popover.note.text()
        items = [view.popover.list.item(i) for i in range(view.popover.list.count())]
        left_out = [item for item in items if item.checkState() != CHECKED]
        assert len(left_out) == 1
        extra = left_out[0]
        assert not extra.flags() & QtCore.Qt.ItemFlag.ItemIsEnabled
        assert "At most 20 libraries" in extra.toolTip()
        extra.setCheckState(CHECKED)  # what a click would do if it got through
        assert extra.checkState() != CHECKED and len(view.selected) == MAX_LIBRARIES_PER_REQUEST
        # Clearing one makes room again.
        first = next(item for item in items if item.checkState() == CHECKED)
        first.setCheckState(QtCore.Qt.CheckState.Unchecked)
        assert extra.flags() & QtCore.Qt.ItemFlag.ItemIsEnabled
        extra.setCheckState(CHECKED)
        assert len(view.selected) == MAX_LIBRARIES_PER_REQUEST and extra.checkState() == CHECKED

        # Whatever the selection holds, a send is checked before anything happens: a message,
        # not an exception in the slot (pytest-qt fails the test on one), and the text stays.
        view.popover.selected = set(ids)
        view.input.setPlainText("question")
        qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
        assert (
            view.composer.error.isVisible() and "At most 20 libraries" in view.composer.error.text()
        )
        assert view.input.toPlainText() == "question" and view.request_id is None
        view.popover.selected = set(ids[:3])
        view.input.setPlainText("x" * (MAX_MESSAGE_CHARACTERS + 1))
        qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
        assert "too long" in view.composer.error.text()
        assert len(view.input.toPlainText()) == MAX_MESSAGE_CHARACTERS + 1
        assert view.conversation_id is None, "no empty conversation was created"
    finally:
        win.link.shutdown()


def test_each_library_in_scope_says_its_own_unusable_vector_index(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    """The scope's note kept one library's vector problem (whichever answered last) and did not
    say whose it was; each library now has its line, named."""
    for name in ("Alpha", "Beta"):
        make_library(handbook(), name=name, folder=name)
        library_id = window.current_library_id()
        assert library_id is not None
        request = m.VectorStatusRequest(library_id=library_id)
        qtbot.waitUntil(
            lambda r=request: wait_call(qtbot, window, VECTORS_STATUS, r).state == "ready",
            timeout=20_000,
        )
    other = m.EmbeddingConnection(
        kind="openai-compatible", base_url="http://127.0.0.1:9", model="other", dimensions=384
    )
    wait_call(qtbot, window, EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=other))
    view = window.chat_view
    window.top_tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.popover.list.count() == 2, timeout=10_000)
    view.show_scope()
    note = view.popover.note
    qtbot.waitUntil(lambda: note.text().count("is unavailable") == 2, timeout=5_000)
    assert all(line.startswith("• ") for line in note.text().splitlines()), (
        "several notes read as a list"
    )
    # (with no chat model, a line says so too)
    lines = [line for line in note.text().splitlines() if "is unavailable" in line]
    # in the order of the list above them, whichever answered first
    listed = [view.popover.list.item(i).text() for i in range(2)]
    named = [next(n for n in ("Alpha", "Beta") if f"“{n}”" in line) for line in lines]
    assert named == [next(n for n in ("Alpha", "Beta") if n in item) for item in listed]
    view.popover.hide()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_citations_show_library_document_source_and_locator(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, language: str, make_library: MakeLibrary
) -> None:
    win = open_window(qtbot, data_dir, language)
    try:
        make_library(handbook(), win=win)
        folder = str(tmp_path / "docs")
        # Workbench → View chunk.
        bench = ask(qtbot, win, "出差住宿一线城市每晚最多报多少")
        bench.table.selectRow(0)
        context = bench.context.toPlainText()
        qtbot.mouseClick(bench.view_chunk, QtCore.Qt.MouseButton.LeftButton)
        library_label = "Library" if language == "en" else "知识库"
        qtbot.waitUntil(lambda: library_label in bench.chunk_view.toPlainText(), timeout=5_000)
        shown = bench.chunk_view.toPlainText()
        # in a tab of its own: the search's context is still there to read
        assert bench.tabs.currentWidget() is bench.chunk_view
        assert bench.tabs.tabText(bench.tabs.currentIndex()) == (
            "Chunk" if language == "en" else "分块"
        )
        assert context and bench.context.toPlainText() == context
        labels = (
            ("Document", "Source", "Folder", "Location", "line")
            if language == "en"
            else ("文档", "来源", "文件夹", "定位", "行")
        )
        for expected in ("Handbook", "policy_zh.md", folder, "六百元", *labels):
            assert expected in shown, expected
        shoot(bench, f"workbench-view-chunk-{language}")
        bench.reject()

        # Chat → Sources consulted: a locator column, and "Show context" with the same header.
        script = ChatScript(turns=[[{"text": "每晚不超过六百元 [1]。"}]])
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            view.input.setPlainText("出差住宿一线城市每晚多少钱？")
            with qtbot.waitSignal(view.reply_finished, timeout=20_000):
                qtbot.mouseClick(view.send_button, QtCore.Qt.MouseButton.LeftButton)
        assert view.citations.rowCount() >= 1
        header = view.citations.headerData(
            1, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.DisplayRole
        )
        assert header == ("Location" if language == "en" else "定位")
        locator = view.citations.data(view.citations.index(0, 1))
        assert labels[-1] in locator, locator
        # the tooltip names the file and the library (it gave the title alone: two files, or
        # the same notes in two libraries, read alike; a helper's try)
        tip = view.citations.data(
            view.citations.index(0, DOCUMENT), QtCore.Qt.ItemDataRole.ToolTipRole
        )
        library_line = "library: Handbook" if language == "en" else "知识库：Handbook"
        assert "policy_zh.md" in tip and library_line in tip, tip
        view.citation_view.selectRow(0)  # the context pane follows the selection
        qtbot.waitUntil(lambda: library_label in view.reference.toPlainText(), timeout=5_000)
        for expected in ("Handbook", folder, *labels):
            assert expected in view.reference.toPlainText(), expected
        win.resize(1200, 800)
        shoot(win, f"chat-sources-{language}")
    finally:
        win.link.shutdown()
        set_language("en")


def test_citation_model_passes_the_model_tester(qtmodeltester: object) -> None:
    qtmodeltester.check(RowsModel(CITATION_COLUMNS), force_py=False)  # type: ignore[attr-defined]
    qtmodeltester.check(CitationsModel(), force_py=False)  # type: ignore[attr-defined]


def test_sources_of_several_libraries_say_whose_each_is() -> None:
    """Two libraries' "Hotels" read alike in the table, their libraries named only in the
    tooltips (a helper's try): with sources of several libraries, each row names its own."""
    first = stored_answer("…", "600 yuan", title="Hotels").citations[0]
    second = first.model_copy(update={"number": 2, "library_id": "1" * 32, "chunk_id": "2" * 32})
    model = CitationsModel()
    model.library_name = {first.library_id: "Sample", second.library_id: "Northwind"}.get
    model.set_rows([first, second])
    shown = [model.data(model.index(row, DOCUMENT)) for row in range(2)]
    assert shown == ["Sample / Hotels", "Northwind / Hotels"]
    model.set_rows([first])
    assert model.data(model.index(0, DOCUMENT)) == "Hotels", "one library: its name is known"


def test_locators_read_as_pages_lines_and_headings() -> None:
    set_language("en")
    assert format_locator(Locator.from_wire({"page": 3, "pageEnd": 4})) == "p. 3–4"
    assert format_locator(
        Locator.from_wire({"lineStart": 61, "lineEnd": 61, "headingPath": ["A", "B"]})
    ) == ("line 61 · A > B")
    assert format_locator(Locator.from_wire({"lineStart": 5, "lineEnd": 9})) == "lines 5–9"
    assert format_locator(Locator.from_wire(None)) == ""
    assert format_locator(Locator.from_wire({})) == ""


def test_one_locator_wording_in_both_languages_with_the_ocr_mark() -> None:
    scan = Locator.from_wire({"page": 3, "ocr": True, "lowConfidence": ["Smudged 1O0"]})
    lines = Locator.from_wire({"lineStart": 12, "lineEnd": 18, "headingPath": ["A", "B"]})
    try:
        set_language("zh")
        assert format_locator(scan) == "第 3 页 · OCR ⚠1"
        assert format_locator(lines) == "第 12–18 行 · A > B"
        assert format_locator(lines, headings=False) == "第 12–18 行"
        set_language("en")
        assert format_locator(scan) == "p. 3 · OCR ⚠1"
        assert format_locator(scan, ocr=False) == "p. 3"
    finally:
        set_language("en")


@pytest.mark.usefixtures("library")
def test_a_citation_marker_opens_its_context(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    script = ChatScript(turns=[[{"text": "One night costs at most 600 yuan [1]."}]])
    with chat_server(script) as base:
        view = searching_first(qtbot, window, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
    assert view.citations.rowCount() >= 1
    assert view.reference.toPlainText() == ""
    cursor = view.transcript.document().find("[1]")
    assert not cursor.isNull() and cursor.charFormat().isAnchor(), "the marker is a link"
    cursor.setPosition(cursor.selectionStart() + 1)
    point = view.transcript.cursorRect(cursor).center()
    qtbot.mouseClick(view.transcript.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
    assert view.citation_view.currentIndex().row() == 0


def document_cell(view: ChatView, row: int, role: QtCore.Qt.ItemDataRole) -> str:
    model = view.citations
    return str(model.data(model.index(row, DOCUMENT), role))


def marked(view: ChatView, row: int, mark: str) -> bool:
    """Whether the sources list shows citation ``row``'s document behind ``mark`` ("" for no
    mark, once the backend has said what became of each citation)."""
    text = document_cell(view, row, QtCore.Qt.ItemDataRole.DisplayRole)
    if not mark:
        return len(view.citations.states) == view.citations.rowCount() and text[:2] not in (
            "⚠ ",
            "✎ ",
        )
    return text.startswith(mark)


@pytest.mark.usefixtures("library")
def test_a_citation_edited_since_the_answer_says_so(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """The cited chunk edited after the answer: its reference showed the new text as if the
    answer had used it (a helper's try). It says the passage was edited since, and what the
    answer quoted then follows the text now."""
    script = ChatScript(turns=[[{"text": "One night costs at most 600 yuan [1]."}]])
    with chat_server(script) as base:
        view = searching_first(qtbot, window, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
    assert view.citations.rowCount() >= 1
    cited = view.citations.row_at(0)
    view.citation_view.clearSelection()
    view.citation_view.selectRow(0)
    view.sources.show_context()
    qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
    assert "edited after the answer" not in view.reference.toPlainText()
    qtbot.waitUntil(lambda: marked(view, 0, ""), timeout=5_000)
    before = wait_call(
        qtbot,
        window,
        CHUNK_GET,
        ch.ChunkRequest(
            library_id=cited.library_id, document_id=cited.document_id, chunk_id=cited.chunk_id
        ),
    )
    edited = before.content + "\n\n住宿标准自下月起另行通知。"
    wait_call(
        qtbot,
        window,
        CHUNK_UPDATE,
        ch.ChunkUpdateRequest(
            library_id=cited.library_id,
            document_id=cited.document_id,
            chunk_id=cited.chunk_id,
            content=edited,
        ),
    )
    # the list marks it before it is chosen again (only the context pane said so)
    qtbot.waitUntil(lambda: marked(view, 0, "✎ "), timeout=5_000)
    tip = document_cell(view, 0, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith(
        "Edited since this answer: choose it to see its text now beside what the answer quoted."
    )
    view.citation_view.clearSelection()
    view.citation_view.selectRow(0)
    view.sources.show_context()
    qtbot.waitUntil(
        lambda: "edited after the answer" in view.reference.toPlainText(), timeout=5_000
    )
    text = view.reference.toPlainText()
    assert "住宿标准自下月起另行通知" in text, "the text now"
    assert "What the answer quoted then:" in text and "六百元" in text, text


@pytest.mark.usefixtures("library")
def test_the_citation_shown_follows_its_file_going_and_coming_back(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """With a citation shown, its file deleted and then put back: the pane says so each time
    without the citation being chosen again (it kept "no longer valid" beside the file put
    back; a helper's try)."""
    script = ChatScript(turns=[[{"text": "One night costs at most 600 yuan [1]."}]])
    with chat_server(script) as base:
        view = searching_first(qtbot, window, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
    cited = view.citations.row_at(0)
    assert view.sources.select(1)
    qtbot.waitUntil(lambda: "六百元" in view.reference.toPlainText(), timeout=5_000)
    stale = "no longer valid"
    assert stale not in view.reference.toPlainText()
    # a sync that leaves the citation as it was leaves the pane be (what is read, a remark
    # beside "Open source")
    view.sources.opened.setText("remark")
    bar = view.reference.verticalScrollBar()
    place = bar.value()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\nNothing cited.\n", encoding="utf-8")
    tab = window.documents_tab
    rows = tab.documents.rowCount()
    tab.source_actions.sync_now()
    qtbot.waitUntil(lambda: tab.documents.rowCount() == rows + 1, timeout=20_000)
    qtbot.wait(300)
    assert view.sources.opened.text() == "remark" and bar.value() == place
    path = tmp_path / "docs" / cited.document_path
    kept = path.read_bytes()
    path.unlink()
    window.documents_tab.source_actions.sync_now()
    qtbot.waitUntil(lambda: stale in view.reference.toPlainText(), timeout=20_000)
    qtbot.waitUntil(lambda: marked(view, 0, "⚠ "), timeout=5_000)
    tip = document_cell(view, 0, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith(
        "No longer valid: since this answer, the passage was deleted, switched off or rebuilt into new chunks."
    )
    path.write_bytes(kept)
    window.documents_tab.source_actions.sync_now()
    qtbot.waitUntil(lambda: stale not in view.reference.toPlainText(), timeout=20_000)
    qtbot.waitUntil(lambda: marked(view, 0, ""), timeout=5_000)
    assert "六百元" in view.reference.toPlainText()
    assert view.citation_view.currentIndex().row() == 0, "the same citation, still chosen"


@pytest.mark.usefixtures("library")
def test_a_citation_whose_library_was_deleted_says_so(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """After the library was deleted, its sources in an older answer said only "library not
    found", and Open source "The operation failed: library not found" (a helper's try)."""
    script = ChatScript(turns=[[{"text": "One night costs at most 600 yuan [1]."}]])
    with chat_server(script) as base:
        view = searching_first(qtbot, window, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
    assert view.citations.rowCount() >= 1
    library_id = view.citations.row_at(0).library_id
    qtbot.waitUntil(lambda: marked(view, 0, ""), timeout=5_000)
    wait_call(qtbot, window, LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=library_id))
    # every citation of that library marked in the list
    rows = range(view.citations.rowCount())
    qtbot.waitUntil(lambda: all(marked(view, i, "⚠ ") for i in rows), timeout=5_000)
    view.citation_view.clearSelection()
    view.citation_view.selectRow(0)
    view.sources.show_context()
    gone = "This source is no longer in your libraries"
    qtbot.waitUntil(lambda: gone in view.reference.toPlainText(), timeout=5_000)
    # what the answer quoted is still there to read, marked as then
    quoted = view.reference.toPlainText()
    assert "What the answer quoted then:" in quoted and "六百元" in quoted, quoted
    qtbot.mouseClick(view.open_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: gone in view.sources.opened.text(), timeout=5_000)
    assert "library not found" not in view.sources.opened.text()


@pytest.mark.parametrize(("language", "dark"), [("en", False), ("zh", True)])
def test_the_citation_table_never_scrolls_sideways_at_800x600(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    qapp: QtWidgets.QApplication,
    language: str,
    dark: bool,
    make_library: MakeLibrary,
) -> None:
    win = open_window(qtbot, data_dir, language)
    try:
        apply_theme(qapp, dark)
        make_library(handbook(), win=win)
        script = ChatScript(turns=[[{"text": "每晚不超过六百元 [1]。"}]])
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
        table = view.citation_view
        assert view.citations.rowCount() >= 1
        for width, height in ((800, 600), (1400, 900), (800, 600)):
            win.resize(width, height)
            qtbot.wait(150)
            header = table.horizontalHeader()
            shown = [c for c in range(header.count()) if not table.isColumnHidden(c)]
            used = sum(header.sectionSize(c) for c in shown)
            assert used <= table.viewport().width(), (width, used, table.viewport().width())
            assert table.horizontalScrollBar().maximum() == 0
            assert header.sectionSize(DOCUMENT) >= DOCUMENT_MIN, "the document name reads"
            if width == 1400:
                assert not table.isColumnHidden(SNIPPET) and not table.isColumnHidden(CHANNELS)
        assert table.isColumnHidden(SNIPPET), "at 800 px the snippet steps aside"
        citation = view.citations.row_at(0)
        assert citation is not None
        tip = view.citations.data(
            view.citations.index(0, DOCUMENT), QtCore.Qt.ItemDataRole.ToolTipRole
        )
        assert citation.document_title in tip and citation.snippet[:40] in tip
        # Moving through the citations (keyboard or mouse) shows each one's context.
        assert view.reference.toPlainText() == ""
        table.setFocus()
        table.selectRow(0)
        qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
        # A new theme redraws the answer's links in its colours and keeps the chosen citation.
        apply_theme(qapp, not dark)
        qtbot.wait(100)
        assert table.currentIndex().row() == 0 and bool(view.reference.toPlainText())
        shoot(win, f"chat-citations-800x600-{language}")
    finally:
        win.link.shutdown()
        set_language("en")
        apply_theme(qapp, False)


def test_a_tick_in_the_scope_never_moves_the_rows_under_the_pointer(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    """Ticking or unticking a library added or took away the line "Every library is selected
    …", the popup's rows moved 14 px, and the next click landed on the other library (a
    helper's try). The rows stay where they are while the popup is open."""
    for name in ("Alpha", "Beta", "Gamma"):
        make_library(handbook(), name=name, folder=name)
    view = window.chat_view
    window.top_tabs.setCurrentWidget(view)
    popover = view.popover
    qtbot.waitUntil(lambda: popover.list.count() == 3, timeout=10_000)
    view.show_scope()
    qtbot.waitUntil(popover.isVisible)
    qtbot.wait(300)  # the notes' answers (embedding model, vector indexes) have come back

    def row_top(i: int) -> int:
        rect = popover.list.visualItemRect(popover.list.item(i))
        return popover.list.viewport().mapToGlobal(rect.topLeft()).y()

    where = [row_top(i) for i in range(3)]
    for i in (0, 0, 1, 1):
        rect = popover.list.visualItemRect(popover.list.item(i))
        box = QtCore.QPoint(rect.left() + 8, rect.center().y())
        before = popover.list.item(i).checkState()
        qtbot.mouseClick(popover.list.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=box)
        qtbot.waitUntil(lambda i=i, b=before: popover.list.item(i).checkState() != b)
        qtbot.wait(100)
        assert [row_top(i) for i in range(3)] == where, "the rows moved"
    popover.hide()
