"""What the welcome page's two actions do, through the backend: a chosen folder becomes a new
library named after it (its documents synced), or the sample library is made
(`knowledge:library:sample`: the backend copies the documents and syncs them; the GUI never
touches files)."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import system as y
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, LIBRARY_SAMPLE, SOURCE_ADD
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import language


class FirstRun(QtCore.QObject):
    #: A library was made (its id): the window selects it.
    library_made = QtCore.Signal(str)
    #: The sample library was made (its SampleLibraryResponse).
    sample_made = QtCore.Signal(object)
    #: Making a library failed (the KbError).
    failed = QtCore.Signal(object)

    def __init__(self, link: BackendLink, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._link = link

    def try_sample(self) -> None:
        def done(result: y.SampleLibraryResponse | None, error: KbError | None) -> None:
            if result is None:
                self.failed.emit(error)
                return
            self.sample_made.emit(result)
            self.library_made.emit(result.library.id)

        request = y.SampleLibraryRequest(language="zh" if language() == "zh" else "en")
        self._link.call(LIBRARY_SAMPLE, request, done)

    def add_folder(self, folder: str) -> None:
        name = Path(folder).name or folder

        def created(result: c.LibraryCreateResponse | None, error: KbError | None) -> None:
            if result is None:
                self.failed.emit(error)
                return
            library_id = result.library.id

            def added(answer: s.SourceAddResponse | None, problem: KbError | None) -> None:
                if answer is None:
                    self.failed.emit(problem)
                self.library_made.emit(library_id)  # made either way: the person sees it

            request = s.SourceAddRequest(library_id=library_id, kind="folder", location=folder)
            self._link.call(SOURCE_ADD, request, added)

        self._link.call(LIBRARY_CREATE, c.LibraryCreateRequest(name=name[:100]), created)
