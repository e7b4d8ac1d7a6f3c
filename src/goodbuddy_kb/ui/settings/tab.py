"""The Settings tab: retrieval and chunking forms (PRD §7.3, §8.1) with ranges from the
contracts, inline field errors, the graph weight read-only while the graph is off, the
"waiting for rebuild" notice after a chunking change, and the library's knowledge graph with the
graph settings the Knowledge graph tab also opens (PRD §6)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import InvalidRequestError, KbError, invalid_request_from
from goodbuddy_kb.contracts.graph import GraphGetRequest, GraphInfo
from goodbuddy_kb.contracts.methods import GRAPH_GET, SETTINGS_GET, SETTINGS_UPDATE
from goodbuddy_kb.contracts.settings import (
    MAX_OVERLAP_SHARE,
    KnowledgeChunkingSettings,
    KnowledgeRetrievalSettings,
)
from goodbuddy_kb.contracts.tasks import FINISHED_STATES, TaskInfo
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.manual_work import kept_sentence
from goodbuddy_kb.ui.graph.texts import status_line
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say, say_error
from goodbuddy_kb.ui.settings.fields import (
    CHUNKING,
    FLOAT_FIELDS,
    INT_FIELDS,
    RETRIEVAL,
    GraphBox,
    align_ranges,
    fusion_choice,
    number_text,
)
from goodbuddy_kb.ui.settings.instructions import InstructionsBox
from goodbuddy_kb.ui.widgets.graph_settings import graph_settings_dialog

#: The form's keys each save button saves (:meth:`SettingsTab._form`).
RETRIEVAL_KEYS = [*RETRIEVAL, "localRerankEnabled", "fusion"]
CHUNKING_KEYS = [*CHUNKING, "mode", "contextualIndexing", "ocrEnabled"]


class SettingsTab(QtWidgets.QWidget):
    notice = QtCore.Signal(str)
    #: "Rebuild library" next to the "waiting for rebuild" notice (the window confirms it).
    rebuild_requested = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id: str | None = None
        #: The library's graph as last read, and its graph weight as saved.
        self.graph_info: GraphInfo | None = None
        self.saved_graph_weight: float | None = None
        #: The form as the library's settings filled it, and edits kept for libraries left
        #: without saving (shown again, still unsaved, when their library is).
        self._shown: dict[str, Any] = {}
        self._unsaved: dict[str, dict[str, Any]] = {}
        self._kept_note = "settings.unsaved_kept"
        self.names: dict[str, str] = {}  # library id → name, for the question on closing
        self.leaving_box: QtWidgets.QMessageBox | None = None  # (``leaving``)
        #: The graph settings dialog last opened.
        self.dialog: QtWidgets.QDialog | None = None
        self.fields: dict[str, QtWidgets.QAbstractSpinBox] = {}
        link.changed.connect(self._refresh_notice)
        link.task.connect(self._graph_task)
        self.errors: dict[str, QtWidgets.QLabel] = {}
        #: Each field's "range low–high" beside it.
        self.ranges: dict[str, QtWidgets.QLabel] = {}
        retrieval = QtWidgets.QGroupBox(tr("settings.retrieval"))
        form = QtWidgets.QFormLayout(retrieval)
        for name in RETRIEVAL:
            self._add_field(form, name)
        align_ranges([self.ranges[n] for n in RETRIEVAL])
        self.rerank_box = QtWidgets.QCheckBox(tr("field.localRerankEnabled"))
        self.rerank_box.setAccessibleName(tr("field.localRerankEnabled"))
        form.addRow(self.rerank_box)
        self.fusion_box = fusion_choice()
        fusion_label = QtWidgets.QLabel(tr("field.fusion"))
        fusion_label.setBuddy(self.fusion_box)
        form.addRow(fusion_label, self.fusion_box)
        self.fields["graphWeight"].setEnabled(False)
        self.fields["graphWeight"].setToolTip(tr("settings.graph_off"))
        self.graph_off = QtWidgets.QLabel("ⓘ " + tr("settings.graph_off"))
        self.graph_off.setWordWrap(True)
        form.addRow(self.graph_off)
        self.retrieval_error = QtWidgets.QLabel()
        self.retrieval_error.setWordWrap(True)
        self.retrieval_error.hide()
        form.addRow(self.retrieval_error)
        self.save_retrieval = QtWidgets.QPushButton(tr("settings.save"))
        self.save_retrieval.setAccessibleName(tr("settings.save") + " " + tr("settings.retrieval"))
        self.save_retrieval.clicked.connect(self.save_retrieval_settings)
        form.addRow(self.save_retrieval)
        chunking = QtWidgets.QGroupBox(tr("settings.chunking"))
        cform = QtWidgets.QFormLayout(chunking)
        self.mode_box = QtWidgets.QComboBox()
        self.mode_box.setAccessibleName(tr("field.mode"))
        for mode in ("fixed", "structure", "parent-child"):
            self.mode_box.addItem(tr(f"mode.{mode}"), mode)
        cform.addRow(tr("field.mode"), self.mode_box)
        for name in CHUNKING:
            self._add_field(cform, name)
        align_ranges([self.ranges[n] for n in CHUNKING])
        self.mode_box.currentIndexChanged.connect(lambda _i: self._follow_mode())
        self.contextual_box = QtWidgets.QCheckBox(tr("field.contextualIndexing"))
        self.contextual_box.setAccessibleName(tr("field.contextualIndexing"))
        cform.addRow(self.contextual_box)
        self.ocr_box = QtWidgets.QCheckBox(tr("field.ocrEnabled"))
        self.ocr_box.setAccessibleName(tr("field.ocrEnabled"))
        self.ocr_box.setToolTip(tr("settings.ocr_hint"))
        cform.addRow(self.ocr_box)
        self.rebuild_notice = QtWidgets.QLabel("⟳ " + tr("settings.rebuild_notice"))
        self.rebuild_notice.setWordWrap(True)
        self.rebuild_notice.hide()
        cform.addRow(self.rebuild_notice)
        self.rebuild_button = QtWidgets.QPushButton(tr("rebuild.library"))
        self.rebuild_button.setAccessibleName(tr("rebuild.library"))
        self.rebuild_button.clicked.connect(self.rebuild_requested.emit)
        self.rebuild_button.hide()
        cform.addRow(self.rebuild_button)
        self.save_chunking = QtWidgets.QPushButton(tr("settings.save"))
        self.save_chunking.setAccessibleName(tr("settings.save") + " " + tr("settings.chunking"))
        self.save_chunking.clicked.connect(self.save_chunking_settings)
        cform.addRow(self.save_chunking)
        # Side by side when there is room, one above the other when narrow; a scroll area so
        # no field is ever clipped.
        self.instructions = InstructionsBox(link)
        self.instructions.notice.connect(self.notice.emit)
        body = QtWidgets.QWidget()
        stacked = QtWidgets.QVBoxLayout(body)
        self.columns = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.LeftToRight)
        self.columns.addWidget(retrieval, 1)
        self.columns.addWidget(chunking, 1)
        stacked.addLayout(self.columns)
        graph = GraphBox(self.open_graph_settings)
        self.graph_summary, self.graph_settings_button = graph.summary, graph.settings_button
        stacked.addWidget(graph)
        stacked.addWidget(self.instructions)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

    def open_graph_settings(self) -> None:
        info = self.graph_info
        if info is None or info.library_id != self.library_id:
            return
        self.dialog = graph_settings_dialog(
            self.link, self, info, self.saved_graph_weight, self._graph_saved
        )
        self.dialog.open()

    def _graph_saved(self, _info: GraphInfo | None) -> None:
        """The graph's state, and the graph weight as saved (the rest of the form keeps what
        the person is typing)."""
        library_id = self.library_id
        self._show_graph_state()

        def got(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and library_id == self.library_id:
                self.saved_graph_weight = result.retrieval.graph_weight
                weight = self.fields["graphWeight"]
                if isinstance(weight, QtWidgets.QDoubleSpinBox):
                    weight.setValue(result.retrieval.graph_weight)

        if library_id is not None:
            self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), got)
        self.notice.emit(tr("settings.saved.graph"))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        narrow = self.width() < 760
        self.columns.setDirection(
            QtWidgets.QBoxLayout.Direction.TopToBottom
            if narrow
            else QtWidgets.QBoxLayout.Direction.LeftToRight
        )
        super().resizeEvent(event)

    def _add_field(self, form: QtWidgets.QFormLayout, name: str) -> None:
        box: QtWidgets.QAbstractSpinBox
        if name in INT_FIELDS:
            spin = QtWidgets.QSpinBox()
            spin.setRange(*INT_FIELDS[name])
            box = spin
        else:
            dspin = QtWidgets.QDoubleSpinBox()
            dspin.setRange(*FLOAT_FIELDS[name])
            # (The minimum relevance is a probability: steps of 0.05 read as "five in a hundred".)
            dspin.setSingleStep(0.05)
            dspin.setDecimals(2)
            box = dspin
        box.setAccessibleName(tr(f"field.{name}"))
        error = QtWidgets.QLabel()
        error.setObjectName("fieldError")
        # a problem reads whole within the panel (unwrapped, it widened the panel past the window
        # and a sideways scroll bar cut the range beside every field)
        error.setWordWrap(True)
        error.hide()
        holder = QtWidgets.QWidget()
        inner = QtWidgets.QVBoxLayout(holder)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(error)
        low, high = INT_FIELDS[name] if name in INT_FIELDS else FLOAT_FIELDS[name]
        allowed = tr("settings.range", low=number_text(low), high=number_text(high))
        range_label = QtWidgets.QLabel(allowed)
        range_label.setObjectName("fieldRange")
        self.ranges[name] = range_label
        explained = f"{tr(f'field.{name}.what')}\n{allowed}"
        box.setAccessibleDescription(explained)
        box.setToolTip(explained)
        label_tip = tr(f"field.{name}.what")
        row = QtWidgets.QHBoxLayout()
        row.addWidget(box, 1)
        row.addWidget(range_label)
        inner.insertLayout(0, row)
        label = QtWidgets.QLabel(tr(f"field.{name}"))
        label.setToolTip(label_tip)
        label.setBuddy(box)
        form.addRow(label, holder)
        self.fields[name], self.errors[name] = box, error
        box.valueChanged.connect(lambda _v: self._recheck())

    def _recheck(self) -> None:
        """The overlap's range follows the target length (40 % of it), and a problem shown goes
        as soon as the values are right again (it stayed until the next save)."""
        target = self._value("targetCharacters")
        overlap = self.ranges.get("overlapCharacters")
        if isinstance(target, int) and overlap is not None:
            high = min(INT_FIELDS["overlapCharacters"][1], int(target * MAX_OVERLAP_SHARE))
            overlap.setText(tr("settings.range", low=number_text(0), high=number_text(high)))
        shown = [*self.errors.values(), self.retrieval_error]
        if not any(label.isVisibleTo(self) for label in shown):
            return
        problems: list[dict[str, Any]] = []
        for model, values in (
            (KnowledgeRetrievalSettings, self.retrieval_values()),
            (KnowledgeChunkingSettings, self.chunking_values()),
        ):
            try:
                model.model_validate(values)
            except ValidationError as exc:
                problems += invalid_request_from(exc).details["fields"]
        self._show_field_problems(problems)

    def _follow_mode(self) -> None:
        """The lengths the chosen mode cuts by are the ones to edit: the target in fixed and
        structure mode, the parent and child lengths in parent-child mode (the overlap in all).
        The others keep their values and say why they are off."""
        parent_child = self.mode_box.currentData() == "parent-child"
        for name, used, why in (
            ("targetCharacters", not parent_child, "settings.not_parent_child"),
            ("parentCharacters", parent_child, "settings.parent_child_only"),
            ("childCharacters", parent_child, "settings.parent_child_only"),
        ):
            box = self.fields[name]
            box.setEnabled(used)
            allowed = box.accessibleDescription()
            box.setToolTip(allowed if used else f"{tr(why)}\n{allowed}")

    def _value(self, name: str) -> int | float | None:
        box = self.fields[name]
        return (
            box.value() if isinstance(box, QtWidgets.QSpinBox | QtWidgets.QDoubleSpinBox) else None
        )

    def _keep_unsaved(self) -> None:
        """Changes not saved stay with their library until it is shown again (another library
        chosen, or a language switch, threw them away without a word)."""
        form = self._form()
        if self.library_id is not None and self._shown and form != self._shown:
            self._unsaved[self.library_id] = form

    def take_over(self, old: SettingsTab) -> None:
        """The tab a language switch replaces hands over its unsaved changes."""
        old._keep_unsaved()
        old.instructions.keep_unsaved()
        self._unsaved, self.names = dict(old._unsaved), dict(old.names)
        self.instructions.kept = dict(old.instructions.kept)
        self._kept_note = self.instructions.kept_note = "settings.unsaved_kept_language"

    def show_library(self, library_id: str | None, name: str | None = None) -> None:
        self._keep_unsaved()
        self._shown, self.library_id = {}, library_id
        self.names.update({library_id: name} if library_id and name else {})
        self.graph_info = None
        self.graph_settings_button.setEnabled(False)
        self.instructions.show_library(library_id)
        if library_id is not None:
            self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), self._show)
            self._show_graph_state()

    def _show_graph_state(self) -> None:
        """The graph weight is editable only while the library's graph is on (local or model);
        while it is off the form says why the weight has no effect."""
        library_id = self.library_id

        def done(result: GraphInfo | None, error: KbError | None) -> None:
            if result is None or library_id != self.library_id:
                return
            self.graph_info = result
            self.graph_summary.setText(status_line(result))
            self.graph_settings_button.setEnabled(True)
            on, weight = result.settings.strategy != "off", self.fields["graphWeight"]
            weight.setEnabled(on)
            weight.setToolTip(weight.accessibleDescription() if on else tr("settings.graph_off"))
            self.graph_off.setVisible(not on)

        if library_id is not None:
            self.link.call(GRAPH_GET, GraphGetRequest(library_id=library_id), done)

    def detach(self) -> None:
        """Stop following the backend (this tab is being replaced)."""
        self.link.changed.disconnect(self._refresh_notice)
        self.link.task.disconnect(self._graph_task)

    def _graph_task(self, params: dict[str, Any]) -> None:
        """The graph's counts follow its extraction (it runs after each sync): a finished graph
        task of this library reads them again."""
        info = TaskInfo.model_validate(params)
        if (
            info.kind == "graph"
            and info.library_id == self.library_id
            and info.state in FINISHED_STATES
        ):
            self._show_graph_state()

    def _refresh_notice(self, params: dict[str, Any]) -> None:
        """A rebuild elsewhere may have cleared "waiting for rebuild": update the notice only
        (the form keeps what the user is typing)."""
        library_id = self.library_id
        ours = library_id is not None and library_id in params.get("libraryIds", [])
        if ours and params.get("documents"):  # documents gone take their graph rows with them
            self._show_graph_state()
        if library_id is None or not params.get("settings"):
            return
        self._show_graph_state()
        if params.get("libraryIds") and library_id not in params["libraryIds"]:
            return

        def done(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.library_id:
                self._show_notice(result)

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), done)

    def _show_notice(self, result: c.LibrarySettings) -> None:
        """ "Waiting for rebuild" with its button, and after a rebuild that skipped documents to
        keep their manual chunk work, how many keep old chunks and what to do."""
        kept = result.kept_old_chunks  # what the last rebuild left, not "waiting" as if none ran
        text = "ⓘ " + kept_sentence(kept) if kept else "⟳ " + tr("settings.rebuild_notice")
        self.rebuild_notice.setText(text)
        self.rebuild_notice.setVisible(result.settings_pending_rebuild)
        self.rebuild_button.setVisible(result.settings_pending_rebuild)

    def _show(self, result: c.LibrarySettings | None, error: KbError | None) -> None:
        if result is None or result.library_id != self.library_id:
            return  # (a library left before its settings came: not this one's)
        self.saved_graph_weight = result.retrieval.graph_weight
        self._fill(
            {
                **result.retrieval.to_wire(),
                **result.chunking.to_wire(),
                "contextualIndexing": result.contextual_indexing,
                "ocrEnabled": result.ocr_enabled,
            }
        )
        self._shown = self._form()
        self._show_notice(result)
        for label in self.errors.values():
            label.hide()
        self.retrieval_error.hide()
        kept = self._unsaved.pop(result.library_id, None)
        if kept is not None and kept != self._shown:
            self._fill(kept)
            self.notice.emit(tr(self._kept_note))
        self._kept_note = "settings.unsaved_kept"
        self._recheck()  # the overlap's range, for a target that did not change

    def unsaved(self) -> bool:
        """Changes on the tab, or kept for a library left, that are not saved."""
        return bool(self.unsaved_libraries())

    def unsaved_libraries(self) -> list[str]:
        """The libraries with changes not saved: those left with some, then the one shown."""
        here = (bool(self._shown) and self._form() != self._shown) or self.instructions.unsaved()
        shown = [self.library_id] if here and self.library_id is not None else []
        return list(dict.fromkeys([*self._unsaved, *self.instructions.kept, *shown]))

    def discard_unsaved(self) -> None:
        self._unsaved.clear()
        self.instructions.discard()
        self._shown = self._form() if self._shown else {}

    def _form(self) -> dict[str, Any]:
        """What the form holds (as the settings' wire names)."""
        return {
            **self.retrieval_values(),
            **self.chunking_values(),
            "contextualIndexing": self.contextual_box.isChecked(),
            "ocrEnabled": self.ocr_box.isChecked(),
        }

    def _fill(self, values: dict[str, Any]) -> None:
        for name, box in self.fields.items():
            if isinstance(box, QtWidgets.QSpinBox | QtWidgets.QDoubleSpinBox):
                box.setValue(values[name])
        self.rerank_box.setChecked(values["localRerankEnabled"])
        self.fusion_box.setCurrentIndex(self.fusion_box.findData(values["fusion"]))
        self.mode_box.setCurrentIndex(self.mode_box.findData(values["mode"]))
        self._follow_mode()
        self.contextual_box.setChecked(values["contextualIndexing"])
        self.ocr_box.setChecked(values["ocrEnabled"])

    def _show_errors(self, exc: ValidationError) -> None:
        self._show_field_problems(invalid_request_from(exc).details["fields"])

    def _show_field_problems(self, problems: list[dict[str, Any]]) -> None:
        for label in self.errors.values():
            label.hide()
        self.retrieval_error.hide()
        for item in problems:
            target = self.errors.get(item["field"])
            problem = say(item.get("code"), item.get("params"), item["problem"])
            if target is not None:
                target.setText("⚠ " + problem)
                target.show()
            else:
                self.retrieval_error.setText("⚠ " + problem)
                self.retrieval_error.show()

    def chunking_values(self) -> dict[str, Any]:
        return {"mode": self.mode_box.currentData(), **{n: self._value(n) for n in CHUNKING}}

    def retrieval_values(self) -> dict[str, Any]:
        return {
            **{n: self._value(n) for n in RETRIEVAL},
            "localRerankEnabled": self.rerank_box.isChecked(),
            "fusion": self.fusion_box.currentData(),
        }

    def save_retrieval_settings(self) -> None:
        if self.library_id is None:
            return
        try:
            settings = KnowledgeRetrievalSettings.model_validate(self.retrieval_values())
        except ValidationError as exc:
            self._show_errors(exc)
            return
        self.link.call(
            SETTINGS_UPDATE,
            c.SettingsUpdateRequest(library_id=self.library_id, retrieval=settings),
            lambda result, error: self._saved(result, error, "settings.saved.retrieval"),
        )

    def save_chunking_settings(self) -> None:
        if self.library_id is None:
            return
        try:
            chunking = KnowledgeChunkingSettings.model_validate(self.chunking_values())
        except ValidationError as exc:
            self._show_errors(exc)
            return
        request = c.SettingsUpdateRequest(
            library_id=self.library_id,
            chunking=chunking,
            contextual_indexing=self.contextual_box.isChecked(),
            ocr_enabled=self.ocr_box.isChecked(),
        )
        self.link.call(
            SETTINGS_UPDATE,
            request,
            lambda result, error: self._saved(result, error, "settings.saved.chunking"),
        )

    def _saved(self, result: c.LibrarySettings | None, error: KbError | None, saved: str) -> None:
        """``saved``: the notice naming what was saved (the rest of the tab may still hold
        changes not saved: "Settings saved" read as all of them)."""
        if error is not None:
            fields = error.details.get("fields") if isinstance(error, InvalidRequestError) else None
            if fields:
                self._show_field_problems(
                    [{**f, "field": str(f["field"]).rsplit(".", 1)[-1]} for f in fields]
                )
            else:
                self.notice.emit(tr("error.generic", message=say_error(error)))
            return
        edits = self._form()
        self._show(result, None)
        # the other group's changes, not saved by this, stay in the form (still unsaved)
        other = CHUNKING_KEYS if saved == "settings.saved.retrieval" else RETRIEVAL_KEYS
        self._fill({**self._form(), **{key: edits[key] for key in other}})
        self.notice.emit(tr(saved))
