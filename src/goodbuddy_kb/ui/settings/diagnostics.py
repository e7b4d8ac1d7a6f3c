"""Settings → Diagnostics: totals of the local diagnostics record, the latest events, and
"Export…" which has the backend write a redacted JSON bundle to a file the user chooses."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from goodbuddy_kb.contracts import diagnostics as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT, DIAGNOSTICS_SUMMARY
from goodbuddy_kb.contracts.retrieval import GRAPH_NOTES
from goodbuddy_kb.contracts.tasks import TaskKind
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import channel_name, listing, tr
from goodbuddy_kb.ui.i18n.messages import say_text
from goodbuddy_kb.ui.widgets.table_model import ColumnFitter
from goodbuddy_kb.ui.widgets.times import local_time

#: Event kinds with a name of their own: retrievals, chat answers and every kind of task.
KINDS = ("retrieve", "chat", *get_args(TaskKind))
TOTAL_COLUMNS = ("kind", "count", "ok", "degraded", "failed", "cancelled", "average")
RECENT_COLUMNS = ("at", "kind", "outcome", "duration", "summary")


def _fit_rows(table: QtWidgets.QTableWidget) -> None:
    """The table as tall as its rows (one per kind of work, a handful): with a third of the
    dialog's height its last rows hid behind a scroll bar; the recent events take the rest."""
    height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
    height += sum(table.rowHeight(row) for row in range(table.rowCount()))
    table.setFixedHeight(height)
    table.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)


def _kind(kind: str) -> str:
    return tr(f"diagrec.kind.{kind}") if kind in KINDS else kind


def _outcome(outcome: str) -> str:
    known = ("ok", "degraded", "failed", "cancelled", "interrupted")
    return tr(f"diagrec.outcome.{outcome}") if outcome in known else outcome


def _mode(mode: object) -> str:
    """A chat's retrieval mode as the scope button names it; "" for none or another."""
    return tr(f"diagrec.mode.{mode}") if mode in ("always", "auto") else ""


def _search(details: dict[str, object]) -> str:
    """Where a search came from, in which retrieval mode, over how many libraries."""
    origin, mode = details.get("origin"), details.get("mode")
    if origin not in get_args(c.SearchOrigin):
        return ""  # recorded before searches said where they came from
    text = tr(f"diagrec.origin.{origin}")
    if _mode(mode):
        text += f" ({_mode(mode)})"
    return tr("diagrec.event.search", origin=text, libraries=details.get("libraries", 0))


def _summary(event: c.DiagnosticEvent) -> str:
    d = event.details
    if event.kind == "retrieve" and "error" in d:
        return _search(d)  # the outcome column says how it ended
    if event.kind == "retrieve":
        counts = tr(
            "diagrec.event.retrieve",
            results=d.get("results", 0),
            chars=d.get("contextCharacters", 0),
            channels=_channels(d.get("channels", {}).get("used", [])) or "—",
        )
        text = " · ".join(part for part in (_search(d), counts) if part)
        # each channel once; a graph note (no entity in the question, the graph switched off)
        # is no fault (events recorded before notes were kept apart list them as degraded)
        degraded = [
            str(x.get("channel", ""))
            for x in d.get("degraded", [])
            if not (x.get("channel") == "graph" and _graph_note(x.get("reason")))
        ]
        if degraded:
            channels = _channels(list(dict.fromkeys(degraded)))
            text += " · " + tr("diagrec.event.degraded", channels=channels)
        return text
    if event.kind == "chat":
        text = tr(
            "diagrec.event.chat",
            mode=_mode(d.get("mode")) or "—",
            libraries=d.get("libraries", 0),
            searches=d.get("searches", 0),
        )
    else:
        text = tr("diagrec.event.task", total=d.get("total", 0), failed=d.get("failedDocuments", 0))
    if d.get("error"):
        text += " · " + say_text(str(d["error"]))  # the export keeps the backend's words
    return text


def _graph_note(reason: object) -> bool:
    coded = classify(str(reason)) if reason else None
    return coded is not None and coded.code in GRAPH_NOTES


def _channels(names: list[str]) -> str:
    """Retrieval channels as people call them (全文, 中文, 向量, 图谱 / full-text, …)."""
    return listing(channel_name(str(name)) for name in names)


