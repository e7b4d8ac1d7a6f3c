"""Helpers for the GUI tests (plain functions; the fixtures are in ``conftest.py``): open a window
on a real backend, create a library through its dialog and import a folder of files into it, ask
the workbench, point the chat at a model and ask it, take screenshots, check that a screen reads
in Chinese."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from pytestqt.qtbot import QtBot

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    EMBEDDING_UPDATE,
    GRAPH_GET,
    GRAPH_UPDATE,
)
from goodbuddy_kb.contracts.tasks import FINISHED_STATES
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.chunks.dialog import ChunksDialog
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
#: The two fixture documents most GUI tests import: a Chinese policy and an English manual.
HANDBOOK = ("policy_zh.md", "manual_en.md")


class MakeLibrary(Protocol):
    """The ``make_library`` fixture's factory (see ``conftest.py``)."""

    def __call__(
        self,
        files: Mapping[str, str | bytes],
        *,
        win: MainWindow | None = None,
        name: str = "Handbook",
        folder: str = "docs",
        vectors: bool = True,
        before_import: Callable[[], None] | None = None,
    ) -> Path: ...


def handbook() -> dict[str, bytes]:
    return {name: (ROOT / "fixtures" / "chunking" / name).read_bytes() for name in HANDBOOK}


def open_window(qtbot: QtBot, data_dir: Path, language: str) -> MainWindow:
    set_language(language)
    link = BackendLink(data_dir)
    win = MainWindow(link)
    qtbot.addWidget(win)
    win.show()
    # after the first show, as a person would: shown first, it is fitted to the (800-pixel)
    # offscreen screen
    win.resize(1200, 800)
    with qtbot.waitSignal(link.connected, timeout=30_000):
        link.start()
    return win


def backend_client(win: MainWindow, name: str = "test") -> BlockingClient:
    """Another client of the window's backend (a second window, a script, an MCP tool)."""
    process = win.link.process
    assert process is not None
    return BlockingClient(process.endpoint.server_name, process.endpoint.secret, name).open()


def shoot(widget: QtWidgets.QWidget, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(ARTIFACTS / f"{name}.png"))


def create_library(qtbot: QtBot, win: MainWindow, name: str) -> None:
    """A new library through the window's name dialog; it becomes the current one."""
    win.new_library()
    dialog = win.name_dialog
    assert dialog is not None
    dialog.name_edit.setText(name)
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (library := win.current_library()) is not None and library.name == name,
        timeout=5_000,
    )


def library_with_folder(
    qtbot: QtBot,
    win: MainWindow,
    folder: Path,
    files: Mapping[str, str | bytes],
    *,
    name: str = "Handbook",
    vectors: bool = True,
    before_import: Callable[[], None] | None = None,
) -> Path:
    """A library created through its dialog, ``files`` written into ``folder`` and that folder
    added as its source; returns once every file is listed (and, with ``vectors``, vectorised).
    ``before_import`` runs between the two (e.g. to change the library's settings)."""
    create_library(qtbot, win, name)
    if before_import is not None:
        before_import()
    folder.mkdir()
    for relative, body in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    tab = win.documents_tab
    tab.add_source("folder", str(folder))
    # every file listed and read (a file being read is listed "running" already)
    qtbot.waitUntil(
        lambda: (
            tab.documents.rowCount() == len(files)
            and all(d.status.parse in ("done", "failed") for d in tab.documents.rows)
        ),
        timeout=20_000,
    )
    if vectors:
        qtbot.waitUntil(
            lambda: all(d.status.vector == "done" for d in tab.documents.rows), timeout=30_000
        )

        # and the vectorisation ended: a first version's documents are done as soon as it holds
        # their vectors, before it is checked and made current (a model changed in between
        # found the index still "building")
        def built() -> bool:
            rows = win.tasks_tab.model.rows
            vectorising = [r for r in rows if r.kind == "vectorize"]
            return bool(vectorising) and all(r.state in FINISHED_STATES for r in vectorising)

        qtbot.waitUntil(built, timeout=30_000)
    return folder


