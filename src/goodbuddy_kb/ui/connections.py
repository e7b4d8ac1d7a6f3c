"""Model connections: the global embedding provider, the chat model and the rerank service, each
switched only explicitly, with a write-only key field (the GUI never receives a stored key), a
test of exactly what the form holds, and the data path in plain words (which model, where text
is sent)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import KbError, invalid_request_from
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    MODELS_LIST,
    RERANK_GET,
    RERANK_TEST,
    RERANK_UPDATE,
    MethodSpec,
)
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.dialogs import confirm_action
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.message_text import say, say_error, say_field, say_text
from goodbuddy_kb.ui.qtw import QtCore, QtWidgets

KINDS = ("local", "ollama", "openai-compatible", "none")


def problem(exc: ValueError) -> str:
    """The readable part of a validation error (no library footnotes)."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = invalid_request_from(exc).details["fields"][0]
        return say(first.get("code"), first.get("params"), str(first["problem"]))
    return str(exc)


def status_label() -> QtWidgets.QLabel:
    """A form's outcome line; it keeps room for two lines so the forms do not jump or squeeze."""
    label = QtWidgets.QLabel()
    label.setWordWrap(True)
    label.setMinimumHeight(2 * label.fontMetrics().lineSpacing() + 4)
    label.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
    return label


