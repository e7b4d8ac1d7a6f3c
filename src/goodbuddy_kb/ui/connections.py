"""Model connections: the global embedding provider, switched only explicitly, with a
write-only key field (the GUI never receives a stored key), a test button, and the data path in
plain words (which model, where text is sent)."""

from __future__ import annotations

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_UPDATE,
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    RERANK_GET,
    RERANK_UPDATE,
)
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.qtw import QtCore, QtWidgets

KINDS = ("local", "ollama", "openai-compatible", "none")


def problem(exc: ValueError) -> str:
    """The readable part of a validation error (no library footnotes)."""
    if isinstance(exc, ValidationError) and exc.errors():
        return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    return str(exc)


class ModelConnectionsDialog(QtWidgets.QDialog):
    saved = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.setWindowTitle(tr("conn.title"))
        self.kind = QtWidgets.QComboBox()
        self.kind.setAccessibleName(tr("conn.kind"))
        for kind in KINDS:
            self.kind.addItem(tr(f"conn.kind.{kind}"), kind)
        self.kind.currentIndexChanged.connect(lambda _i: self._update())
        self.base_url = QtWidgets.QLineEdit()
        self.base_url.setPlaceholderText("http://127.0.0.1:11434")
        self.model = QtWidgets.QLineEdit()
        self.dimensions = QtWidgets.QSpinBox()
        self.dimensions.setRange(0, 8192)
        self.key = QtWidgets.QLineEdit()
        self.key.setEchoMode(QtWidgets.QLineEdit.EchoMode.Password)
        for widget, key in (
            (self.base_url, "conn.base_url"),
            (self.model, "conn.model"),
            (self.dimensions, "conn.dimensions"),
            (self.key, "conn.key"),
        ):
            widget.setAccessibleName(tr(key))
        self.data_path = QtWidgets.QLabel()
        self.data_path.setWordWrap(True)
        self.outcome = QtWidgets.QLabel()
        self.outcome.setWordWrap(True)
        note = QtWidgets.QLabel("ⓘ " + tr("conn.switch_note"))
        note.setWordWrap(True)
        self.test_button = QtWidgets.QPushButton(tr("conn.test"))
        self.test_button.clicked.connect(self.test)
        self.save_button = QtWidgets.QPushButton(tr("conn.save"))
        self.save_button.clicked.connect(self.save)
        close = QtWidgets.QPushButton(tr("dialog.cancel"))
        close.clicked.connect(self.reject)
        form = QtWidgets.QFormLayout()
        form.addRow(tr("conn.kind"), self.kind)
        form.addRow(tr("conn.base_url"), self.base_url)
        form.addRow(tr("conn.model"), self.model)
        form.addRow(tr("conn.dimensions"), self.dimensions)
        form.addRow(tr("conn.key"), self.key)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(close)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.data_path)
        layout.addWidget(note)
        layout.addWidget(self.outcome)
        layout.addLayout(buttons)
        layout.addWidget(self._chat_group())
        layout.addWidget(self._rerank_group())
        self.link.call(EMBEDDING_GET, m.EmbeddingGetRequest(), self._show)
        self.link.call(CHAT_MODEL_GET, c.ChatGetRequest(), self._show_chat)
        self.link.call(RERANK_GET, m.RerankGetRequest(), self._show_rerank)

    # -- chat model and rerank service (same rules: explicit switch, write-only key) ----------
    def _endpoint_fields(
        self,
    ) -> tuple[QtWidgets.QLineEdit, QtWidgets.QLineEdit, QtWidgets.QLineEdit]:
        url, model, key = QtWidgets.QLineEdit(), QtWidgets.QLineEdit(), QtWidgets.QLineEdit()
        key.setEchoMode(QtWidgets.QLineEdit.EchoMode.Password)
        for widget, name in ((url, "conn.base_url"), (model, "conn.model"), (key, "conn.key")):
            widget.setAccessibleName(tr(name))
        return url, model, key

    def _chat_group(self) -> QtWidgets.QGroupBox:
        group = QtWidgets.QGroupBox(tr("chat.model"))
        self.chat_kind = QtWidgets.QComboBox()
        self.chat_kind.setAccessibleName(tr("chat.model"))
        for kind, label in (
            ("none", tr("chat.model.none")),
            ("openai-compatible", tr("conn.kind.openai-compatible")),
            ("ollama", tr("conn.kind.ollama")),
        ):
            self.chat_kind.addItem(label, kind)
        self.chat_url, self.chat_model, self.chat_key = self._endpoint_fields()
        self.chat_status = QtWidgets.QLabel()
        save = QtWidgets.QPushButton(tr("conn.save"))
        save.setAccessibleName(tr("conn.save") + " " + tr("chat.model"))
        save.clicked.connect(self.save_chat)
        form = QtWidgets.QFormLayout(group)
        form.addRow(tr("conn.kind"), self.chat_kind)
        form.addRow(tr("conn.base_url"), self.chat_url)
        form.addRow(tr("conn.model"), self.chat_model)
        form.addRow(tr("conn.key"), self.chat_key)
        self.chat_status.setWordWrap(True)
        form.addRow(save)
        form.addRow(self.chat_status)
        return group

    def _rerank_group(self) -> QtWidgets.QGroupBox:
        group = QtWidgets.QGroupBox(tr("rerank.service"))
        self.rerank_url, self.rerank_model, self.rerank_key = self._endpoint_fields()
        self.rerank_status = QtWidgets.QLabel()
        save = QtWidgets.QPushButton(tr("conn.save"))
        save.setAccessibleName(tr("conn.save") + " " + tr("rerank.service"))
        save.clicked.connect(self.save_rerank)
        form = QtWidgets.QFormLayout(group)
        form.addRow(tr("conn.base_url"), self.rerank_url)
        form.addRow(tr("conn.model"), self.rerank_model)
        form.addRow(tr("conn.key"), self.rerank_key)
        self.rerank_status.setWordWrap(True)
        form.addRow(save)
        form.addRow(self.rerank_status)
        return group

    def _show_chat(self, info: c.ChatInfo | None, error: KbError | None) -> None:
        if info is None:
            return
        self.chat_kind.setCurrentIndex(max(0, self.chat_kind.findData(info.connection.kind)))
        self.chat_url.setText(info.connection.base_url or "")
        self.chat_model.setText(info.connection.model or "")
        self.chat_key.clear()
        self.chat_key.setPlaceholderText(
            tr("conn.key.stored") if info.has_api_key else tr("conn.key.none")
        )

    def _show_rerank(self, info: m.RerankInfo | None, error: KbError | None) -> None:
        if info is None:
            return
        self.rerank_url.setText(info.connection.base_url or "")
        self.rerank_model.setText(info.connection.model or "")
        self.rerank_key.clear()
        self.rerank_key.setPlaceholderText(
            tr("conn.key.stored") if info.has_api_key else tr("conn.key.none")
        )

    def save_chat(self) -> None:
        kind = self.chat_kind.currentData()
        try:
            connection = c.ChatConnection(
                kind=kind,
                base_url=self.chat_url.text().strip() or None if kind != "none" else None,
                model=self.chat_model.text().strip() or None if kind != "none" else None,
            )
        except ValueError as exc:
            self.chat_status.setText("⚠ " + problem(exc))
            return

        def done(info: c.ChatInfo | None, error: KbError | None) -> None:
            self.chat_status.setText("⚠ " + error.message if error else "✓ " + tr("conn.saved"))
            self._show_chat(info, error)

        request = c.ChatUpdateRequest(connection=connection, api_key=self.chat_key.text() or None)
        self.link.call(CHAT_MODEL_UPDATE, request, done)

    def save_rerank(self) -> None:
        try:
            connection = m.RerankConnection(
                base_url=self.rerank_url.text().strip() or None,
                model=self.rerank_model.text().strip() or None,
            )
        except ValueError as exc:
            self.rerank_status.setText("⚠ " + problem(exc))
            return

        def done(info: m.RerankInfo | None, error: KbError | None) -> None:
            self.rerank_status.setText("⚠ " + error.message if error else "✓ " + tr("conn.saved"))
            self._show_rerank(info, error)

        self.link.call(
            RERANK_UPDATE,
            m.RerankUpdateRequest(connection=connection, api_key=self.rerank_key.text() or None),
            done,
        )

    def _show(self, info: m.EmbeddingInfo | None, error: KbError | None) -> None:
        if info is None:
            return
        c = info.connection
        index = self.kind.findData(c.kind)
        if index < 0:
            self.kind.addItem(tr(f"conn.kind.{c.kind}"), c.kind)
            index = self.kind.count() - 1
        self.kind.setCurrentIndex(index)
        self.base_url.setText(c.base_url or "")
        self.model.setText(c.model or "")
        self.dimensions.setValue(c.dimensions or 0)
        self.key.clear()
        self.key.setPlaceholderText(
            tr("conn.key.stored") if info.has_api_key else tr("conn.key.none")
        )
        self.data_path.setText(info.data_path)
        self._update()

    def _update(self) -> None:
        remote = self.kind.currentData() in ("ollama", "openai-compatible")
        for widget in (self.base_url, self.model, self.dimensions, self.key):
            widget.setEnabled(remote)

    def connection(self) -> m.EmbeddingConnection:
        remote = self.kind.currentData() in ("ollama", "openai-compatible")
        return m.EmbeddingConnection(
            kind=self.kind.currentData(),
            base_url=self.base_url.text().strip() or None if remote else None,
            model=self.model.text().strip() or None if remote else None,
            dimensions=self.dimensions.value() or None if remote else None,
        )

    def save(self) -> None:
        try:
            connection = self.connection()
        except ValueError as exc:
            self.outcome.setText("⚠ " + problem(exc))
            return
        key = self.key.text() or None  # empty: keep the stored key
        self.link.call(
            EMBEDDING_UPDATE,
            m.EmbeddingUpdateRequest(connection=connection, api_key=key),
            self._saved,
        )

    def _saved(self, info: m.EmbeddingInfo | None, error: KbError | None) -> None:
        if error is not None:
            self.outcome.setText("⚠ " + error.message)
            return
        self._show(info, None)
        self.saved.emit()

    def test(self) -> None:
        def done(result: m.EmbeddingTestResponse | None, error: KbError | None) -> None:
            if result is not None and result.ok:
                self.outcome.setText(
                    "✓ " + tr("conn.test.ok", dims=result.dimensions, ms=result.latency_ms or 0.0)
                )
            else:
                self.outcome.setText(
                    "✗ "
                    + tr(
                        "conn.test.fail",
                        error=(result.error if result else error.message if error else ""),
                    )
                )

        self.outcome.setText("…")
        self.link.call(EMBEDDING_TEST, m.EmbeddingTestRequest(), done)