class DiagnosticsDialog(QtWidgets.QDialog):
    """Read-only totals and recent events; Export… writes the bundle through the backend."""

    loaded = QtCore.Signal()
    exported = QtCore.Signal(str)

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.setWindowTitle(tr("diagrec.title"))
        self.resize(820, 560)
        intro = QtWidgets.QLabel(tr("diagrec.intro"))
        intro.setWordWrap(True)
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setMinimumHeight(self.status.fontMetrics().lineSpacing() * 3)
        self.status.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Minimum
        )
        self.totals = self._table(TOTAL_COLUMNS, tr("diagrec.totals"))
        self.recent = self._table(RECENT_COLUMNS, tr("diagrec.recent"))
        # Within the dialog's width: the summary takes what is left (elided, whole in its tooltip).
        ColumnFitter(self.totals, stretch=len(TOTAL_COLUMNS) - 1)
        ColumnFitter(self.recent, stretch=len(RECENT_COLUMNS) - 1)
        self.export_button = QtWidgets.QPushButton(tr("diagrec.export"))
        self.export_button.setAccessibleName(tr("diagrec.export"))
        self.export_button.clicked.connect(self.choose_file)
        refresh = QtWidgets.QPushButton(tr("diagrec.refresh"))
        refresh.clicked.connect(self.reload)
        close = QtWidgets.QPushButton(tr("diagrec.close"))
        close.clicked.connect(self.accept)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(refresh)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(close)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(QtWidgets.QLabel("<b>" + tr("diagrec.totals") + "</b>"))
        layout.addWidget(self.totals)
        layout.addWidget(QtWidgets.QLabel("<b>" + tr("diagrec.recent") + "</b>"))
        layout.addWidget(self.recent, 1)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.reload()

    def _table(self, columns: tuple[str, ...], name: str) -> QtWidgets.QTableWidget:
        table = QtWidgets.QTableWidget(0, len(columns))
        table.setAccessibleName(name)
        table.setHorizontalHeaderLabels([tr(f"diagrec.col.{col}") for col in columns])
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setVisible(False)
        table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        return table

    def reload(self) -> None:
        self.link.call(DIAGNOSTICS_SUMMARY, c.DiagnosticsSummaryRequest(recent=100), self._show)

    def _show(self, result: c.DiagnosticsSummary | None, error: KbError | None) -> None:
        if error is not None or result is None:
            self.status.setText(tr("diagrec.error", reason=error.message if error else ""))
            self.loaded.emit()
            return
        self.totals.setRowCount(len(result.totals))
        for row, t in enumerate(result.totals):
            values = (
                _kind(t.kind),
                str(t.count),
                str(t.ok),
                str(t.degraded),
                str(t.failed),
                str(t.cancelled),
                f"{t.average_ms:,.0f} ms",
            )
            for col, value in enumerate(values):
                self.totals.setItem(row, col, QtWidgets.QTableWidgetItem(value))
        _fit_rows(self.totals)
        self.recent.setRowCount(len(result.recent))
        for row, e in enumerate(result.recent):
            cells = (
                local_time(e.at, seconds=True),
                _kind(e.kind),
                _outcome(e.outcome),
                f"{e.duration_ms:,.0f} ms",
                _summary(e),
            )
            for col, value in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(value)
                item.setToolTip(value)
                self.recent.setItem(row, col, item)
        self.status.setText(
            tr("diagrec.count", events=result.events, capacity=result.capacity)
            if result.events
            else tr("diagrec.empty")
        )
        self.loaded.emit()

    def choose_file(self) -> None:
        default = str(Path.home() / "goodbuddy-kb-diagnostics.json")
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, tr("diagrec.export.title"), default, tr("diagrec.export.filter")
        )
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> None:
        self.export_button.setEnabled(False)
        self.status.setText(tr("diagrec.exporting"))

        def done(result: c.DiagnosticsExportResponse | None, error: KbError | None) -> None:
            self.export_button.setEnabled(True)
            if error is not None or result is None:
                self.status.setText(
                    tr("diagrec.export.failed", reason=error.message if error else "")
                )
                self.exported.emit("")
                return
            self.status.setText(
                tr(
                    "diagrec.export.done",
                    path=result.path,
                    events=result.events,
                    kb=result.bytes // 1024,
                )
            )
            self.exported.emit(result.path)

        self.link.call(
            DIAGNOSTICS_EXPORT,  # the save dialog has asked before replacing a file
            c.DiagnosticsExportRequest(path=str(Path(path).absolute()), overwrite=True),
            done,
        )
