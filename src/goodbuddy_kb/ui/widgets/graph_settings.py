"""The graph settings, opened from the Knowledge graph tab and from the library's Settings tab
(PRD §6): one dialog — strategy, per-chunk caps, minimum confidence and the graph channel's
weight — and the flow that saves it (``knowledge:graph:update``, then the weight in the
library's retrieval settings when it changed), keeping a refusal in the dialog."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    GRAPH_UPDATE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog


class GraphSettingsDialog(FormDialog):
    """Strategy, per-chunk caps, minimum confidence (``knowledge:graph:update``) and the graph
    weight (a retrieval setting), with why the weight does nothing while the graph is off."""

    def __init__(
        self,
        library_id: str,
        settings: g.GraphSettings,
        weight: float | None,
        parent: QtWidgets.QWidget | None = None,
        chat_model: bool = True,
    ) -> None:
        super().__init__(tr("graph.dialog.settings"), parent)
        self.setMinimumWidth(460)
        self.library_id = library_id
        self.strategy = QtWidgets.QComboBox()
        for key in ("off", "local", "model"):
            self.strategy.addItem(tr(f"graph.strategy.{key}"), key)
        # drawn by the item delegate the style sheet's ::item:disabled colour reaches (the
        # combo's own menu-like delegate drew a disabled item like those that can be chosen)
        self.strategy.setItemDelegate(QtWidgets.QStyledItemDelegate(self.strategy))
        self.strategy.setCurrentIndex(self.strategy.findData(settings.strategy))
        self.set_chat_model(chat_model)
        self.max_entities = QtWidgets.QSpinBox()
        self.max_entities.setRange(1, 200)
        self.max_entities.setValue(settings.max_entities_per_chunk)
        self.max_relations = QtWidgets.QSpinBox()
        self.max_relations.setRange(0, 200)
        self.max_relations.setValue(settings.max_relations_per_chunk)
        self.min_confidence = QtWidgets.QDoubleSpinBox()
        self.min_confidence.setRange(0.0, 1.0)
        self.min_confidence.setSingleStep(0.05)
        self.min_confidence.setValue(settings.min_confidence)
        self.weight = QtWidgets.QDoubleSpinBox()
        self.weight.setRange(0.0, 2.0)
        self.weight.setSingleStep(0.1)
        self.weight.setValue(weight if weight is not None else 0.8)
        self.weight.setEnabled(weight is not None)
        self.add("graph.field.strategy", self.strategy)
        self.strategy_note = QtWidgets.QLabel()
        self.strategy_note.setWordWrap(True)
        self.strategy_note.setObjectName("muted")
        self.form.addRow(self.strategy_note)
        self.add("graph.field.weight", self.weight)
        self.weight_note = QtWidgets.QLabel("ⓘ " + tr("settings.graph_off"))
        self.weight_note.setWordWrap(True)
        self.form.addRow(self.weight_note)
        self.add("graph.field.max_entities", self.max_entities)
        self.add("graph.field.max_relations", self.max_relations)
        self.add("graph.field.min_confidence", self.min_confidence)
        confidence_note = QtWidgets.QLabel("ⓘ " + tr("graph.min_confidence.note"))
        confidence_note.setWordWrap(True)
        confidence_note.setObjectName("muted")
        self.form.addRow(confidence_note)
        self.strategy.currentIndexChanged.connect(lambda _i: self._explain())
        self._explain()
        self.build = self._build_request
        self.strategy.setFocus()

    def set_chat_model(self, configured: bool) -> None:
        """Offer the model strategy only with a chat model: offered without one, it was chosen
        and "Extract graph" then failed at once with no estimate (a helper's try). A strategy
        already "model" stays choosable (it is what is saved)."""
        index = self.strategy.findData("model")
        item = self.strategy.model().item(index)  # type: ignore[attr-defined]
        offered = configured or self.strategy.currentData() == "model"
        key = "graph.strategy.model" if offered else "graph.strategy.model.unavailable"
        self.strategy.setItemText(index, tr(key))
        item.setEnabled(offered)
        item.setToolTip("" if offered else tr("graph.strategy.model.needs_chat"))

    def _explain(self) -> None:
        key = self.strategy.currentData()
        self.strategy_note.setText(tr(f"graph.strategy.{key}.note"))
        self.weight_note.setVisible(key == "off")

    def _build_request(self) -> tuple[g.GraphSettings, float | None]:
        return (
            g.GraphSettings(
                strategy=self.strategy.currentData(),
                max_entities_per_chunk=self.max_entities.value(),
                max_relations_per_chunk=self.max_relations.value(),
                min_confidence=round(self.min_confidence.value(), 2),
            ),
            round(self.weight.value(), 2) if self.weight.isEnabled() else None,
        )


def graph_settings_dialog(
    link: BackendLink,
    parent: QtWidgets.QWidget,
    info: g.GraphInfo,
    weight: float | None,
    saved: Callable[[g.GraphInfo | None], None],
) -> GraphSettingsDialog:
    """The settings dialog of ``info``'s library, wired to save: the graph's settings, then the
    graph weight when it changed from ``weight``; ``saved`` gets the graph once all is saved
    (the dialog closes), a refusal stays in the dialog. The caller opens it."""
    library_id = info.library_id
    dialog = GraphSettingsDialog(
        library_id, info.settings, weight, parent, info.estimated_model_calls is not None
    )
    # whether a chat model is set up now: the graph's state the caller holds may be older than
    # the model (one set up since was still "needed" until a relaunch; a helper's try)
    link.call(
        CHAT_MODEL_GET,
        ch.ChatGetRequest(),
        lambda result, _e: (
            dialog.set_chat_model(result.connection.kind != "none") if result is not None else None
        ),
    )

    def finish(result: g.GraphInfo | None, error: KbError | None) -> None:
        if error is not None:
            dialog.show_error(say_error(error))
            return
        dialog.accept()
        saved(result)

    def save_weight(result: g.GraphInfo | None, new_weight: float) -> None:
        def got(current: c.LibrarySettings | None, error: KbError | None) -> None:
            if current is None:
                finish(result, error)
                return
            retrieval = current.retrieval.model_copy(update={"graph_weight": new_weight})
            link.call(
                SETTINGS_UPDATE,
                c.SettingsUpdateRequest(library_id=library_id, retrieval=retrieval),
                lambda _r, error2: finish(result, error2),
            )

        link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), got)

    def submit(request: tuple[g.GraphSettings, float | None]) -> None:
        settings, new_weight = request

        def updated(result: g.GraphInfo | None, error: KbError | None) -> None:
            if error is not None or new_weight is None or new_weight == weight:
                finish(result, error)
            else:
                save_weight(result, new_weight)

        link.call(
            GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings), updated
        )

    dialog.submitted.connect(submit)
    return dialog
