"""Settings → External AI tools (MCP): which libraries other AI tools may search (one switch per
library, off by default), the exact command and a ready client snippet with this machine's
absolute paths, copy buttons, and the recent-call counts from the local call record."""

from __future__ import annotations

from goodbuddy_kb.contracts import external as x
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import EXTERNAL_CALLS_SUMMARY, LIBRARY_LIST, SETTINGS_UPDATE
from goodbuddy_kb.mcp_server.config import (
    CLIENT_FORMATS,
    client_snippet,
    command_line,
    server_command,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.times import local_time

LIBRARY_ID = QtCore.Qt.ItemDataRole.UserRole


class ExternalToolsDialog(QtWidgets.QDialog):
    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.setWindowTitle(tr("mcp.title"))
        intro = QtWidgets.QLabel(tr("mcp.intro"))
        intro.setWordWrap(True)

        self.libraries = QtWidgets.QListWidget()
        self.libraries.setAccessibleName(tr("mcp.libraries"))
        self.libraries.itemChanged.connect(self._toggled)
        self.libraries.setMinimumHeight(90)
        self.empty = QtWidgets.QLabel(tr("mcp.no_libraries"))
        self.empty.setWordWrap(True)
        libraries_box = QtWidgets.QGroupBox(tr("mcp.libraries"))
        lib_layout = QtWidgets.QVBoxLayout(libraries_box)
        # wrapped: one line set the whole dialog's least width, past an 800-pixel screen's room
        switch_note = QtWidgets.QLabel("ⓘ " + tr("mcp.switch_note"))
        switch_note.setWordWrap(True)
        lib_layout.addWidget(switch_note)
        lib_layout.addWidget(self.libraries, 1)
        lib_layout.addWidget(self.empty)

        self.command = QtWidgets.QLineEdit()
        self.command.setReadOnly(True)
        self.command.setAccessibleName(tr("mcp.command"))
        self.copy_command = QtWidgets.QPushButton(tr("mcp.copy"))
        self.copy_command.setAccessibleName(tr("mcp.copy") + " " + tr("mcp.command"))
        self.copy_command.clicked.connect(lambda: self._copy(self.command.text()))
        self.format = QtWidgets.QComboBox()
        self.format.setAccessibleName(tr("mcp.format"))
        for fmt in CLIENT_FORMATS:
            self.format.addItem(tr(f"mcp.format.{fmt}"), fmt)
        self.format.currentIndexChanged.connect(lambda _i: self._show_config())
        self.snippet = QtWidgets.QPlainTextEdit()
        self.snippet.setReadOnly(True)
        self.snippet.setAccessibleName(tr("mcp.snippet"))
        self.snippet.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.snippet.setMinimumHeight(190)
        self.copy_snippet = QtWidgets.QPushButton(tr("mcp.copy"))
        self.copy_snippet.setAccessibleName(tr("mcp.copy") + " " + tr("mcp.snippet"))
        self.copy_snippet.clicked.connect(lambda: self._copy(self.snippet.toPlainText()))
        setup_box = QtWidgets.QGroupBox(tr("mcp.setup"))
        setup = QtWidgets.QGridLayout(setup_box)
        command_label = QtWidgets.QLabel(tr("mcp.command"))
        command_label.setBuddy(self.command)
        setup.addWidget(command_label, 0, 0)
        setup.addWidget(self.command, 0, 1)
        setup.addWidget(self.copy_command, 0, 2)
        format_label = QtWidgets.QLabel(tr("mcp.format"))
        format_label.setBuddy(self.format)
        setup.addWidget(format_label, 1, 0)
        setup.addWidget(self.format, 1, 1)
        setup.addWidget(self.snippet, 2, 0, 1, 2)
        setup.addWidget(self.copy_snippet, 2, 2, QtCore.Qt.AlignmentFlag.AlignTop)
        self.copied = QtWidgets.QLabel()
        setup.addWidget(self.copied, 3, 1)

        self.calls = QtWidgets.QTableWidget(len(x.EXTERNAL_TOOLS), 4)
        self.calls.setAccessibleName(tr("mcp.calls"))
        self.calls.setHorizontalHeaderLabels(
            [
                tr("mcp.calls.count"),
                tr("mcp.calls.errors"),
                tr("mcp.calls.p50"),
                tr("mcp.calls.last"),
            ]
        )
        # what each tool does, in words; its own name (what the AI tool calls) in the tooltip
        # (the rows read "list_libraries", "get_reference_context" to a new user)
        for row, tool in enumerate(x.EXTERNAL_TOOLS):
            header = QtWidgets.QTableWidgetItem(tr(f"mcp.tool.{tool}"))
            header.setToolTip(tool)
            self.calls.setVerticalHeaderItem(row, header)
        self.calls.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.calls.horizontalHeader().setStretchLastSection(True)
        self.calls.verticalHeader().setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.ResizeToContents
        )
        self.calls.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.calls.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self.calls_note = QtWidgets.QLabel()
        self.calls_note.setWordWrap(True)
        # Room for the wrapped note before its text arrives (word-wrapped labels ask late).
        self.calls_note.setMinimumHeight(self.calls_note.fontMetrics().lineSpacing() * 2 + 6)
        calls_box = QtWidgets.QGroupBox(tr("mcp.calls"))
        calls_layout = QtWidgets.QVBoxLayout(calls_box)
        calls_layout.addWidget(self.calls)
        calls_layout.addWidget(self.calls_note)

        close = QtWidgets.QPushButton(tr("mcp.close"))
        close.clicked.connect(self.accept)
        # The sections scroll inside the dialog and Close stays in view, so the dialog fits
        # an 800×600 screen instead of running past its bottom edge.
        body = QtWidgets.QWidget()
        content = QtWidgets.QVBoxLayout(body)
        content.setContentsMargins(0, 0, 0, 0)
        content.addWidget(intro)
        content.addWidget(libraries_box, 1)
        content.addWidget(setup_box)
        content.addWidget(calls_box)
        self.sections = QtWidgets.QScrollArea()
        self.sections.setWidgetResizable(True)
        self.sections.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.sections.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.sections.setWidget(body)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.sections, 1)
        layout.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignRight)
        screen = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(800, screen.width() - 40), min(820, screen.height() - 60))
        self._filling = False
        self._fit_calls()
        self._show_config()
        link.changed.connect(self._on_changed)
        self.refresh()

    # -- data ------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.link.call(LIBRARY_LIST, c.LibraryListRequest(), self._show_libraries)
        self.link.call(EXTERNAL_CALLS_SUMMARY, x.ExternalCallsSummaryRequest(), self._show_calls)

    def _on_changed(self, params: dict[str, object]) -> None:
        if params.get("libraries") or params.get("settings"):
            self.link.call(LIBRARY_LIST, c.LibraryListRequest(), self._show_libraries)
        if params.get("externalCalls") or params.get("settings") or params.get("libraries"):
            self.link.call(
                EXTERNAL_CALLS_SUMMARY, x.ExternalCallsSummaryRequest(), self._show_calls
            )

    def _show_libraries(self, result: c.LibraryListResponse | None, error: KbError | None) -> None:
        if result is None:
            return
        self._filling = True
        current = self.libraries.currentRow()
        self.libraries.clear()
        for library in result.libraries:
            on = library.external_access
            # The state in words too, not only in the check box.
            item = QtWidgets.QListWidgetItem(
                f"{library.name}  —  {tr('mcp.exposed' if on else 'mcp.private')}"
            )
            item.setData(LIBRARY_ID, library.id)
            item.setFlags(item.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                QtCore.Qt.CheckState.Checked if on else QtCore.Qt.CheckState.Unchecked
            )
            self.libraries.addItem(item)
        self.libraries.setCurrentRow(min(max(current, 0), self.libraries.count() - 1))
        self.empty.setVisible(not result.libraries)
        self._filling = False

    def _toggled(self, item: QtWidgets.QListWidgetItem) -> None:
        if self._filling:
            return
        on = item.checkState() == QtCore.Qt.CheckState.Checked
        request = c.SettingsUpdateRequest(library_id=str(item.data(LIBRARY_ID)), external_access=on)
        self.link.call(SETTINGS_UPDATE, request, self._saved)

    def _saved(self, result: c.LibrarySettings | None, error: KbError | None) -> None:
        if error is not None:
            self.copied.setText("⚠ " + tr("error.generic", message=error.message))
        self.link.call(LIBRARY_LIST, c.LibraryListRequest(), self._show_libraries)

    def _show_calls(
        self, result: x.ExternalCallsSummaryResponse | None, error: KbError | None
    ) -> None:
        if result is None:
            return
        for row, stats in enumerate(result.tools):
            values = [
                f"{stats.calls:,}",
                f"{stats.errors:,}",
                f"{stats.p50_ms:.1f} ms" if stats.p50_ms is not None else "—",
                local_time(stats.last_at, seconds=True),
            ]
            for column, value in enumerate(values):
                self.calls.setItem(row, column, QtWidgets.QTableWidgetItem(value))
        self._fit_calls()
        self.calls_note.setText(
            tr(
                "mcp.calls.note",
                calls=f"{result.total_calls:,}",
                errors=f"{result.total_errors:,}",
                since=local_time(result.since, seconds=True),
                exposed=result.exposed_libraries,
            )
            if result.total_calls
            else tr("mcp.calls.none", exposed=result.exposed_libraries)
        )

    def _fit_calls(self) -> None:
        self.calls.resizeRowsToContents()
        rows = self.calls.verticalHeader().length()
        header = self.calls.horizontalHeader().sizeHint().height()
        self.calls.setFixedHeight(rows + header + 2 * self.calls.frameWidth())

    # -- configuration ---------------------------------------------------------------------
    def _show_config(self) -> None:
        argv = server_command(self.link.data_dir)
        self.command.setText(command_line(argv))
        self.command.setCursorPosition(0)
        self.snippet.setPlainText(client_snippet(argv, self.format.currentData() or "mcpServers"))

    def _copy(self, text: str) -> None:
        QtWidgets.QApplication.clipboard().setText(text)
        self.copied.setText("✓ " + tr("mcp.copied"))