def create_library_with_folder(qtbot: QtBot, win: MainWindow, tmp_path: Path) -> None:
    """The "Handbook" library of the two fixture documents in ``tmp_path/docs``, vectorised."""
    library_with_folder(qtbot, win, tmp_path / "docs", handbook())


def ask(qtbot: QtBot, win: MainWindow, question: str) -> Any:
    qtbot.mouseClick(win.workbench_button, QtCore.Qt.MouseButton.LeftButton)
    bench = win.workbench
    assert bench is not None and bench.isVisible()
    assert bench.focusWidget() is bench.query, "focus lands in the query box"
    if not bench.results.rowCount():  # no result to act on yet: "View chunk" etc. are off
        assert not bench.view_chunk.isEnabled() and not bench.open_source.isEnabled()
    bench.query.setPlainText(question)  # QTest cannot type non-Latin-1 characters
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        qtbot.mouseClick(bench.run_button, QtCore.Qt.MouseButton.LeftButton)
    return bench


def wait_call(qtbot: QtBot, win: MainWindow, spec: Any, request: Any) -> Any:
    box: list[Any] = []
    win.link.call(
        spec, request, lambda result, error: box.append(result if error is None else error)
    )
    qtbot.waitUntil(lambda: bool(box), timeout=5_000)
    return box[0]


def use_embedding_service(qtbot: QtBot, win: MainWindow, base: str) -> None:
    """Set up a (loopback) OpenAI-compatible embedding service at ``base`` as the model."""
    connection = m.EmbeddingConnection(
        kind="openai-compatible", base_url=base, model="embed-small", dimensions=384
    )
    request = m.EmbeddingUpdateRequest(connection=connection, api_key="sk-test-0000000000")
    assert isinstance(wait_call(qtbot, win, EMBEDDING_UPDATE, request), m.EmbeddingInfo)


def idle(qtbot: QtBot, win: MainWindow) -> None:
    """Wait until the tasks tab lists tasks and none is queued or running."""
    tasks = win.tasks_tab
    tasks.refresh()
    qtbot.waitUntil(
        lambda: (
            bool(tasks.model.rows)
            and all(x.state not in ("queued", "running") for x in tasks.model.rows)
        ),
        timeout=60_000,
    )


def graph_off(qtbot: QtBot, win: MainWindow) -> None:
    """Turn the current library's graph off (a new library's is local): for tests of task
    runs that a graph extraction after each import or rebuild would interleave with."""
    library_id = win.current_library_id()
    assert library_id is not None
    info = wait_call(qtbot, win, GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    off = info.settings.model_copy(update={"strategy": "off"})
    wait_call(qtbot, win, GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=off))


def chat_with(qtbot: QtBot, win: MainWindow, base: str) -> None:
    wait_call(
        qtbot,
        win,
        CHAT_MODEL_UPDATE,
        c.ChatUpdateRequest(
            connection=c.ChatConnection(kind="openai-compatible", base_url=base, model="qwen2.5-7b")
        ),
    )
    win.top_tabs.setCurrentWidget(win.chat_view)


def searching_first(qtbot: QtBot, win: MainWindow, base: str) -> ChatView:
    """The chat tab talking to the loopback model at ``base``, its one library in scope (once
    the scope has it) and "Always retrieve first" chosen."""
    chat_with(qtbot, win, base)
    view = win.chat_view
    qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
    view.popover.always.setChecked(True)
    return view


def ask_chat(qtbot: QtBot, view: ChatView, question: str, timeout: int = 20_000) -> None:
    """Send ``question`` from the chat view and wait until its reply has finished."""
    view.input.setPlainText(question)  # QTest cannot type non-Latin-1 characters
    with qtbot.waitSignal(view.reply_finished, timeout=timeout):
        view.send()


#: Three Latin words in a row: a sentence, not a name.
SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,'’]+[A-Za-z]{2,}){2,}")
#: Data: paths, file names, addresses (anything with a slash or a dot inside a token).
DATA = re.compile(r"\S*[/\\.:]\S*[A-Za-z0-9]\S*")


