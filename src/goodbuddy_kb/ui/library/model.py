"""The library list as a Qt item model (no widgets), fed from `knowledge:library:list`."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts.library import Library
from goodbuddy_kb.qt.widgets import QtCore

LIBRARY_ID_ROLE = int(QtCore.Qt.ItemDataRole.UserRole) + 1


class LibraryListModel(QtCore.QAbstractListModel):
    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._libraries: list[Library] = []

    def rowCount(
        self,
        parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = QtCore.QModelIndex(),  # noqa: B008
    ) -> int:
        return 0 if parent.isValid() else len(self._libraries)

    def data(
        self,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._libraries):
            return None
        library = self._libraries[index.row()]
        if role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.AccessibleTextRole):
            return library.name
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return library.name
        if role == LIBRARY_ID_ROLE:
            return library.id
        return None

    def library_at(self, row: int) -> Library | None:
        return self._libraries[row] if 0 <= row < len(self._libraries) else None

    def row_of(self, library_id: str) -> int:
        for row, library in enumerate(self._libraries):
            if library.id == library_id:
                return row
        return -1

    def set_libraries(self, libraries: list[Library]) -> None:
        self.beginResetModel()
        self._libraries = list(libraries)
        self.endResetModel()
