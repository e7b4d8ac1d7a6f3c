"""The selected library's header above its tabs: its name, when it was made, "waiting for
rebuild" (the one "Rebuild library" button is on the Documents tab), and its retrieval and
chunking settings on demand."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import TASKS_LIST, VECTORS_STATUS
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.columns import vector_state_text
from goodbuddy_kb.ui.documents.manual_work import pending_sentence, wrapped_tip
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.tasks.follow import library_rebuild
from goodbuddy_kb.ui.widgets.eliding_label import ElidingLabel


class LibraryDetailWidget(QtWidgets.QWidget):
    """The header of the library shown (or, with none, the words for an empty list)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = ElidingLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.created = QtWidgets.QLabel()
        self.created.setObjectName("muted")
        self.created.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        # The settings summary is details on demand: the tables below get the height.
        # a push button, as high as "Test retrieval" beside it (a tool button stood taller)
        self.details_button = QtWidgets.QPushButton()
        self.details_button.setText(tr("detail.show"))
        self.details_button.setAccessibleName(tr("detail.show"))
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle_details)
        # Short in the header (the name and date keep their room at 800 px); the whole
        # sentence in its tooltip and beside the one "Rebuild library" button.
        self.pending = QtWidgets.QLabel("⟳ " + tr("detail.pending_short"))
        self.pending.setToolTip(tr("detail.pending_rebuild"))
        self.pending.setAccessibleName(tr("detail.pending_rebuild"))
        self.pending.setObjectName("pendingRebuild")
        self.retrieval = QtWidgets.QLabel()
        self.chunking = QtWidgets.QLabel()
        #: The embedding model and whether the library's index matches it (a helper looked for
        #: the model here and found only retrieval and chunking)
        self.vectors = QtWidgets.QLabel()
        for label in (self.retrieval, self.chunking, self.vectors):
            label.setWordWrap(True)
            label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty = QtWidgets.QLabel(tr("libraries.empty"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        line = QtWidgets.QHBoxLayout()
        # the name takes the room it needs and gives way first (ending in "…") when the line
        # is short, before the date and the buttons are cut off
        line.addWidget(self.title)
        line.addWidget(self.created)
        line.addWidget(self.pending)
        line.addStretch(1)
        line.addWidget(self.details_button)
        layout.addLayout(line)
        heading_r = QtWidgets.QLabel(f"<b>{tr('detail.retrieval')}</b>")
        heading_c = QtWidgets.QLabel(f"<b>{tr('detail.chunking')}</b>")
        self.details = QtWidgets.QWidget()
        grid = QtWidgets.QFormLayout(self.details)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addRow(heading_r, self.retrieval)
        grid.addRow(heading_c, self.chunking)
        grid.addRow(QtWidgets.QLabel(f"<b>{tr('detail.vectors')}</b>"), self.vectors)
        self.details.hide()
        layout.addWidget(self.details)
        self._shown: str | None = None
        #: Documents the last rebuild kept on old chunks (for their manual work), and whether
        #: a rebuild of the library shown runs now.
        self._kept = 0
        self._running = False
        self._link: BackendLink | None = None
        self._library_widgets = [self.title, self.created, self.details_button]
        self.show_library(None)

    def show_library(self, library: c.Library | None) -> None:
        self.empty.setVisible(library is None)
        for widget in self._library_widgets:
            widget.setVisible(library is not None)
        self.details.setVisible(library is not None and self.details_button.isChecked())
        if library is None:
            self.pending.hide()
            return
        self.title.setText(library.name)
        self.created.setText(tr("detail.created", when=library.created_at[:16].replace("T", " ")))
        self.pending.setVisible(library.settings_pending_rebuild)
        if self._shown != library.id:
            self._running = False  # another library's rebuild is not this one's
            self.retrieval.setText("…")
            self.chunking.setText("…")
            self.vectors.setText("…")
            self._ask_rebuilding(library.id)
        self._kept = library.kept_old_chunks
        self._say_pending()
        self._shown = library.id
        self._ask_vectors()

    def follow_rebuilds(self, link: BackendLink) -> None:
        """Follow the task notifications: while the library shown rebuilds, say so."""
        self._link = link
        link.task.connect(self._on_task)

    def _ask_rebuilding(self, library_id: str) -> None:
        """Whether a rebuild of the library just shown is at work: its next report may be seconds
        away (the header read "Waiting for rebuild" under a bar at 16/30; a helper's try)."""
        if self._link is None:
            return

        def listed(result: t.TaskListResponse | None, _error: object) -> None:
            if result is None or self._shown != library_id:
                return
            if any(library_rebuild(task.model_dump(by_alias=True)) for task in result.tasks):
                self.show_rebuilding(True)

        self._link.call(TASKS_LIST, t.TaskListRequest(library_id=library_id, limit=20), listed)

    def _on_task(self, params: dict[str, Any]) -> None:
        if params.get("libraryId") == self._shown and params.get("state") in t.FINISHED_STATES:
            self._ask_vectors()  # a vectorisation or rebuild ended: the index may match now
        rebuilding = library_rebuild(params)
        if rebuilding is not None and params.get("libraryId") == self._shown:
            self.show_rebuilding(rebuilding)

    def show_rebuilding(self, running: bool) -> None:
        """While a library rebuild runs, "waiting for rebuild" says that it is rebuilding."""
        self._running = running
        self._say_pending()

    def _say_pending(self) -> None:
        """ "Rebuilding", or "waiting for rebuild" — and, after a rebuild that skipped documents
        to keep their manual chunk work, how many still keep old chunks and what to do."""
        mark = "⟳ "
        if self._running:
            short, whole = tr("detail.rebuilding_short"), tr("detail.rebuilding")
        elif self._kept:
            # after a rebuild that skipped documents, "⟳ Waiting for rebuild" read as if the
            # rebuild had not run (a helper's try): the header says what is left, not a spinner
            mark = "ⓘ "
            short, whole = tr("detail.kept_short", n=self._kept), pending_sentence(self._kept)
        else:
            short, whole = tr("detail.pending_short"), pending_sentence(self._kept)
        self.pending.setText(mark + short)
        self.pending.setToolTip(wrapped_tip(whole))
        self.pending.setAccessibleName(whole)

    def _toggle_details(self, on: bool) -> None:
        self.details.setVisible(on)
        self.details_button.setText(tr("detail.hide" if on else "detail.show"))
        self._ask_vectors()

    def _ask_vectors(self) -> None:
        """The embedding model line, asked while the summary shows (answers for a library no
        longer shown are dropped)."""
        library_id = self._shown
        if self._link is None or library_id is None or not self.details.isVisibleTo(self):
            return

        def got(result: m.VectorIndexInfo | None, _error: object) -> None:
            if result is not None and library_id == self._shown:
                self.vectors.setText(vector_state_text(result))

        self._link.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id), got)

    def show_settings(self, settings: c.LibrarySettings) -> None:
        r, k = settings.retrieval, settings.chunking
        self.retrieval.setText(
            tr(
                "detail.retrieval.summary",
                top_k=r.top_k,
                # what decides "nothing relevant enough" (it was left out of the summary)
                floor=f"{r.minimum_relevance:g}",
                fts=r.fts_weight,
                vector=r.vector_weight,
                graph=r.graph_weight,
                context=f"{r.context_max_characters:,}",
            )
        )
        self.chunking.setText(
            tr(
                "detail.chunking.summary",
                mode=tr(f"mode.{k.mode}"),
                target=f"{k.target_characters:,}",
                overlap=f"{k.overlap_characters:,}",
            )
            # the title prefix changes what every chunk's index holds (it was left out)
            + (" · " + tr("field.contextualIndexing") if settings.contextual_indexing else "")
        )
        self.pending.setVisible(settings.settings_pending_rebuild)
        if settings.library_id == self._shown:
            self._kept = settings.kept_old_chunks
            self._say_pending()