def english_sentences(text: str) -> list[str]:
    text = DATA.sub(" ", html.unescape(re.sub(r"<[^>]+>", " ", text)))
    return SENTENCE.findall(text)


def visible_texts(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> list[str]:
    """What a person reads in ``root``: labels, buttons, titles, tabs, placeholders, tooltips,
    combo items, table headers and the non-data cells of tables (a label or text browser
    named "data" holds the documents' own words)."""
    return [text for _where, text in placed_texts(root, data_columns)]


def placed_texts(
    root: QtWidgets.QWidget, data_columns: dict[int, set[int]]
) -> list[tuple[str, str]]:
    """``visible_texts`` with where each was read (the widget's class, object and accessible
    names, and the table cell), so a failing look says which widget showed it."""
    texts: list[tuple[str, str]] = [("window title", root.windowTitle())]
    for w in [root, *root.findChildren(QtWidgets.QWidget)]:
        if not w.isVisibleTo(root):
            continue
        where = f"{type(w).__name__} {w.objectName()!r} {w.accessibleName()!r}"
        texts.append((f"{where} tooltip", w.toolTip()))
        if isinstance(w, QtWidgets.QLabel | QtWidgets.QAbstractButton):
            if w.objectName() != "data":  # (a label holding the documents' own words)
                texts.append((where, w.text()))
        elif isinstance(w, QtWidgets.QGroupBox):
            texts.append((where, w.title()))
        elif isinstance(w, QtWidgets.QLineEdit | QtWidgets.QPlainTextEdit):
            texts.append((where, w.placeholderText()))
        elif isinstance(w, QtWidgets.QComboBox):
            texts += [(where, w.itemText(i)) for i in range(w.count())]
        elif isinstance(w, QtWidgets.QTabWidget):
            texts += [(where, w.tabText(i)) for i in range(w.count())]
        elif isinstance(w, QtWidgets.QTextBrowser) and w.objectName() != "data":
            texts.append((where, w.toPlainText()))
        elif isinstance(w, QtWidgets.QTableView) and w.model() is not None:
            # (List views hold names people gave: libraries, conversations.)
            model = w.model()
            skip = data_columns.get(id(model), set())
            for col in range(model.columnCount(QtCore.QModelIndex())):
                header = model.headerData(col, QtCore.Qt.Orientation.Horizontal)
                texts.append((f"{where} header {col}", str(header or "")))
                if col in skip:
                    continue
                for row in range(min(model.rowCount(QtCore.QModelIndex()), 50)):
                    cell = model.index(row, col)
                    tip = model.data(cell, QtCore.Qt.ItemDataRole.ToolTipRole)
                    texts.append((f"{where} cell {row},{col}", str(model.data(cell) or "")))
                    texts.append((f"{where} cell {row},{col} tooltip", str(tip or "")))
    return texts


def assert_chinese(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> None:
    found = sorted(
        {(s, where) for where, t in placed_texts(root, data_columns) for s in english_sentences(t)}
    )
    assert not found, f"English sentences in the Chinese {root.__class__.__name__}: {found}"


def open_from_row(qtbot: QtBot, win: MainWindow, path: str) -> ChunksDialog:
    tab = win.documents_tab
    row = next(i for i, d in enumerate(tab.documents.rows) if d.path == path)
    tab.document_view.setFocus()
    tab.document_view.setCurrentIndex(tab.documents.index(row, 0))
    qtbot.keyClick(tab.document_view, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: tab.chunks_dialog is not None, timeout=5_000)
    dialog = tab.chunks_dialog
    assert dialog is not None
    qtbot.waitUntil(
        lambda: dialog.model.rowCount() > 0 and dialog.detail is not None, timeout=10_000
    )
    return dialog


KEY = QtCore.Qt.Key


MOD = QtCore.Qt.KeyboardModifier


def latin_words(text: str) -> list[str]:
    """Runs of two or more Latin letters (English words) in ``text``."""
    import re

    return re.findall(r"[A-Za-z]{2,}", text)
