"""The workbench's selected result and the actions on it: view its chunk (in a Chunk tab of its own,
beside the search's context) and open its source (through the backend's opener, the outcome
said under the results)."""

from __future__ import annotations

import shiboken6

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.methods import REFERENCE_CONTEXT, REFERENCE_OPEN
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.reference_view import open_outcome, reference_html
from goodbuddy_kb.ui.widgets.source_opener import SourceOpener
from goodbuddy_kb.ui.widgets.table_model import RowsModel


class ResultActions:
    """Mixed into the workbench dialog, whose widgets these are."""

    link: BackendLink
    results: RowsModel[r.RetrievalResult]
    table: QtWidgets.QTableView
    tabs: QtWidgets.QTabWidget
    chunk_view: QtWidgets.QTextBrowser
    opened: QtWidgets.QLabel
    opener: SourceOpener

    def selected(self) -> r.RetrievalResult | None:
        return self.results.chosen(self.table)

    def _reference(self) -> r.ReferenceRequest | None:
        x = self.selected()
        return (
            r.ReferenceRequest(
                library_id=x.library_id, document_id=x.document_id, chunk_id=x.chunk_id
            )
            if x
            else None
        )

    def show_chunk(self) -> None:
        ref = self._reference()
        if ref is None:
            return
        # the line under the results tells how the last "Open source" went: a failure stayed
        # there while the person went on to view a chunk (a helper's try)
        self.opened.clear()

        def done(result: r.ReferenceContextResponse | None, error: KbError | None) -> None:
            if not shiboken6.isValid(self.tabs):
                return  # closed before the answer came (it raised in the callback)
            if self.tabs.indexOf(self.chunk_view) < 0:
                self.tabs.addTab(self.chunk_view, tr("workbench.chunk"))
            if result is None:
                self.chunk_view.setPlainText(say_error(error) if error else "")
            else:
                self.chunk_view.setHtml(reference_html(result))
            self.tabs.setCurrentWidget(self.chunk_view)

        self.link.call(REFERENCE_CONTEXT, ref, done)

    def _drop_chunk(self) -> None:
        at = self.tabs.indexOf(self.chunk_view)
        if at >= 0:
            self.tabs.removeTab(at)
            self.chunk_view.clear()

    def open_selected(self) -> None:
        ref, x = self._reference(), self.selected()
        if ref is None or x is None:
            return
        document = readable_path(x.document_path) or x.document_title
        locator = Locator.from_wire({**x.locator, "headingPath": x.heading_path})

        def done(_result: object, error: KbError | None) -> None:
            if not shiboken6.isValid(self.opened):
                return  # closed before the answer came
            # where the hit is in the file, in the person's language; when the opener is
            # missing, the offer to copy the path or show the folder as well
            self.opened.setText(open_outcome(document, locator, error))
            if error is not None:
                self.opener.failed(ref.library_id, ref.document_id, error)

        self.link.call(REFERENCE_OPEN, ref, done)
