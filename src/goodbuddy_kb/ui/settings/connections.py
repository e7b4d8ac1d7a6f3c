"""Model connections: the global embedding provider, the chat model and the rerank service, each
switched only explicitly, with a write-only key field (the GUI never receives a stored key), a
test of exactly what the form holds, and the data path in plain words (which model, where text
is sent)."""

from __future__ import annotations

import time
from collections.abc import Callable

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    RERANK_GET,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import listing, tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_text
from goodbuddy_kb.ui.settings.endpoint_form import (
    CHAT_ENDPOINT,
    RERANK_ENDPOINT,
    EndpointForm,
    EndpointKind,
    ModelPicker,
    PendingSave,
    Probe,
    clear_on_change,
    form_buttons,
    probe_of,
    sentence_label,
    show_address_example,
    status_label,
)
from goodbuddy_kb.ui.settings.problems import StoredKey, address_problem, key_placeholder, problem
from goodbuddy_kb.ui.widgets.confirm import confirm_action

KINDS = ("local", "ollama", "openai-compatible", "none")
#: The window's property holding the page the dialog was last left on.
PAGE_KEPT = "connectionsPage"
#: A test that passed this many seconds ago still vouches for a save of the same values.
FRESH_S = 120.0


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
        #: The open "close and discard the unsaved changes?" question, if any.
        self.discard_box: QtWidgets.QMessageBox | None = None
        #: The person closed the dialog discarding its edits (a save under way is dropped).
        self._discarded = False
        #: The embedding form's values when the saved connection arrived (None until then).
        self._shown: tuple[object, ...] | None = None
        #: When each test that passed here passed (``Probe.identity`` → monotonic seconds).
        self._passed: dict[str, float] = {}
        #: Whether a key is stored, and the address it is for (when the saved settings arrive).
        self.stored_key: StoredKey | None = None
        #: (batch size, timeout) of the saved connection, which the form keeps as they are.
        default = m.EmbeddingConnection()
        self.tuning = (default.batch_size, default.timeout_s)
        self.setWindowTitle(tr("conn.title"))
        self.kind = QtWidgets.QComboBox()
        self.kind.setAccessibleName(tr("conn.kind"))
        for kind in KINDS:
            self.kind.addItem(tr(f"conn.kind.{kind}"), kind)
        self.kind.currentIndexChanged.connect(lambda _i: self._update())
        self.base_url = QtWidgets.QLineEdit()
        self.base_url.textChanged.connect(lambda _t: self._show_data_path())
        self.model = QtWidgets.QLineEdit()
        self.model.textChanged.connect(lambda _t: self._show_data_path())
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
        self.data_path = sentence_label()
        self.outcome = status_label()
        clear_on_change(self.outcome, self.kind, (self.base_url, self.model, self.key))
        note = QtWidgets.QLabel("ⓘ " + tr("conn.switch_note"))
        note.setWordWrap(True)
        self.test_button, self.save_button, buttons = form_buttons(
            tr("conn.embedding"), self.test, self.save
        )
        close = QtWidgets.QPushButton(tr("dialog.close"))
        close.clicked.connect(self.reject)
        embedding = QtWidgets.QGroupBox(tr("conn.embedding"))
        form = QtWidgets.QFormLayout()
        form.addRow(tr("conn.kind"), self.kind)
        form.addRow(tr("conn.base_url"), self.base_url)
        self.model_list = ModelPicker(
            self.link, "embedding", self.model, self.kind, self.base_url, self.key, self.outcome
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
        # the page it was last left on in this window: it opens there again (it always opened
        # on the embedding model, a helper setting up a chat model found)
        kept = parent.property(PAGE_KEPT) if parent is not None else None
        self.pages.setCurrentIndex(kept if isinstance(kept, int) else 0)
        if parent is not None:
            self.pages.currentChanged.connect(lambda i: parent.setProperty(PAGE_KEPT, i))
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addLayout(closing)
        self.resize(600, 480)
        # A form takes input once it shows what is saved: a late answer must not refill a form
        # already typed into (each page is enabled by its own answer, or its error).
        self.embedding_group = embedding
        for group in (embedding, chat, rerank):
            group.setEnabled(False)
        self.link.call(EMBEDDING_GET, m.EmbeddingGetRequest(), self._show)
        self.link.call(CHAT_MODEL_GET, c.ChatGetRequest(), self._show_chat)
        self.link.call(RERANK_GET, m.RerankGetRequest(), self._show_rerank)

    # -- chat model and rerank service (same rules: explicit switch, write-only key) ----------
    def _chat_group(self) -> QtWidgets.QGroupBox:
        form = self._form(CHAT_ENDPOINT)
        self.chat = form
        self.chat_kind, self.chat_url, self.chat_model = form.kind, form.url, form.model
        self.chat_key, self.chat_status = form.key, form.status
        self.chat_test_button, self.chat_save_button = form.test_button, form.save_button
        assert form.picker is not None
        self.chat_model_list = form.picker
        return form

    def _rerank_group(self) -> QtWidgets.QGroupBox:
        form = self._form(RERANK_ENDPOINT)
        self.rerank = form
        self.rerank_url, self.rerank_model, self.rerank_key = form.url, form.model, form.key
        self.rerank_status = form.status
        self.rerank_test_button, self.rerank_save_button = form.test_button, form.save_button
        return form

    def _form(self, endpoint: EndpointKind) -> EndpointForm:
        form = EndpointForm(self.link, endpoint)
        form.test_requested.connect(lambda probe: self._run(probe, tr("conn.testing")))
        form.save_requested.connect(self._save_checked)
        return form

    def _show_chat(self, info: c.ChatInfo | None, error: KbError | None) -> None:
        self.chat.show_info(info)
        self.chat.setEnabled(True)

    def _show_rerank(self, info: m.RerankInfo | None, error: KbError | None) -> None:
        self.rerank.show_info(info)
        self.rerank.setEnabled(True)

    def chat_connection(self) -> c.ChatConnection:
        values = self.chat.values()
        return CHAT_ENDPOINT.connection(values.kind, values.url, values.model)

    def rerank_connection(self) -> m.RerankConnection:
        values = self.rerank.values()
        return RERANK_ENDPOINT.connection(values.kind, values.url, values.model)

    def test_chat(self) -> None:
        self.chat.test()

    def test_rerank(self) -> None:
        self.rerank.test()

    def save_chat(self) -> None:
        self.chat.save()

    def save_rerank(self) -> None:
        self.rerank.save()

    # -- testing the form, and saving only what passed (or what the user confirmed) ------------
    def _run(
        self, probe: Probe, waiting: str, then: Callable[[str | None], None] | None = None
    ) -> None:
        """Test the form's values; ``then`` receives None on success, else the error."""
        probe.status.setText("… " + waiting)

        def report(failure: str | None) -> None:
            if failure is None:
                self._passed[probe.identity] = time.monotonic()
            else:
                self._passed.pop(probe.identity, None)
            self.tested.emit()
            if then is not None:
                then(failure)

        probe.send(self.link, report)

    def _save_checked(self, save: PendingSave) -> None:
        """Run the test first; a failed test asks "Save anyway?" (default: Cancel)."""
        probe, button, written = save.probe, save.button, save.write
        button.setEnabled(False)
        self._discarded = False

        def write() -> None:
            if not self._discarded:
                written()

        passed = self._passed.get(probe.identity)
        if not save.needs_test or (passed is not None and time.monotonic() - passed < FRESH_S):
            # nothing to test, or exactly this passed its test here a moment ago: the service
            # (a paid model, perhaps) is not asked the same thing twice
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
        self.embedding_group.setEnabled(True)
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
        self.stored_key = (info.has_api_key, info.key_origin)
        self.tuning = (c.batch_size, c.timeout_s)
        self._update()
        self._shown = self._embedding_values()

    def _embedding_values(self) -> tuple[object, ...]:
        return (
            self.kind.currentData(),
            self.base_url.text().strip(),
            self.model.text().strip(),
            self.dimensions.value(),
            self.key.text(),
        )

    def unsaved_pages(self) -> list[str]:
        """The names of the pages whose form holds edits not saved."""
        edited = (
            self._shown is not None and self._embedding_values() != self._shown,
            self.chat.unsaved(),
            self.rerank.unsaved(),
        )
        return [self.pages.tabText(i) for i, unsaved in enumerate(edited) if unsaved]

    def reject(self) -> None:
        """Close (the button, Escape or the window's own close): edits not saved are not
        dropped silently; a question names the pages (default: keep editing)."""
        pages = self.unsaved_pages()
        if not pages or self.discard_box is not None:
            super().reject()
            return
        box = confirm_action(
            self,
            tr("conn.unsaved.title"),
            tr("conn.unsaved.text", pages=listing(pages)),
            tr("conn.unsaved.discard"),
        )
        self.discard_box = box

        def answered() -> None:
            self.discard_box = None
            if box.clickedButton() is box.property("confirmButton"):
                # a save still testing its connection is dropped with the rest (it went on and
                # wrote after "discard"; a helper's try)
                self._discarded = True
                super(ModelConnectionsDialog, self).reject()

        box.finished.connect(lambda _r: answered())
        box.open()

    def _update(self) -> None:
        remote = self.kind.currentData() in ("ollama", "openai-compatible")
        for widget in (self.base_url, self.model_list, self.dimensions, self.key):
            widget.setEnabled(remote)
        self.test_button.setEnabled(self.kind.currentData() != "none")  # off: nothing to test
        show_address_example(self.base_url, self.kind.currentData())
        self._show_data_path()

    def _show_data_path(self) -> None:
        """Where text would go with the form as it stands (saved or not)."""
        kind = str(self.kind.currentData())
        url, model = self.base_url.text().strip(), self.model.text().strip()
        self.key.setPlaceholderText(key_placeholder(self.stored_key, url))
        refused = address_problem(url) if kind in ("openai-compatible", "ollama") else None
        self.data_path.setText(refused or say_text(m.data_path(kind, url or None, model or None)))

    def connection(self) -> m.EmbeddingConnection:
        remote = self.kind.currentData() in ("ollama", "openai-compatible")
        # the batch size and timeout this form does not show (`model embedding --batch-size`)
        # are the saved connection's: a save here set them back to the defaults (a helper's try)
        batch, timeout = self.tuning
        return m.EmbeddingConnection(
            kind=self.kind.currentData(),
            base_url=self.base_url.text().strip() or None if remote else None,
            model=self.model.text().strip() or None if remote else None,
            dimensions=self.dimensions.value() or None if remote else None,
            batch_size=batch,
            timeout_s=timeout,
        )

    def _embedding_checks(self) -> tuple[Probe, m.EmbeddingConnection] | None:
        """The test of the form's connection, and the connection (None, with the problem
        shown, when the values do not make one)."""
        try:
            connection = self.connection()
            request = m.EmbeddingTestRequest(connection=connection, api_key=self.key.text() or None)
        except ValueError as exc:
            self.outcome.setText("⚠ " + problem(exc))
            return None
        return probe_of(EMBEDDING_TEST, request, self.outcome, _embedding_success), connection

    def save(self) -> None:
        checks = self._embedding_checks()
        if checks is None:
            return
        probe, connection = checks
        key = self.key.text() or None  # empty: keep the stored key
        request = m.EmbeddingUpdateRequest(connection=connection, api_key=key)

        def write() -> None:
            self.link.call(EMBEDDING_UPDATE, request, self._saved)

        needs_test = request.connection.kind != "none"  # "off" has nothing to test
        self._save_checked(PendingSave(probe, self.save_button, write, needs_test))

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
        checks = self._embedding_checks()
        if checks is not None:
            self._run(checks[0], tr("conn.testing"))


def _embedding_success(result: m.EmbeddingTestResponse) -> str:
    return tr("conn.test.ok", dims=result.dimensions, ms=result.latency_ms or 0.0)