class ModelConnectionsDialog(QtWidgets.QDialog):
    """Three forms (embedding model, chat model, rerank service), each with Test (exactly the
    form's values, nothing saved) and Save (tests first; a failed test asks before saving)."""

    saved = QtCore.Signal()
    #: A connection test finished (its outcome is in the form's status label).
    tested = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        #: The open "test failed — save anyway?" question, if any.
        self.confirm_box: QtWidgets.QMessageBox | None = None
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
        self.outcome = status_label()
        note = QtWidgets.QLabel("ⓘ " + tr("conn.switch_note"))
        note.setWordWrap(True)
        self.test_button, self.save_button, buttons = self._form_buttons(
            tr("conn.embedding"), self.test, self.save
        )
        close = QtWidgets.QPushButton(tr("dialog.close"))
        close.clicked.connect(self.reject)
        embedding = QtWidgets.QGroupBox(tr("conn.embedding"))
        form = QtWidgets.QFormLayout()
        form.addRow(tr("conn.kind"), self.kind)
        form.addRow(tr("conn.base_url"), self.base_url)
        self.model_list = ModelPicker(
            self, "embedding", self.model, self.kind, self.base_url, self.key, self.outcome
        )
        form.addRow(tr("conn.model"), self.model_list)
        form.addRow(tr("conn.dimensions"), self.dimensions)
        form.addRow(tr("conn.key"), self.key)
        # Wrapped labels sit outside the form layout, which would clip their second line.
        column = QtWidgets.QVBoxLayout(embedding)
        column.addLayout(form)
        column.addWidget(self.data_path)
        column.addWidget(note)
        column.addLayout(buttons)
        column.addWidget(self.outcome)
        closing = QtWidgets.QHBoxLayout()
        closing.addStretch(1)
        closing.addWidget(close)
        # One page per connection: the dialog fits an 800×600 screen.
        self.pages = QtWidgets.QTabWidget()
        chat, rerank = self._chat_group(), self._rerank_group()
        for group in (embedding, chat, rerank):
            page = QtWidgets.QWidget()
            column_layout = QtWidgets.QVBoxLayout(page)
            column_layout.addWidget(group)
            column_layout.addStretch(1)
            self.pages.addTab(page, group.title())
            group.setTitle("")
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addLayout(closing)
        self.resize(600, 480)
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

    def _form_buttons(
        self, what: str, test: Callable[[], None], save: Callable[[], None]
    ) -> tuple[QtWidgets.QPushButton, QtWidgets.QPushButton, QtWidgets.QHBoxLayout]:
        test_button = QtWidgets.QPushButton(tr("conn.test"))
        test_button.setAccessibleName(tr("conn.test") + " " + what)
        test_button.clicked.connect(test)
        save_button = QtWidgets.QPushButton(tr("conn.save"))
        save_button.setAccessibleName(tr("conn.save") + " " + what)
        save_button.clicked.connect(save)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(test_button)
        row.addStretch(1)
        row.addWidget(save_button)
        return test_button, save_button, row

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
        self.chat_status = status_label()
        self.chat_test_button, self.chat_save_button, buttons = self._form_buttons(
            tr("chat.model"), self.test_chat, self.save_chat
        )
        form = QtWidgets.QFormLayout(group)
        form.addRow(tr("conn.kind"), self.chat_kind)
        form.addRow(tr("conn.base_url"), self.chat_url)
        self.chat_model_list = ModelPicker(
            self,
            "chat",
            self.chat_model,
            self.chat_kind,
            self.chat_url,
            self.chat_key,
            self.chat_status,
        )
        form.addRow(tr("conn.model"), self.chat_model_list)
        form.addRow(tr("conn.key"), self.chat_key)
        form.addRow(buttons)
        form.addRow(self.chat_status)
        return group

    def _rerank_group(self) -> QtWidgets.QGroupBox:
        group = QtWidgets.QGroupBox(tr("rerank.service"))
        self.rerank_url, self.rerank_model, self.rerank_key = self._endpoint_fields()
        self.rerank_status = status_label()
        self.rerank_test_button, self.rerank_save_button, buttons = self._form_buttons(
            tr("rerank.service"), self.test_rerank, self.save_rerank
        )
        form = QtWidgets.QFormLayout(group)
        form.addRow(tr("conn.base_url"), self.rerank_url)
        form.addRow(tr("conn.model"), self.rerank_model)
        form.addRow(tr("conn.key"), self.rerank_key)
        form.addRow(buttons)
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

    def chat_connection(self) -> c.ChatConnection:
        kind = self.chat_kind.currentData()
        remote = kind != "none"
        return c.ChatConnection(
            kind=kind,
            base_url=self.chat_url.text().strip() or None if remote else None,
            model=self.chat_model.text().strip() or None if remote else None,
        )

    def rerank_connection(self) -> m.RerankConnection:
        return m.RerankConnection(
            base_url=self.rerank_url.text().strip() or None,
            model=self.rerank_model.text().strip() or None,
        )

    def _chat_probe(self) -> Probe | None:
        try:
            connection = self.chat_connection()
        except ValueError as exc:
            self.chat_status.setText("⚠ " + problem(exc))
            return None
        request = c.ChatTestRequest(connection=connection, api_key=self.chat_key.text() or None)
        return Probe(CHAT_MODEL_TEST, request, self.chat_status, _chat_success)

    def _rerank_probe(self) -> Probe | None:
        try:
            connection = self.rerank_connection()
        except ValueError as exc:
            self.rerank_status.setText("⚠ " + problem(exc))
            return None
        request = m.RerankTestRequest(connection=connection, api_key=self.rerank_key.text() or None)
        return Probe(RERANK_TEST, request, self.rerank_status, _rerank_success)

    def test_chat(self) -> None:
        probe = self._chat_probe()
        if probe is not None:
            self._run(probe, tr("conn.testing"))

    def test_rerank(self) -> None:
        probe = self._rerank_probe()
        if probe is not None:
            self._run(probe, tr("conn.testing"))

    def save_chat(self) -> None:
        probe = self._chat_probe()
        if probe is None:
            return
        request = c.ChatUpdateRequest(
            connection=probe.request.connection, api_key=self.chat_key.text() or None
        )

        def write() -> None:
            def done(info: c.ChatInfo | None, error: KbError | None) -> None:
                self.chat_save_button.setEnabled(True)
                self.chat_status.setText(
                    "⚠ " + say_error(error) if error else "✓ " + tr("conn.saved")
                )
                self._show_chat(info, error)

            self.link.call(CHAT_MODEL_UPDATE, request, done)

        # "None" switches the chat model off: there is nothing to test.
        needs_test = request.connection.kind != "none"
        self._save_checked(probe, self.chat_save_button, write, needs_test)

    def save_rerank(self) -> None:
        probe = self._rerank_probe()
        if probe is None:
            return
        request = m.RerankUpdateRequest(
            connection=probe.request.connection, api_key=self.rerank_key.text() or None
        )

        def write() -> None:
            def done(info: m.RerankInfo | None, error: KbError | None) -> None:
                self.rerank_save_button.setEnabled(True)
                self.rerank_status.setText(
                    "⚠ " + say_error(error) if error else "✓ " + tr("conn.saved")
                )
                self._show_rerank(info, error)

            self.link.call(RERANK_UPDATE, request, done)

        # An empty address removes the service (learned rerank falls back to local rules).
        needs_test = bool(request.connection.base_url)
        self._save_checked(probe, self.rerank_save_button, write, needs_test)

    # -- testing the form, and saving only what passed (or what the user confirmed) ------------
    def _run(
        self, probe: Probe, waiting: str, then: Callable[[str | None], None] | None = None
    ) -> None:
        """Test the form's values; ``then`` receives None on success, else the error."""
        probe.status.setText("… " + waiting)

        def done(result: Any, error: KbError | None) -> None:
            failure: str | None
            if result is not None and result.ok:
                failure = None
                probe.status.setText("✓ " + probe.success(result))
            else:
                failure = (
                    say_field(result, "error")
                    if result is not None
                    else (say_error(error) if error else "")
                )
                probe.status.setText("✗ " + tr("conn.test.fail", error=failure))
            self.tested.emit()
            if then is not None:
                then(failure)

        self.link.call(probe.spec, probe.request, done)

    def _save_checked(
        self,
        probe: Probe,
        button: QtWidgets.QPushButton,
        write: Callable[[], None],
        needs_test: bool,
    ) -> None:
        """Run the test first; a failed test asks "Save anyway?" (default: Cancel)."""
        button.setEnabled(False)
        if not needs_test:
            write()
            return

        def after(failure: str | None) -> None:
            if failure is None:
                write()
                return
            box = confirm_action(
                self,
                tr("conn.test_failed.title"),
                tr("conn.test_failed.text", error=failure),
                tr("conn.save_anyway"),
            )
            self.confirm_box = box

            def answered() -> None:
                self.confirm_box = None
                if box.clickedButton() is box.property("confirmButton"):
                    write()
                    return
                button.setEnabled(True)
                probe.status.setText(
                    "✗ " + tr("conn.test.fail", error=failure) + " · " + tr("conn.not_saved")
                )

            box.finished.connect(lambda _r: answered())
            box.open()

        self._run(probe, tr("conn.testing_save"), after)

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
        self.data_path.setText(say_text(info.data_path))
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

    def _embedding_probe(self) -> Probe | None:
        try:
            connection = self.connection()
        except ValueError as exc:
            self.outcome.setText("⚠ " + problem(exc))
            return None
        request = m.EmbeddingTestRequest(connection=connection, api_key=self.key.text() or None)
        return Probe(EMBEDDING_TEST, request, self.outcome, _embedding_success)

    def save(self) -> None:
        probe = self._embedding_probe()
        if probe is None:
            return
        key = self.key.text() or None  # empty: keep the stored key
        request = m.EmbeddingUpdateRequest(connection=probe.request.connection, api_key=key)

        def write() -> None:
            self.link.call(EMBEDDING_UPDATE, request, self._saved)

        needs_test = request.connection.kind != "none"  # "off" has nothing to test
        self._save_checked(probe, self.save_button, write, needs_test)

    def _saved(self, info: m.EmbeddingInfo | None, error: KbError | None) -> None:
        self.save_button.setEnabled(True)
        if error is not None:
            self.outcome.setText("⚠ " + say_error(error))
            return
        self.outcome.setText("✓ " + tr("conn.saved"))
        self._show(info, None)
        self.saved.emit()

    def test(self) -> None:
        """Test exactly what the form holds (the typed key, else the stored one); saves nothing."""
        probe = self._embedding_probe()
        if probe is not None:
            self._run(probe, tr("conn.testing"))


