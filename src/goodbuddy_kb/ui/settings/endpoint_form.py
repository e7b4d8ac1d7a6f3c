"""One remote endpoint's form in the model connections dialog — the chat model, the rerank
service — and the parts every form there shares: the address, model and write-only key fields,
Test and Save buttons, the outcome line, the model list of an endpoint, and a connection test's
probe. The two forms differ only in what ``Endpoint`` says. A form knows the backend link, not
its dialog: it asks the dialog to test and to save through signals."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    MODELS_LIST,
    RERANK_TEST,
    RERANK_UPDATE,
    MethodSpec,
    Req,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_field
from goodbuddy_kb.ui.settings.problems import StoredKey, address_problem, key_placeholder, problem


def status_label() -> QtWidgets.QLabel:
    """A form's outcome line; it keeps room for two lines so the forms do not jump or squeeze."""
    label = QtWidgets.QLabel()
    label.setWordWrap(True)
    label.setMinimumHeight(2 * label.fontMetrics().lineSpacing() + 4)
    label.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
    return label


def sentence_label(lines: int = 3) -> QtWidgets.QLabel:
    """A sentence that follows the form as it is typed in (where its text goes): it keeps room
    for ``lines`` lines, so the buttons under it stay where the pointer is (Test moved down a
    line under the pointer as a key was typed; a helper's try)."""
    label = status_label()
    label.setMinimumHeight(lines * label.fontMetrics().lineSpacing() + 4)
    label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
    return label


#: An example address per kind, shown greyed in an empty address field: each server's own
#: default (Ollama listens on 11434; OpenAI-compatible servers take the /v1 prefix, e.g. vLLM's
#: 8000). Nothing is filled in or saved from it.
ADDRESS_EXAMPLES = {
    "ollama": "http://127.0.0.1:11434",
    "openai-compatible": "http://127.0.0.1:8000/v1",
}


def show_address_example(url: QtWidgets.QLineEdit, kind: object) -> None:
    """The example for ``kind`` in the empty address field (none for a kind with no address)."""
    url.setPlaceholderText(ADDRESS_EXAMPLES.get(str(kind), ""))


def endpoint_fields() -> tuple[QtWidgets.QLineEdit, QtWidgets.QLineEdit, QtWidgets.QLineEdit]:
    url, model, key = QtWidgets.QLineEdit(), QtWidgets.QLineEdit(), QtWidgets.QLineEdit()
    key.setEchoMode(QtWidgets.QLineEdit.EchoMode.Password)
    for widget, name in ((url, "conn.base_url"), (model, "conn.model"), (key, "conn.key")):
        widget.setAccessibleName(tr(name))
    return url, model, key


