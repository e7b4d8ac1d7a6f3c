""" "Waiting for rebuild" beside the one "Rebuild library" button: "rebuilding" while a library
rebuild runs, and after a rebuild that skipped documents to keep their manual chunk work, how
many keep old chunks instead (short beside the button, so the vector line keeps its room at 800 px; the
whole sentence, naming the dialog's button that applies the settings to them, in the tooltip)."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.documents.manual_work import pending_sentence, wrapped_tip
from goodbuddy_kb.ui.i18n import tr


class PendingNotice(QtWidgets.QLabel):
    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pendingRebuild")
        self.hide()
        #: Whether the library rebuilds now, and the documents it kept on old chunks.
        self.rebuilding = False
        self.kept = 0
        self._say()

    def reset(self) -> None:
        """Another library: nothing of the one shown before."""
        self.rebuilding, self.kept = False, 0
        self._say()

    def show_rebuilding(self, running: bool) -> None:
        self.rebuilding = running
        self._say()

    def show_kept(self, documents: int) -> None:
        self.kept = documents
        self._say()

    def _say(self) -> None:
        mark = "⟳ "
        if self.rebuilding:
            text = whole = tr("detail.rebuilding")
        elif self.kept:
            # what is left after the rebuild, as the library's header says it: "⟳ Waiting for
            # rebuild" first read as if the rebuild had not run (a helper's try)
            mark, text = "ⓘ ", tr("detail.kept_short", n=self.kept)
            whole = pending_sentence(self.kept)
        else:
            text = whole = pending_sentence(0)
        self.setText(mark + text)
        self.setToolTip(wrapped_tip(whole) if whole != text else "")