class ModelPicker(QtWidgets.QWidget):
    """A model name field that also offers the models the endpoint lists (OpenAI-compatible
    ``/v1/models``, Ollama ``/api/tags``): "List models" asks the backend, the names drop down
    as completions, and a typed name is accepted as it is."""

    listed = QtCore.Signal()

    def __init__(
        self,
        dialog: ModelConnectionsDialog,
        purpose: Literal["chat", "embedding"],
        field: QtWidgets.QLineEdit,
        kind: QtWidgets.QComboBox,
        url: QtWidgets.QLineEdit,
        key: QtWidgets.QLineEdit,
        status: QtWidgets.QLabel,
    ) -> None:
        super().__init__()
        self.dialog, self.purpose, self.field = dialog, purpose, field
        self.kind, self.url, self.key, self.status = kind, url, key, status
        self.names = QtCore.QStringListModel(self)
        completer = QtWidgets.QCompleter(self.names, self)
        completer.setCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(QtCore.Qt.MatchFlag.MatchContains)
        field.setCompleter(completer)
        self.button = QtWidgets.QToolButton()
        self.button.setText(tr("conn.list_models"))
        self.button.setAccessibleName(tr("conn.list_models"))
        self.button.clicked.connect(self.fetch)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(field, 1)
        row.addWidget(self.button)

    def fetch(self) -> None:
        kind = self.kind.currentData()
        url = self.url.text().strip()
        if kind not in ("openai-compatible", "ollama") or not url:
            self.status.setText("ⓘ " + tr("conn.list_models.need_url"))
            return
        self.status.setText("… " + tr("conn.list_models.asking"))
        request = m.ModelListRequest(
            purpose=self.purpose, kind=kind, base_url=url, api_key=self.key.text() or None
        )
        self.dialog.link.call(MODELS_LIST, request, self._got)

    def _got(self, result: m.ModelListResponse | None, error: KbError | None) -> None:
        if result is not None and result.ok:
            self.names.setStringList(result.models)
            self.status.setText("✓ " + tr("conn.list_models.found", count=len(result.models)))
            if result.models and self.field.isVisible():
                self.field.setFocus()
                completer = self.field.completer()
                completer.setCompletionPrefix("")
                completer.complete()
        else:
            failure = say_field(result, "error") if result is not None else say_error(error)  # type: ignore[arg-type]
            self.status.setText("✗ " + tr("conn.list_models.failed", error=failure))
        self.listed.emit()


@dataclass(frozen=True)
class Probe:
    """One form's connection test: the method, the request built from the form's values, the
    label that shows the outcome, and the words for a success."""

    spec: MethodSpec[Any, Any]
    request: Any
    status: QtWidgets.QLabel
    success: Callable[[Any], str]


def _embedding_success(result: m.EmbeddingTestResponse) -> str:
    return tr("conn.test.ok", dims=result.dimensions, ms=result.latency_ms or 0.0)


def _chat_success(result: c.ChatTestResponse) -> str:
    return tr(
        "conn.test.chat_ok",
        model=result.model or "",
        ms=result.latency_ms or 0.0,
        reply=f"“{result.reply}”" if result.reply else "–",
    )


def _rerank_success(result: m.RerankTestResponse) -> str:
    return tr(
        "conn.test.rerank_ok",
        scores=", ".join(f"{s:.3f}" for s in result.scores or []),
        ms=result.latency_ms or 0.0,
    )
