"""The Documents & sources tab: sources with their actions, a paged document table with the
four stage statuses (text and symbol, never colour alone), filters and the library summary, and
the rebuild actions: per document (prominent where a retry can help), per library (one button,
beside "waiting for rebuild" when settings changed), and the vector index when the configured
model cannot use it. A file that cannot be read (corrupt, empty) offers what can help instead
of a retry: its reason in full, its folder, and removing it (``failed_file.py``)."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    SOURCE_LIST,
    VECTORS_STATUS,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chunks.dialog import ChunksDialog
from goodbuddy_kb.ui.documents import rebuild_actions
from goodbuddy_kb.ui.documents.bar import (
    DOCUMENT_WIDTH,
    SelectedDocumentBar,
    fit_document_columns,
)
from goodbuddy_kb.ui.documents.columns import (
    CHUNKS_COLUMN,
    DOCUMENT_COLUMNS,
    GRAPH_COLUMN,
    OCR_COLUMN,
    SOURCE_COLUMNS,
    reason,
    summary_text,
    vector_state_text,
)
from goodbuddy_kb.ui.documents.failed_file import FailedFileActions
from goodbuddy_kb.ui.documents.pending import PendingNotice
from goodbuddy_kb.ui.documents.row_actions import DocumentRowActions
from goodbuddy_kb.ui.documents.source_actions import SourceActions, dropped_sources
from goodbuddy_kb.ui.documents.tables import document_table, fit_sources, show_watch, source_table
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.tasks.follow import library_rebuild, manual_work_lost
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.pager import PagerWidget, page_text
from goodbuddy_kb.ui.widgets.table_model import RowsModel, follow_choice
from goodbuddy_kb.ui.widgets.theme import SPACE

PAGE = 100


class DocumentsTab(QtWidgets.QWidget):
    notice = QtCore.Signal(str)
    row_actions: DocumentRowActions

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id: str | None = None
        #: A document to select once its page arrives (the window was rebuilt around it).
        self.reselect: str | None = None
        self.offset = 0
        self.total = 0
        self.sources = RowsModel(SOURCE_COLUMNS, self)
        self.documents = RowsModel(DOCUMENT_COLUMNS, self)
        self.source_actions = SourceActions(
            self, link, lambda: self.library_id, self.current_source
        )
        self.source_actions.notice.connect(self.notice.emit)
        self._build()
        link.changed.connect(self._maybe_refresh)
        # Task progress moves the document rows and the vector line along while work runs.
        self._refresh_timer = QtCore.QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(1_000)
        self._refresh_timer.timeout.connect(self.refresh)
        link.task.connect(self._on_task)

    def _build_header(self) -> None:
        """The summary, the vector index line and "waiting for rebuild" above the tables."""
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName(tr("docs.filter"))
        self.vector_label = QtWidgets.QLabel()
        self.vector_label.setWordWrap(True)
        # "Waiting for rebuild" sits beside the one "Rebuild library" button (not a second one).
        self.pending_label = PendingNotice()
        self.rebuild_vectors_button = button("rebuild.vectors", self.rebuild_vectors)
        self.rebuild_vectors_button.hide()
        self.vector_info: m.VectorIndexInfo | None = None
        self.document_total = 0
        self.rebuild_box: QtWidgets.QMessageBox | None = None

    def _build_sources(self) -> QtWidgets.QHBoxLayout:
        """The sources table and its actions' row (returned, for the heading to join)."""
        self.source_view = source_table(self.sources)
        follow_choice(self.source_view, self._update_watch)
        # One "Add" button with its three kinds keeps the row within 800 px. A push button with
        # a menu draws its arrow in room of its own (a tool button's overlapped the text, and a
        # "▾" in the label made two arrows).
        self.add_button = QtWidgets.QPushButton(tr("sources.add"))
        self.add_button.setAccessibleName(tr("sources.add"))
        add_menu = QtWidgets.QMenu(self.add_button)
        sources = self.source_actions
        self.add_file = add_menu.addAction(tr("sources.add_file"), sources.add_file_source)
        self.add_folder = add_menu.addAction(tr("sources.add_folder"), sources.add_folder_source)
        self.add_web = add_menu.addAction(tr("sources.add_web"), sources.add_web_source)
        self.add_button.setMenu(add_menu)
        self.add_button.setToolTip(tr("sources.drop_hint"))
        self.sync_button = button("sources.sync", sources.sync_now)
        self.remove_button = button("sources.remove", sources.remove_source)
        self.rebuild_library_button = button("rebuild.library", self.rebuild_library)
        self.watch_box = QtWidgets.QCheckBox(tr("sources.watch"))
        self.watch_box.setAccessibleName(tr("sources.watch"))
        self.watch_box.setAccessibleDescription("switch")
        self.watch_box.toggled.connect(sources.set_watch)
        actions = QtWidgets.QHBoxLayout()
        for w in (
            self.add_button,
            self.sync_button,
            self.watch_box,
            self.remove_button,
        ):
            actions.addWidget(w)
        actions.addStretch(1)
        self._update_watch()  # nothing to sync, watch or remove until the sources come
        return actions

    def _build_documents(self) -> QtWidgets.QHBoxLayout:
        """The document table, its actions and the filter and pager row (returned)."""
        self.filter_box = QtWidgets.QComboBox()
        self.filter_box.setAccessibleName(tr("docs.filter"))
        for key in ("all", "failed", "vector_missing"):
            self.filter_box.addItem(tr(f"docs.filter.{key}"), key)
        self.filter_box.currentIndexChanged.connect(lambda _i: self.reload_documents(reset=True))
        self.document_view = document_table(self.documents)
        follow_choice(self.document_view, self._update_document_actions)
        self.rebuild_doc_button = button("rebuild.document", self.rebuild_current_document)
        self.rebuild_doc_button.setEnabled(False)
        # The row's context menu, in this order: view chunks, rebuild, then (row_actions) open
        # source, copy path and details.
        self.document_view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)
        self.document_view.activated.connect(lambda index: self._open_chunks_at(index.row()))
        self.view_chunks_button = button("docs.view_chunks", self.open_current_chunks)
        view_chunks = QtGui.QAction(tr("docs.view_chunks"), self.document_view)
        view_chunks.triggered.connect(self.open_current_chunks)
        self.document_view.addAction(view_chunks)
        rebuild_action = QtGui.QAction(tr("rebuild.document"), self.document_view)
        rebuild_action.setShortcut(QtGui.QKeySequence("Ctrl+R"))
        rebuild_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        rebuild_action.triggered.connect(self.rebuild_current_document)
        self.document_view.addAction(rebuild_action)
        self.open_source_button = button("doc.open_source", self.open_current_source)
        self.document_bar = SelectedDocumentBar([self.view_chunks_button, self.open_source_button])
        self._document_width = DOCUMENT_WIDTH
        self._reasons = False  # whether a document on the page has a reason to show
        self.document_view.installEventFilter(self)
        self.chunks_dialog: ChunksDialog | None = None
        # Arrows with their names as tooltips: the row keeps its actions within 800 px.
        self.pager = PagerWidget("docs.prev", "docs.next", arrows=True)
        self.pager.step.connect(self._page)
        paging = QtWidgets.QHBoxLayout()
        filter_label = QtWidgets.QLabel(tr("docs.filter"))
        filter_label.setBuddy(self.filter_box)
        paging.addWidget(filter_label)
        paging.addWidget(self.filter_box)
        paging.addWidget(self.rebuild_doc_button)
        paging.addStretch(1)
        paging.addWidget(self.pager)
        return paging

    def _build(self) -> None:
        self._build_header()
        actions = self._build_sources()
        paging = self._build_documents()
        # Sources above documents in a splitter; the document table gets most of the height.
        top = QtWidgets.QWidget()
        top_layout = QtWidgets.QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        heading = QtWidgets.QLabel(f"<b>{tr('sources.heading')}</b>")
        heading.setBuddy(self.source_view)
        actions.insertWidget(0, heading)
        top_layout.addLayout(actions)
        bottom = QtWidgets.QWidget()
        bottom_layout = QtWidgets.QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.setSpacing(SPACE // 2)
        self.split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(top)
        self.split.addWidget(bottom)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 4)
        self.split.setSizes([104, 546])
        self.setAcceptDrops(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(SPACE, SPACE, SPACE, SPACE)
        layout.setSpacing(SPACE // 2)
        layout.addWidget(self.summary)
        vector_row = QtWidgets.QHBoxLayout()
        vector_row.addWidget(self.vector_label, 1)
        vector_row.addWidget(self.rebuild_vectors_button)
        # A library-wide action sits with the library's index line (the sources row stays
        # within 800 px): the one "Rebuild library" of the window, with the notice beside it.
        vector_row.addWidget(self.pending_label)
        vector_row.addWidget(self.rebuild_library_button)
        layout.addLayout(vector_row)
        layout.addWidget(self.split, 1)
        top_layout.addWidget(self.source_view, 1)
        bottom_layout.addLayout(paging)
        bottom_layout.addWidget(self.document_view, 1)
        bottom_layout.addWidget(self.document_bar)
        self.row_actions = DocumentRowActions(
            self,
            self.document_view,
            self.documents,
            self.sources,
            self.link,
            lambda: self.library_id,
        )
        self.row_actions.notice.connect(self.notice.emit)
        self.failed_file = FailedFileActions(
            self, self.link, self.row_actions, lambda: self.library_id
        )
        self.failed_file.notice.connect(self.notice.emit)
        self.document_bar.add_buttons(self.failed_file.buttons)
        self._update_document_actions()

    def detach(self) -> None:
        """Stop following the backend (this tab is being replaced)."""
        self.link.changed.disconnect(self._maybe_refresh)
        self.link.task.disconnect(self._on_task)
        self._refresh_timer.stop()

    # -- sources -----------------------------------------------------------------------------
    def add_source(self, kind: c.SourceKind, location: str) -> None:
        """Add a source to the library shown (its documents follow as the backend reads them)."""
        self.source_actions.add_source(kind, location)

    def current_source(self) -> c.Source | None:
        return self.sources.chosen(self.source_view)

    def _update_watch(self) -> None:
        source = self.current_source()
        show_watch(self.watch_box, source, self.sources.rows)
        self.remove_button.setEnabled(source is not None)
        self.sync_button.setEnabled(bool(self.sources.rows))  # nothing to sync yet

    # Files and folders dropped on the pane become sources.
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if self.library_id is not None and dropped_sources(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:
        if self.library_id is not None and dropped_sources(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        if self.source_actions.add_dropped(event.mimeData()):
            event.acceptProposedAction()

    # -- data ------------------------------------------------------------------------------
    def show_library(self, library_id: str | None) -> None:
        if library_id != self.library_id:
            # nothing of the library shown before stays while this one's state loads
            self.vector_info = None
            self.vector_label.setText("")
            self.summary.setText("")
            self.rebuild_vectors_button.hide()
            self.pending_label.reset()
        self.library_id = library_id
        self.offset = 0
        self.refresh()

    def _maybe_refresh(self, params: dict[str, Any]) -> None:
        if params.get("externalCalls"):
            return  # the external-tool call record, nothing of this tab
        if self.library_id and (
            not params.get("libraryIds") or self.library_id in params.get("libraryIds", [])
        ):
            self.refresh()

    def _on_task(self, params: dict[str, Any]) -> None:
        if params.get("libraryId") != self.library_id:
            return
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()
        if (rebuilding := library_rebuild(params)) is not None:
            self.show_rebuilding(rebuilding)
        if (lost := manual_work_lost(params)) is not None:
            self.notice.emit(lost)

    def show_rebuilding(self, running: bool) -> None:
        """While a library rebuild runs, the notice says so instead of "waiting for rebuild"."""
        self.pending_label.show_rebuilding(running)

    def refresh(self) -> None:
        if self.library_id is None:
            self.sources.set_rows([])
            self.documents.set_rows([])
            self.summary.setText("")
            self._update_watch()
            return
        library_id = self.library_id

        def got_sources(result: c.SourceListResponse | None, error: KbError | None) -> None:
            if result is not None and library_id == self.library_id:
                current = self.current_source()
                self.sources.set_rows(result.sources)
                if current is not None:
                    row = next((i for i, s in enumerate(result.sources) if s.id == current.id), -1)
                    if row >= 0:
                        self.source_view.selectRow(row)
                self._update_watch()
                fit_sources(self.source_view, self.split)

        self.link.call(SOURCE_LIST, c.SourceListRequest(library_id=library_id), got_sources)
        self.link.call(
            VECTORS_STATUS,
            m.VectorStatusRequest(library_id=library_id),
            lambda result, _error: self._got_vectors(library_id, result),
        )
        self.reload_documents()

    def _got_vectors(self, library_id: str, result: m.VectorIndexInfo | None) -> None:
        # answers come back in any order: one for a library no longer shown is dropped
        if result is None or library_id != self.library_id:
            return
        self.vector_info = result
        self.rebuild_vectors_button.setVisible(rebuild_actions.incompatible(result))
        # pressed again while it runs, it queued a second full rebuild (a helper's try)
        self.rebuild_vectors_button.setEnabled(not result.vectorising)
        running = tr("rebuild.vectors.running") if result.vectorising else ""
        self.rebuild_vectors_button.setToolTip(running)
        self.vector_label.setText(vector_state_text(result))

    def reload_documents(self, reset: bool = False) -> None:
        if self.library_id is None:
            return
        if reset:
            self.offset = 0
        library_id = self.library_id
        request = c.DocumentListRequest(
            library_id=library_id,
            offset=self.offset,
            limit=PAGE,
            filter=self.filter_box.currentData() or "all",
        )

        def done(result: c.DocumentListResponse | None, error: KbError | None) -> None:
            if result is None or library_id != self.library_id:
                return
            # a refresh (a chunk switched off, a sync) keeps the document the person had
            # selected, and with it the row's actions
            shown = self.current_document()
            wanted = self.reselect or (shown.id if shown is not None else None)
            self.documents.set_rows(result.documents)
            self._fit_rows(result.documents)
            row = next((i for i, d in enumerate(result.documents) if d.id == wanted), -1)
            if row >= 0:
                self.reselect = None
                self.document_view.selectRow(row)
            self._update_document_actions()
            self.total = result.total
            self.document_total = result.summary.documents
            s = result.summary
            self.summary.setText(summary_text(s))
            self.pending_label.setVisible(s.settings_pending_rebuild)
            self.pending_label.show_kept(s.kept_old_chunks)
            self.rebuild_library_button.setEnabled(s.documents > 0)
            first = self.offset + 1 if result.total else 0
            last = self.offset + len(result.documents)
            self.pager.show_page(
                page_text(first, last, result.total),
                has_previous=self.offset > 0,
                has_next=self.offset + PAGE < result.total,
            )

        self.link.call(DOCUMENTS_LIST, request, done)

    def _page(self, step: int) -> None:
        self.offset = max(0, self.offset + step * PAGE)
        self.reload_documents()

    # -- chunks ------------------------------------------------------------------------------
    def open_chunks(self, doc: c.Document) -> ChunksDialog | None:
        """One document's chunk maintenance (from its row); the focus returns to the row after."""
        if self.library_id is None:
            return None
        row = next((i for i, d in enumerate(self.documents.rows) if d.id == doc.id), -1)
        dialog = ChunksDialog(self.link, self.library_id, doc.id, doc.path, self)
        dialog.notice.connect(self.notice.emit)
        dialog.finished.connect(lambda _r: self._chunks_closed(doc.id, row))
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.chunks_dialog = dialog
        dialog.open()
        return dialog

    def _chunks_closed(self, document_id: str, row: int) -> None:
        self.chunks_dialog = None
        rows = self.documents.rows
        row = next((i for i, d in enumerate(rows) if d.id == document_id), row)
        if 0 <= row < len(rows):
            self.document_view.setCurrentIndex(self.documents.index(row, 0))
            self.document_view.selectRow(row)
        self.window().activateWindow()
        self.document_view.setFocus()
        self.reload_documents()

    def _open_chunks_at(self, row: int) -> None:
        doc = self.documents.row_at(row)
        if doc is not None:
            self.open_chunks(doc)

    def open_current_source(self) -> None:
        self.row_actions.open_source()

    def open_current_chunks(self) -> None:
        doc = self.current_document()
        if doc is not None:
            self.open_chunks(doc)

    # -- rebuild -----------------------------------------------------------------------------
    def _fit_rows(self, docs: list[c.Document]) -> None:
        """The page's columns: the OCR one only where a document on the page needs OCR, the
        graph one only where the library builds a graph (room for the reason at 800 px); the
        statuses take what they need, the reason gets the rest."""
        self.document_view.setColumnHidden(OCR_COLUMN, not any(doc.ocr is not None for doc in docs))
        # (an empty page says nothing of the graph: a new library's is on, its column shown)
        graph_off = bool(docs) and all(doc.status.graph == "disabled" for doc in docs)
        self.document_view.setColumnHidden(GRAPH_COLUMN, graph_off)
        for column in range(len(DOCUMENT_COLUMNS) - 1):
            if column != CHUNKS_COLUMN:  # fit_columns sizes it, or hides it where room is short
                self.document_view.resizeColumnToContents(column)
        self._document_width = min(max(self.document_view.columnWidth(0), DOCUMENT_WIDTH), 320)
        self._reasons = any(reason(doc) for doc in docs)
        self.fit_columns()

    def fit_columns(self) -> None:
        view, width = self.document_view, self._document_width
        fit_document_columns(view, len(DOCUMENT_COLUMNS) - 1, width, CHUNKS_COLUMN, self._reasons)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.document_view and event.type() == QtCore.QEvent.Type.Resize:
            QtCore.QTimer.singleShot(0, self.fit_columns)
        return super().eventFilter(watched, event)

    def current_document(self) -> c.Document | None:
        return self.documents.chosen(self.document_view)

    def _update_document_actions(self) -> None:
        doc = self.current_document()
        self.rebuild_doc_button.setEnabled(doc is not None)
        self.view_chunks_button.setEnabled(doc is not None)
        # A file that could not be read has no chunk to view: its line offers what can help.
        self.view_chunks_button.setHidden(
            doc is not None and rebuild_actions.unreadable(doc) and not doc.chunk_count
        )
        failed = doc is not None and rebuild_actions.is_failed(doc)
        self.rebuild_doc_button.setText(
            tr("rebuild.document.retry" if failed else "rebuild.document")
        )
        self.document_bar.show_document(doc, reason(doc) if doc is not None else "")
        self.open_source_button.setEnabled(doc is not None)
        self.open_source_button.setToolTip(tr("doc.open_source.tip"))
        self.failed_file.show_for(doc)

    def rebuild_document(self, doc: c.Document) -> None:
        rebuild_actions.rebuild_document(self, self.link, doc, self.notice.emit, self._ask)

    def _ask(self, box: QtWidgets.QMessageBox) -> None:
        self.rebuild_box = box

    def rebuild_current_document(self) -> None:
        doc = self.current_document()
        if doc is not None:
            self.rebuild_document(doc)

    def rebuild_library(self) -> None:
        if self.library_id is None:
            return
        self.rebuild_box = rebuild_actions.confirm_library_rebuild(
            self, self.link, self.library_id, self.document_total, self.notice.emit
        )

    def rebuild_vectors(self) -> None:
        if self.library_id is None or self.vector_info is None:
            return
        self.rebuild_box = rebuild_actions.confirm_vector_rebuild(
            self, self.link, self.library_id, self.vector_info, self.notice.emit
        )
