"""Screenshot sweep (``make screenshots``): every main screen and dialog of the real GUI over a
real backend, at 800×600 and 1400×900, light and dark, zh-CN and en, into one folder.

It builds a temporary data directory with one library (the chunking fixtures, an empty file and
a binary file, so failures show), asks the workbench one question, the chat one evidence-only
question, and opens each dialog. Nothing touches the user's own data or settings.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots.py [OUT_DIR]
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="goodbuddy-shots-config-")
os.environ.setdefault("GOODBUDDY_DEFAULT_EMBEDDING", "deterministic")

from goodbuddy_kb.contracts import graph as g  # noqa: E402
from goodbuddy_kb.contracts import library as lib  # noqa: E402
from goodbuddy_kb.contracts import sources as src  # noqa: E402
from goodbuddy_kb.contracts.methods import (  # noqa: E402
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    SOURCE_ADD,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets  # noqa: E402
from goodbuddy_kb.ui.app import install_qt_translations  # noqa: E402
from goodbuddy_kb.ui.backend_link import BackendLink  # noqa: E402
from goodbuddy_kb.ui.i18n import set_language  # noqa: E402
from goodbuddy_kb.ui.mainwindow.window import MainWindow  # noqa: E402
from goodbuddy_kb.ui.widgets.theme import apply_theme  # noqa: E402

SIZES = ((800, 600), (1400, 900))


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the GUI did not get there in time")
        QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)


def settle(ms: int = 150) -> None:
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QtWidgets.QApplication.processEvents()
        time.sleep(0.01)


def call(win: MainWindow, spec: Any, request: Any) -> Any:
    box: list[Any] = []
    win.link.call(spec, request, lambda result, error: box.append((result, error)))
    wait_until(lambda: bool(box))
    result, error = box[0]
    if error is not None:
        raise RuntimeError(error.message)
    return result


def prepare(win: MainWindow, work: Path) -> None:
    """One library with good and failing documents, selected."""
    folder = work / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("policy_zh.md", "manual_en.md"):
        (folder / name).write_bytes((ROOT / "fixtures" / "chunking" / name).read_bytes())
    (folder / "empty.md").write_bytes(b"")
    (folder / "blob.txt").write_bytes(bytes(range(256)) * 8)
    created = call(win, LIBRARY_CREATE, lib.LibraryCreateRequest(name="员工手册 Handbook"))
    library_id = created.library.id
    win.refresh(select_id=library_id)
    wait_until(lambda: win.current_library_id() == library_id)
    call(
        win,
        SOURCE_ADD,
        src.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder)),
    )
    tab = win.documents_tab
    wait_until(lambda: tab.documents.rowCount() == 4, 60)
    wait_until(lambda: sum(d.status.vector == "done" for d in tab.documents.rows) == 2, 60)
    # the knowledge graph on (local) and extracted, for the graph tab's screens
    info = call(win, GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    settings = info.settings.model_copy(update={"strategy": "local"})
    call(win, GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))
    call(win, GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    graph = win.graph_tab
    wait_until(lambda: graph.state.task is not None and graph.state.task.state == "completed", 60)
    wait_until(lambda: graph.entity_list.entities.rowCount() > 0, 30)


#: The library of each window whose knowledge graph the graph screens show.
GRAPH_LIBRARY: dict[int, str] = {}


def prepare_graph(win: MainWindow) -> None:
    """A second library of organisation documents (the graph part of the eval fixtures: who
    owns, approves, belongs to what) with its local knowledge graph extracted, so the graph
    tab's picture shows a real neighbourhood. Made at the first graph screen."""
    folder = Path(tempfile.mkdtemp(prefix="goodbuddy-shots-graph-"))
    atexit.register(shutil.rmtree, folder, True)
    for path in sorted((ROOT / "fixtures" / "eval-graph" / "corpus").glob("*/graph-*.md")):
        (folder / f"{path.parent.name}-{path.name}").write_bytes(path.read_bytes())
    created = call(win, LIBRARY_CREATE, lib.LibraryCreateRequest(name="组织与系统 Organisation"))
    library_id = GRAPH_LIBRARY[id(win)] = created.library.id
    win.refresh(select_id=library_id)
    wait_until(lambda: win.current_library_id() == library_id)
    call(
        win,
        SOURCE_ADD,
        src.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder)),
    )
    tab = win.documents_tab
    wait_until(lambda: tab.documents.rowCount() == len(list(folder.iterdir())), 60)
    wait_until(lambda: all(d.status.fulltext == "done" for d in tab.documents.rows), 60)
    info = call(win, GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    settings = info.settings.model_copy(update={"strategy": "local"})
    call(win, GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))
    call(win, GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    graph = win.graph_tab
    wait_until(lambda: graph.state.task is not None and graph.state.task.state == "completed", 60)
    wait_until(lambda: graph.entity_list.entities.rowCount() > 0, 30)


def graph_screens(win: MainWindow, out: Path, tag: str) -> list[str]:
    """The Knowledge graph tab: the entity panel, the neighbourhood picture, and its dialogs."""
    tab = win.graph_tab
    back = win.current_library_id()
    if id(win) not in GRAPH_LIBRARY:
        prepare_graph(win)
    graph_library = GRAPH_LIBRARY[id(win)]
    win.refresh(select_id=graph_library)
    wait_until(lambda: win.current_library_id() == graph_library)
    win.tabs.setCurrentWidget(tab)
    # the entity with the largest neighbourhood: 财务共享中心 (owns, approves, located in)
    wait_until(lambda: any(e.name == "财务共享中心" for e in tab.entity_list.entities.rows), 30)
    tab.entity_list.list_view.selectRow(
        [e.name for e in tab.entity_list.entities.rows].index("财务共享中心")
    )
    wait_until(lambda: tab.state.detail is not None and len(tab.picture.nodes) > 1, 30)
    tab.sides.setCurrentIndex(0)
    grab(win, out, f"graph-{tag}")
    tab.sides.setCurrentIndex(1)
    grab(win, out, f"graph-picture-{tag}")
    tab.sides.setCurrentIndex(0)
    tab.edits.open_ontology()
    grab(tab.dialog, out, f"graph-ontology-{tag}")  # type: ignore[arg-type]
    close_box(tab.dialog)
    tab.edits.open_settings()
    grab(tab.dialog, out, f"graph-settings-{tag}")  # type: ignore[arg-type]
    close_box(tab.dialog)
    if back is not None:
        win.refresh(select_id=back)
        wait_until(lambda: win.current_library_id() == back)
    return [
        f"graph-{tag}",
        f"graph-picture-{tag}",
        f"graph-ontology-{tag}",
        f"graph-settings-{tag}",
    ]


def grab(widget: QtWidgets.QWidget, out: Path, name: str) -> None:
    settle()
    widget.grab().save(str(out / f"{name}.png"))


def close_box(box: QtWidgets.QDialog | None) -> None:
    if box is not None:
        box.reject()
        box.close()
        settle(50)


def sweep(app: QtWidgets.QApplication, language: str, out: Path, work: Path) -> list[str]:
    set_language(language)
    translators = install_qt_translations(app, language)
    link = BackendLink(work / f"data-{language}")
    win = MainWindow(link)
    win.resize(*SIZES[0])
    win.show()
    link.start()
    wait_until(lambda: link.alive, 60)
    names: list[str] = []
    try:
        prepare(win, work / language)
        # The chat: one evidence-only question (no chat model configured).
        win.top_tabs.setCurrentWidget(win.chat_view)
        view = win.chat_view
        wait_until(lambda: len(view.selected) == 1)
        view.popover.always.setChecked(True)  # retrieve first: the answer cites its sources
        view.input.setPlainText(
            "年假怎么结转？" if language == "zh" else "How does leave carry over?"
        )
        view.send()
        wait_until(lambda: view.request_id is None and len(view.messages) >= 2, 60)
        if view.citations.rowCount():
            view.citation_view.selectRow(0)
            view.expand_citation()
            wait_until(lambda: bool(view.reference.toPlainText()))
        win.top_tabs.setCurrentIndex(0)
        for dark in (False, True):
            apply_theme(app, dark)
            look = "dark" if dark else "light"
            for width, height in SIZES:
                tag = f"{width}x{height}-{look}-{language}"
                win.resize(width, height)
                win.top_tabs.setCurrentIndex(0)
                for page, screen in (
                    (win.documents_tab, "documents"),
                    (win.tasks_tab, "tasks"),
                    (win.settings_tab, "settings"),
                ):
                    win.tabs.setCurrentWidget(page)
                    grab(win, out, f"{screen}-{tag}")
                    names.append(f"{screen}-{tag}")
                names += graph_screens(win, out, tag)
                win.tabs.setCurrentIndex(0)
                win.detail.details_button.setChecked(True)
                grab(win, out, f"documents-summary-open-{tag}")
                names.append(f"documents-summary-open-{tag}")
                win.detail.details_button.setChecked(False)
                win.top_tabs.setCurrentWidget(win.chat_view)
                grab(win, out, f"chat-{tag}")
                names.append(f"chat-{tag}")
                win.chat_view.show_scope()
                grab(win.chat_view.popover, out, f"chat-scope-{tag}")
                names.append(f"chat-scope-{tag}")
                win.chat_view.popover.hide()
                win.top_tabs.setCurrentIndex(0)
                names += dialogs(win, out, tag, width, height)
                names += file_choosers(win, out, tag, work / language / "docs")
                names += more_dialogs(win, out, tag, width, height)
    finally:
        link.shutdown()
        win.close()
        win.deleteLater()
        for translator in translators:
            app.removeTranslator(translator)
        settle(200)
    return names


def dialogs(win: MainWindow, out: Path, tag: str, width: int, height: int) -> list[str]:
    names = []
    win.open_workbench()
    bench = win.workbench
    assert bench is not None
    bench.resize(width, height)
    bench.query.setPlainText("年假怎么结转")
    bench.run()
    wait_until(lambda: bench.request_id is None and bench.response is not None, 30)
    grab(bench, out, f"workbench-{tag}")
    bench.tabs.setCurrentWidget(bench.diagnostics)
    grab(bench, out, f"workbench-diagnostics-{tag}")
    bench.tabs.setCurrentWidget(bench.preview)
    bench.query.setPlainText("量子色动力学渐近自由")
    bench.run()
    wait_until(lambda: bench.request_id is None and "…" not in bench.status.text(), 30)
    grab(bench, out, f"workbench-other-{tag}")
    names += [f"workbench-{tag}", f"workbench-diagnostics-{tag}", f"workbench-other-{tag}"]
    close_box(bench)
    win.open_connections()
    dialog = win.connections
    assert dialog is not None
    settle(300)
    dialog.resize(min(dialog.sizeHint().width(), width), min(dialog.sizeHint().height(), height))
    grab(dialog, out, f"connections-{tag}")
    names.append(f"connections-{tag}")
    for index, page in ((1, "chat"), (2, "rerank")):  # every page of the dialog
        dialog.pages.setCurrentIndex(index)
        grab(dialog, out, f"connections-{page}-{tag}")
        names.append(f"connections-{page}-{tag}")
    close_box(dialog)
    win.new_library()
    grab(win.name_dialog, out, f"new-library-{tag}")  # type: ignore[arg-type]
    names.append(f"new-library-{tag}")
    close_box(win.name_dialog)
    win.delete_library()
    grab(win.delete_box, out, f"delete-library-{tag}")  # type: ignore[arg-type]
    names.append(f"delete-library-{tag}")
    close_box(win.delete_box)
    tab = win.documents_tab
    tab.source_view.selectRow(0)
    tab.source_actions.remove_source()
    grab(tab.source_actions.remove_box, out, f"remove-source-{tag}")  # type: ignore[arg-type]
    names.append(f"remove-source-{tag}")
    close_box(tab.source_actions.remove_box)
    failed = next((i for i, d in enumerate(tab.documents.rows) if d.error), 0)
    tab.document_view.selectRow(failed)
    tab.row_actions.show_details()
    grab(tab.row_actions.details_box, out, f"document-details-{tag}")  # type: ignore[arg-type]
    names.append(f"document-details-{tag}")
    close_box(tab.row_actions.details_box)
    return names


def file_choosers(win: MainWindow, out: Path, tag: str, folder: Path) -> list[str]:
    """Add file… and Add folder…: Qt's widget file dialog (the one offscreen and Xvfb use)."""
    tab = win.documents_tab
    names = []
    for kind, choose in (
        ("file", tab.source_actions.add_file_source),
        ("folder", tab.source_actions.add_folder_source),
    ):
        choose()
        dialog = tab.source_actions.folder_dialog
        assert dialog is not None
        dialog.setDirectory(str(folder if kind == "file" else folder.parent))
        dialog.resize(760, 460)
        settle(400)  # the folder is listed in the background
        grab(dialog, out, f"add-{kind}-{tag}")
        names.append(f"add-{kind}-{tag}")
        close_box(dialog)
    return names


def more_dialogs(win: MainWindow, out: Path, tag: str, width: int, height: int) -> list[str]:
    """The chunk view of a document, Settings → Diagnostics and Settings → External AI tools,
    each at its own size within the window's."""
    tab = win.documents_tab
    doc = next(d for d in tab.documents.rows if d.path.endswith("policy_zh.md"))
    chunks = tab.open_chunks(doc)
    assert chunks is not None
    chunks.resize(min(1100, width), min(700, height))
    wait_until(lambda: chunks.model.rowCount() > 0, 30)
    chunks.table.selectRow(0)
    grab(chunks, out, f"chunks-{tag}")
    close_box(chunks)
    win.open_diagnostics()
    diagnostics = win.diagnostics
    assert diagnostics is not None
    diagnostics.resize(min(820, width), min(560, height))
    settle(800)
    grab(diagnostics, out, f"diagnostics-{tag}")
    close_box(diagnostics)
    win.open_external_tools()
    tools = win.external_tools
    assert tools is not None
    tools.resize(min(800, width), min(820, height))
    settle(800)
    grab(tools, out, f"external-tools-{tag}")
    close_box(tools)
    return [f"chunks-{tag}", f"diagnostics-{tag}", f"external-tools-{tag}"]


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "artifacts" / "screens").resolve()
    out.mkdir(parents=True, exist_ok=True)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    assert isinstance(app, QtWidgets.QApplication)
    names: list[str] = []
    with tempfile.TemporaryDirectory(prefix="goodbuddy-shots-") as tmp:
        for language in ("zh", "en"):
            names += sweep(app, language, out, Path(tmp))
    print(f"{len(names)} screenshots in {out}")
    for name in names:
        print(f"  {name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