def form_buttons(
    what: str, test: Callable[[], None], save: Callable[[], None]
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


def clear_on_change(
    status: QtWidgets.QLabel, kind: QtWidgets.QComboBox, fields: tuple[QtWidgets.QLineEdit, ...]
) -> None:
    """An outcome ("✗ Connection failed … · Not saved") is of the values it was given: a change
    of the provider or an edit of a field takes it away."""
    kind.currentIndexChanged.connect(lambda _i: status.clear())
    for field in fields:
        field.textEdited.connect(lambda _t: status.clear())


class ModelPicker(QtWidgets.QWidget):
    """A model name field that also offers the models the endpoint lists (OpenAI-compatible
    ``/v1/models``, Ollama ``/api/tags``): "List models" asks the backend, the names drop down
    as completions, and a typed name is accepted as it is."""

    listed = QtCore.Signal()

    def __init__(
        self,
        link: BackendLink,
        purpose: Literal["chat", "embedding"],
        field: QtWidgets.QLineEdit,
        kind: QtWidgets.QComboBox,
        url: QtWidgets.QLineEdit,
        key: QtWidgets.QLineEdit,
        status: QtWidgets.QLabel,
    ) -> None:
        super().__init__()
        self.link, self.purpose, self.field = link, purpose, field
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
        if kind == "ollama" and not url:
            # Ollama's own address, shown greyed in the empty field: asked for there (it read
            # "choose Ollama … and enter its address first" with Ollama chosen), and filled in
            url = ADDRESS_EXAMPLES["ollama"]
            self.url.setText(url)
        if kind not in ("openai-compatible", "ollama") or not url:
            self.status.setText("ⓘ " + tr("conn.list_models.need_url"))
            return
        try:
            request = m.ModelListRequest(
                purpose=self.purpose, kind=kind, base_url=url, api_key=self.key.text() or None
            )
        except ValueError as exc:  # an address holding a key (contracts.models.check_service_url)
            self.status.setText("⚠ " + problem(exc))
            return
        self.status.setText("… " + tr("conn.list_models.asking"))
        self.link.call(MODELS_LIST, request, self._got)

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


#: A remote endpoint's connection settings, what its test and its save send and answer.
Conn = TypeVar("Conn", c.ChatConnection, m.RerankConnection)
TestReq = TypeVar("TestReq", c.ChatTestRequest, m.RerankTestRequest)
UpdateReq = TypeVar("UpdateReq", c.ChatUpdateRequest, m.RerankUpdateRequest)
Info = TypeVar("Info", c.ChatInfo, m.RerankInfo)
#: Every connection test answers whether it passed and, if not, why (a coded error field).
TestResp = TypeVar("TestResp", c.ChatTestResponse, m.RerankTestResponse, m.EmbeddingTestResponse)
InfoCallback = Callable[[c.ChatInfo | m.RerankInfo | None, KbError | None], None]


@dataclass(frozen=True)
class Endpoint(Generic[Conn, TestReq, TestResp, UpdateReq, Info]):
    """What differs between the chat model's form and the rerank service's: the title, the
    provider choice (none for rerank), the methods, how the form's values become requests, the
    words for a successful test, and whether a save needs a test first."""

    title: str
    kinds: tuple[tuple[str, str], ...]
    test_spec: MethodSpec[TestReq, TestResp]
    update_spec: MethodSpec[UpdateReq, Info]
    connection: Callable[[str, str | None, str | None], Conn]
    test_request: Callable[[Conn, str | None], TestReq]
    update_request: Callable[[Conn, str | None], UpdateReq]
    success: Callable[[TestResp], str]
    needs_test: Callable[[Conn], bool]
    lists_models: bool
    #: The i18n key of "where your text goes" (``conn.path.<paths>``, ``…_off``, ``…_unset``).
    paths: str

    def checks(self, values: FormValues, status: QtWidgets.QLabel) -> tuple[Probe, Write]:
        """The test of the form's values and their save (``ValueError`` when they do not make
        a connection)."""
        connection = self.connection(values.kind, values.url, values.model)
        probe = probe_of(
            self.test_spec, self.test_request(connection, values.key), status, self.success
        )
        request = self.update_request(connection, values.key)

        def write(link: BackendLink, done: InfoCallback) -> None:
            link.call(self.update_spec, request, done)

        return probe, Write(write, self.needs_test(connection))


@dataclass(frozen=True)
class FormValues:
    """What a form holds: the provider, the address, the model and the typed key."""

    kind: str
    url: str | None
    model: str | None
    key: str | None


@dataclass(frozen=True)
class Write:
    """A form's save, ready to send, and whether its test must pass first."""

    send: Callable[[BackendLink, InfoCallback], None]
    needs_test: bool


class EndpointKind(Protocol):
    """An ``Endpoint`` as its form sees it, whatever its request and answer types."""

    @property
    def title(self) -> str: ...
    @property
    def kinds(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def lists_models(self) -> bool: ...
    @property
    def paths(self) -> str: ...
    def checks(self, values: FormValues, status: QtWidgets.QLabel) -> tuple[Probe, Write]: ...


class EndpointForm(QtWidgets.QGroupBox):
    """One remote endpoint's form (chat model, rerank service): provider, address, model (with
    its list where the endpoint offers one), a write-only key, Test and Save, and the outcome.
    The same rules for both: switched only explicitly, Save tests first. The dialog runs the
    tests and the "save anyway?" question: Test emits ``test_requested`` with the probe, Save
    emits ``save_requested`` with what to write once the test passed (or the user confirmed)."""

    test_requested = QtCore.Signal(object)  # Probe
    save_requested = QtCore.Signal(object)  # PendingSave

    def __init__(self, link: BackendLink, endpoint: EndpointKind) -> None:
        super().__init__(tr(endpoint.title))
        self.link, self.endpoint = link, endpoint
        self.kind = QtWidgets.QComboBox()
        self.kind.setAccessibleName(tr(endpoint.title))
        for kind, label in endpoint.kinds:
            self.kind.addItem(tr(label), kind)
        self.url, self.model, self.key = endpoint_fields()
        self.status = status_label()
        self.test_button, self.save_button, buttons = form_buttons(
            tr(endpoint.title), self.test, self.save
        )
        form = QtWidgets.QFormLayout()
        if endpoint.kinds:
            form.addRow(tr("conn.kind"), self.kind)
        else:  # one kind only (the rerank service): no choice to show
            self.kind.setParent(self)
            self.kind.hide()
        form.addRow(tr("conn.base_url"), self.url)
        self.picker: ModelPicker | None = None
        if endpoint.lists_models:
            self.picker = ModelPicker(
                link, "chat", self.model, self.kind, self.url, self.key, self.status
            )
            form.addRow(tr("conn.model"), self.picker)
        else:
            form.addRow(tr("conn.model"), self.model)
        form.addRow(tr("conn.key"), self.key)
        #: Where the text goes with the form as it is being edited (not as it was saved).
        self.data_path = sentence_label()
        # Wrapped labels sit outside the form layout, which would clip their second line.
        column = QtWidgets.QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.data_path)
        column.addLayout(buttons)
        column.addWidget(self.status)
        self.kind.currentIndexChanged.connect(lambda _i: self._update())
        for field in (self.url, self.model):
            field.textChanged.connect(lambda _t: self._show_data_path())
        clear_on_change(self.status, self.kind, (self.url, self.model, self.key))
        #: What the form showed when the saved connection arrived (None until then).
        self.shown: FormValues | None = None
        self.stored_key: StoredKey | None = None
        self._update()

    def unsaved(self) -> bool:
        """The form holds edits not saved (a typed key counts)."""
        return self.shown is not None and self.values() != self.shown

    def _update(self) -> None:
        """With no model chosen ("none") the address, model, key and Test have nothing to do:
        they are disabled, as on the embedding page; Save stays (it switches the model off)."""
        remote = self.kind.currentData() != "none"
        for widget in (self.url, self.picker or self.model, self.key, self.test_button):
            widget.setEnabled(remote)
        if self.endpoint.kinds:
            show_address_example(self.url, self.kind.currentData())
        self._show_data_path()

    def _show_data_path(self) -> None:
        paths = "conn.path." + self.endpoint.paths
        url, model = self.url.text().strip(), self.model.text().strip()
        self.key.setPlaceholderText(key_placeholder(self.stored_key, url))
        refused = address_problem(url)
        if refused is not None:  # said at once, and the address (with its key) not repeated
            self.data_path.setText(refused)
        elif self.kind.currentData() == "none" or (not self.endpoint.kinds and not url):
            self.data_path.setText(tr(paths + "_off"))
        elif url and model:
            # the form's values, not yet saved: they "will be" sent, once saved
            key = paths + "_draft" if self.unsaved() else paths
            self.data_path.setText(tr(key, url=url, model=model))
        else:
            self.data_path.setText(tr(paths + "_unset"))

    def show_info(self, info: c.ChatInfo | m.RerankInfo | None) -> None:
        if info is None:
            return
        kind = getattr(info.connection, "kind", None)
        if kind is not None:
            self.kind.setCurrentIndex(max(0, self.kind.findData(kind)))
        self.url.setText(info.connection.base_url or "")
        self.model.setText(info.connection.model or "")
        self.key.clear()
        self.stored_key = (info.has_api_key, info.key_origin)
        self.shown = self.values()
        self._show_data_path()  # saved: "are sent", not "once saved"

    def values(self) -> FormValues:
        return FormValues(
            self.kind.currentData() or "",
            self.url.text().strip() or None,
            self.model.text().strip() or None,
            self.key.text() or None,
        )

    def checks(self) -> tuple[Probe, Write] | None:
        """The test and the save of the form's values (None, with the problem shown, when
        they do not make a connection)."""
        try:
            return self.endpoint.checks(self.values(), self.status)
        except ValueError as exc:
            self.status.setText("⚠ " + problem(exc))
            return None

    def test(self) -> None:
        checks = self.checks()
        if checks is not None:
            self.test_requested.emit(checks[0])

    def save(self) -> None:
        checks = self.checks()
        if checks is None:
            return
        probe, save = checks

        def done(info: c.ChatInfo | m.RerankInfo | None, error: KbError | None) -> None:
            self.save_button.setEnabled(True)
            self.status.setText("⚠ " + say_error(error) if error else "✓ " + tr("conn.saved"))
            self.show_info(info)

        def write() -> None:
            save.send(self.link, done)

        self.save_requested.emit(PendingSave(probe, self.save_button, write, save.needs_test))


@dataclass(frozen=True)
class Probe:
    """One form's connection test, ready to send: the label that shows the outcome, and the
    call that runs the test, shows ✓ with the words for a success or ✗ with the failure, and
    reports None on success, else the failure."""

    status: QtWidgets.QLabel
    send: Callable[[BackendLink, Callable[[str | None], None]], None]
    #: What is tested (the method and its request, the typed key hashed): a save of exactly
    #: what has just passed its test need not ask the service again.
    identity: str = ""


def probe_of(
    spec: MethodSpec[Req, TestResp],
    request: Req,
    status: QtWidgets.QLabel,
    success: Callable[[TestResp], str],
) -> Probe:
    """The probe that sends ``request`` to the test ``spec``."""

    def send(link: BackendLink, report: Callable[[str | None], None]) -> None:
        def done(result: TestResp | None, error: KbError | None) -> None:
            failure: str | None
            if result is not None and result.ok:
                failure = None
                status.setText("✓ " + success(result))
            else:
                failure = (
                    say_field(result, "error")
                    if result is not None
                    else (say_error(error) if error else "")
                )
                status.setText("✗ " + tr("conn.test.fail", error=failure))
            report(failure)

        link.call(spec, request, done)

    tested = json.dumps([spec.name, request.to_wire()], sort_keys=True, ensure_ascii=False)
    return Probe(status, send, hashlib.sha256(tested.encode("utf-8")).hexdigest())


@dataclass(frozen=True)
class PendingSave:
    """A form's Save: its probe, its Save button (disabled until done), the call that writes,
    and whether the probe must pass first (or the user confirm)."""

    probe: Probe
    button: QtWidgets.QPushButton
    write: Callable[[], None]
    needs_test: bool


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


def _chat_connection(kind: str, url: str | None, model: str | None) -> c.ChatConnection:
    remote = kind != "none"
    return c.ChatConnection(
        kind=kind,  # type: ignore[arg-type]
        base_url=url if remote else None,
        model=model if remote else None,
    )


CHAT_ENDPOINT = Endpoint(
    title="chat.model",
    kinds=(
        ("none", "chat.model.none"),
        # in the embedding page's order (it listed OpenAI first here, Ollama first there)
        ("ollama", "conn.kind.ollama"),
        ("openai-compatible", "conn.kind.openai-compatible"),
    ),
    test_spec=CHAT_MODEL_TEST,
    update_spec=CHAT_MODEL_UPDATE,
    connection=_chat_connection,
    test_request=lambda conn, key: c.ChatTestRequest(connection=conn, api_key=key),
    update_request=lambda conn, key: c.ChatUpdateRequest(connection=conn, api_key=key),
    success=_chat_success,
    # "None" switches the chat model off: there is nothing to test.
    needs_test=lambda conn: conn.kind != "none",
    lists_models=True,
    paths="chat",
)
RERANK_ENDPOINT = Endpoint(
    title="rerank.service",
    kinds=(),
    test_spec=RERANK_TEST,
    update_spec=RERANK_UPDATE,
    connection=lambda _kind, url, model: m.RerankConnection(base_url=url, model=model),
    test_request=lambda conn, key: m.RerankTestRequest(connection=conn, api_key=key),
    update_request=lambda conn, key: m.RerankUpdateRequest(connection=conn, api_key=key),
    success=_rerank_success,
    # An empty address removes the service (learned rerank falls back to local rules).
    needs_test=lambda conn: bool(conn.base_url),
    lists_models=False,
    paths="rerank",
)
