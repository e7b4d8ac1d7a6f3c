"""A read-only table model over a list of contract objects, with columns declared once.

Views page through large libraries by asking the backend for one page at a time; the model
holds only that page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import tr

Row = TypeVar("Row")


@dataclass(frozen=True)
class Column(Generic[Row]):
    header_key: str
    text: Callable[[Row], str]
    tooltip: Callable[[Row], str] | None = None


class RowsModel(QtCore.QAbstractTableModel, Generic[Row]):
    def __init__(
        self,
        columns: Sequence[Column[Row]],
        parent: QtCore.QObject | None = None,
        muted: Callable[[Row], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._rows: list[Row] = []
        #: Rows drawn in the palette's disabled text colour (listed, but not what they seem).
        self._muted = muted

    def rowCount(
        self,
        parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = QtCore.QModelIndex(),  # noqa: B008
    ) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(
        self,
        parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = QtCore.QModelIndex(),  # noqa: B008
    ) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(
        self,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        if (
            not index.isValid()
            or not 0 <= index.row() < len(self._rows)
            or not 0 <= index.column() < len(self._columns)
        ):
            return None
        row, column = self._rows[index.row()], self._columns[index.column()]
        if role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.AccessibleTextRole):
            return column.text(row)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            # A fitted column may be elided: its whole text is a hover away.
            return column.tooltip(row) if column.tooltip is not None else column.text(row)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and self._muted and self._muted(row):
            return QtGui.QGuiApplication.palette().brush(
                QtGui.QPalette.ColorGroup.Disabled, QtGui.QPalette.ColorRole.Text
            )
        return None

    def headerData(
        self,
        section: int,
        orientation: QtCore.Qt.Orientation,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        # the title as its tooltip too: a narrow column elides it ("Cha…", ColumnFitter)
        shown = role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.ToolTipRole)
        if not shown:
            return None
        if orientation == QtCore.Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            return tr(self._columns[section].header_key)
        if role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == QtCore.Qt.Orientation.Vertical:
            return section + 1
        return None

    def set_rows(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def replace_row(self, row: int, value: Row) -> None:
        """Row ``row`` becomes ``value`` in place: its cells repaint, and the view keeps its
        selection and current row (a reset would drop them until they are set again, and a
        window painted in between shows the row unselected beside stale widgets)."""
        self._rows[row] = value
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._columns) - 1))

    def row_at(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    @property
    def rows(self) -> list[Row]:
        return list(self._rows)

    def chosen(self, view: QtWidgets.QAbstractItemView) -> Row | None:
        """The row chosen in ``view`` (which shows this model): its current row while that row
        is selected. Ctrl+click deselects a row but leaves it current, and an action on it then
        would act on a row the table shows as not chosen."""
        index, selection = view.currentIndex(), view.selectionModel()
        if not index.isValid() or not selection.isRowSelected(index.row(), QtCore.QModelIndex()):
            return None
        return self.row_at(index.row())


def follow_choice(view: QtWidgets.QAbstractItemView, slot: Callable[[], None]) -> None:
    """Call ``slot`` whenever the row ``RowsModel.chosen`` answers may have changed: the current
    row (a click makes it current before it selects it) or the selection (ctrl+click deselects
    it and leaves it current). For cheap updates: a change of row calls it twice."""
    selection = view.selectionModel()
    selection.currentRowChanged.connect(lambda *_: slot())
    selection.selectionChanged.connect(lambda *_: slot())


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


#: A header's padding (style sheet) and sort-indicator room around its bold title.
HEADER_PADDING = 16


def title_width(view: QtWidgets.QTableView, column: int) -> int:
    """The width the column's bold header title reads whole in."""
    font = view.horizontalHeader().font()
    font.setBold(True)
    title = str(view.model().headerData(column, QtCore.Qt.Orientation.Horizontal) or "")
    return QtGui.QFontMetrics(font).horizontalAdvance(title) + HEADER_PADDING


def natural_width(view: QtWidgets.QTableView, column: int) -> int:
    """As wide as the column's bold header title and its visible cells read."""
    header = view.horizontalHeader()
    label = title_width(view, column)
    return max(header.sectionSizeHint(column), label, view.sizeHintForColumn(column))


def share_width(natural: Sequence[int], minimum: Sequence[int], available: int) -> list[int]:
    """Widths that add up to at most ``available``: every column as wide as it reads when they
    fit; otherwise the widest give up room first, down to one cap (never below their minimum),
    so short columns (states, numbers) stay whole and long ones share what is left."""
    wanted = [max(n, m) for n, m in zip(natural, minimum, strict=True)]
    if sum(wanted) <= available:
        return wanted
    low, high = 0, max(wanted)
    while low < high:  # the largest cap whose capped widths still fit
        cap = (low + high + 1) // 2
        if sum(max(m, min(w, cap)) for w, m in zip(wanted, minimum, strict=True)) <= available:
            low = cap
        else:
            high = cap - 1
    return [max(m, min(w, low)) for w, m in zip(wanted, minimum, strict=True)]


#: The most of a table's width one column that should read whole is given before the rest.
WHOLE_SHARE = 0.25


class ColumnFitter(QtCore.QObject):
    """Keeps a table's columns within its width, so it never scrolls sideways while its columns'
    minimums fit: see ``share_width``; ``stretch`` takes what is left over. Refits when the
    viewport resizes and when the rows change (cells elide; RowsModel tooltips hold the text).
    With ``whole_titles`` every column but ``stretch`` keeps at least its header's width."""

    def __init__(
        self,
        view: QtWidgets.QTableView,
        stretch: int,
        minimum: dict[int, int] | None = None,
        *,
        whole_titles: bool = False,
        whole: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(view)
        self.view = view
        self.stretch = stretch
        self.minimum = minimum or {}
        self.whole_titles = whole_titles
        #: Columns that read whole while each takes at most ``WHOLE_SHARE`` of the width (the
        #: others, a long location or snippet, give up their room first).
        self.whole = whole
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.fit)
        view.setWordWrap(False)
        view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        header = view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(28)
        # a title wider than its column reads "Cha…" (its tooltip whole), not a centred cut
        # with both ends gone ("haracter", the chunk viewer at 1024 px)
        header.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        model = view.model()
        for signal in (model.modelReset, model.layoutChanged, model.rowsInserted):
            signal.connect(self._timer.start)
        model.dataChanged.connect(self._timer.start)
        view.viewport().installEventFilter(self)
        self.fit()

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Resize:
            self._timer.start()
        return False

    def fit(self) -> None:
        view, header = self.view, self.view.horizontalHeader()
        columns = [c for c in range(header.count()) if not view.isColumnHidden(c)]
        if not columns:
            return
        for column in columns:
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.Interactive)
        floor = header.minimumSectionSize()
        natural = [natural_width(view, c) for c in columns]
        minimum = [self.minimum.get(c, min(natural[i], 60)) for i, c in enumerate(columns)]
        if self.whole_titles:
            minimum = [
                m if c == self.stretch else max(m, title_width(view, c))
                for m, c in zip(minimum, columns, strict=True)
            ]
        available = view.viewport().width()
        minimum = [
            max(m, min(natural[i], int(available * WHOLE_SHARE))) if c in self.whole else m
            for i, (m, c) in enumerate(zip(minimum, columns, strict=True))
        ]
        widths = share_width(natural, [max(floor, m) for m in minimum], available)
        if self.stretch in columns:
            widths[columns.index(self.stretch)] += max(0, available - sum(widths))
        for column, width in zip(columns, widths, strict=True):
            header.resizeSection(column, width)
