"""Fixtures of the GUI tests: a window on a real backend, a library with a folder, and
``make_library(files)``, the one way a test makes a library of its own files."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ui.helpers import MakeLibrary, handbook, library_with_folder, open_window


@pytest.fixture
def window(qtbot: QtBot, data_dir: Path) -> Iterator[MainWindow]:
    """The main window in English on a real backend process, shut down afterwards."""
    win = open_window(qtbot, data_dir, "en")
    yield win
    win.link.shutdown()
    set_language("en")


@pytest.fixture
def make_library(request: pytest.FixtureRequest, qtbot: QtBot, tmp_path: Path) -> MakeLibrary:
    """``make_library(files)``: a library (through its dialog) whose folder ``tmp_path/<folder>``
    holds ``files`` (name → text or bytes), imported and vectorised; in the ``window`` fixture's
    window unless ``win`` is given. Returns the folder."""

    def make(
        files: Mapping[str, str | bytes],
        *,
        win: MainWindow | None = None,
        name: str = "Handbook",
        folder: str = "docs",
        vectors: bool = True,
        before_import: Callable[[], None] | None = None,
    ) -> Path:
        target: Any = win if win is not None else request.getfixturevalue("window")
        return library_with_folder(
            qtbot,
            target,
            tmp_path / folder,
            files,
            name=name,
            vectors=vectors,
            before_import=before_import,
        )

    return make


@pytest.fixture
def library(window: MainWindow, make_library: MakeLibrary) -> MainWindow:
    """The window with the "Handbook" library: the two fixture documents, vectorised."""
    make_library(handbook())
    return window
