"""A read-only table model over a list of contract objects, with columns declared once.

Views page through large libraries by asking the backend for one page at a time; the model
holds only that page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.qtw import QtCore, QtWidgets

Row = TypeVar("Row")


@dataclass(frozen=True)
class Column(Generic[Row]):
    header_key: str
    text: Callable[[Row], str]
    tooltip: Callable[[Row], str] | None = None


class RowsModel(QtCore.QAbstractTableModel, Generic[Row]):
    def __init__(
        self, columns: Sequence[Column[Row]], parent: QtCore.QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._rows: list[Row] = []

    def rowCount(self, parent: Any = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Any = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Any, role: int = int(QtCore.Qt.ItemDataRole.DisplayRole)) -> Any:
        if (
            not index.isValid()
            or not 0 <= index.row() < len(self._rows)
            or not 0 <= index.column() < len(self._columns)
        ):
            return None
        row, column = self._rows[index.row()], self._columns[index.column()]
        if role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.AccessibleTextRole):
            return column.text(row)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(row)
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = int(QtCore.Qt.ItemDataRole.DisplayRole)
    ) -> Any:
        if role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == QtCore.Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            return tr(self._columns[section].header_key)
        if orientation == QtCore.Qt.Orientation.Vertical:
            return section + 1
        return None

    def set_rows(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    @property
    def rows(self) -> list[Row]:
        return list(self._rows)


def fit_columns(
    view: QtWidgets.QTableView, stretch: int, wide: dict[int, int] | None = None
) -> None:
    """Short columns as wide as they read, ``wide`` ones at a set width, ``stretch`` takes
    the rest: no sideways scrolling at 800 px."""
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    header.setMinimumSectionSize(36)
    for column in range(view.model().columnCount()):
        if column == stretch:
            mode = QtWidgets.QHeaderView.ResizeMode.Stretch
        elif wide and column in wide:
            mode = QtWidgets.QHeaderView.ResizeMode.Interactive
            header.resizeSection(column, wide[column])
        else:
            mode = QtWidgets.QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)
