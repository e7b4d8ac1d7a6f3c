"""The Knowledge graph tab's edit actions: a new entity, rename/retype/aliases, merge and delete;
a new relation, retype and delete; the ontology editor and the graph settings. Each opens its
dialog (``opened``), sends its request, keeps a refusal in the dialog and, once saved, says so
(``notice``) and asks the tab to refresh (``changed``). The state they edit is the tab's
``GraphState``; they never touch the tab's widgets."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_ENTITY_CREATE,
    GRAPH_ENTITY_DELETE,
    GRAPH_ENTITY_MERGE,
    GRAPH_ENTITY_UPDATE,
    GRAPH_RELATION_CREATE,
    GRAPH_RELATION_DELETE,
    GRAPH_RELATION_UPDATE,
    GRAPH_UPDATE,
    MethodSpec,
    Req,
    Resp,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.graph.dialogs import (
    EntityPicker,
    entity_dialog,
    merge_dialog,
    relation_dialog,
)
from goodbuddy_kb.ui.graph.ontology import OntologyDialog
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.graph.texts import relation_text
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog
from goodbuddy_kb.ui.widgets.graph_settings import graph_settings_dialog


class GraphEdits(QtCore.QObject):
    notice = QtCore.Signal(str)
    #: A dialog of an edit opened (the dialog).
    opened = QtCore.Signal(object)
    #: An edit was saved: the graph's state and list are stale.
    changed = QtCore.Signal()
    #: Show this entity (a new one).
    show_entity = QtCore.Signal(str)
    #: The library's graph as saved by the ontology editor or the settings.
    info_saved = QtCore.Signal(object)
    #: The shown entity was deleted.
    entity_deleted = QtCore.Signal()

    def __init__(self, link: BackendLink, state: GraphState, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.link = link
        self.state = state
        #: The dialogs' parent.
        self.window = parent

    def _run(
        self,
        dialog: FormDialog,
        spec: MethodSpec[Req, Resp],
        after: Callable[[Resp], None] | None = None,
    ) -> None:
        """Open ``dialog``; its request (the dialog builds ``spec``'s request type) goes to
        ``spec``; a refusal stays in the dialog; ``after`` gets the saved answer."""
        self.opened.emit(dialog)

        def submit(request: Req) -> None:
            def done(result: Resp | None, error: KbError | None) -> None:
                if error is not None:
                    dialog.show_error(say_error(error))
                    return
                dialog.accept()
                if after is not None and result is not None:
                    after(result)
                self.changed.emit()

            self.link.call(spec, request, done)

        dialog.submitted.connect(submit)
        dialog.open()

    def _wire_picker(self, picker: EntityPicker) -> None:
        library_id = self.state.library_id

        def search(text: str) -> None:
            if library_id is None:
                return
            self.link.call(
                GRAPH_ENTITIES,
                g.EntitiesListRequest(library_id=library_id, search=text or None, limit=200),
                lambda result, _e: picker.respond(result.entities) if result else None,
            )

        picker.search_requested.connect(search)
        search("")

    def _confirm(self, title: str, text: str, confirm: str, then: Callable[[], None]) -> None:
        """Ask before a deletion; ``then`` runs once the person confirmed."""
        box = confirm_action(self.window, title, text, confirm)
        self.opened.emit(box)

        def answered() -> None:
            if box.clickedButton() is box.property("confirmButton"):
                then()

        box.finished.connect(lambda _r: answered())
        box.open()

    # -- entities ------------------------------------------------------------------------
    def new_entity(self) -> None:
        library_id, info = self.state.library_id, self.state.info
        if library_id is None or info is None:
            return
        dialog = entity_dialog(self.window, library_id, info.ontology, None, "new")
        self._run(dialog, GRAPH_ENTITY_CREATE, lambda r: self.show_entity.emit(r.entity.id))

    def edit_entity(self, mode: str) -> None:
        library_id, info, detail = self.state.library_id, self.state.info, self.state.detail
        if library_id is None or info is None or detail is None:
            return
        dialog = entity_dialog(self.window, library_id, info.ontology, detail.entity, mode)
        self._run(
            dialog,
            GRAPH_ENTITY_UPDATE,
            lambda r: self.notice.emit(tr("graph.saved", name=r.entity.name)),
        )

    def merge(self) -> None:
        library_id, info, detail = self.state.library_id, self.state.info, self.state.detail
        if library_id is None or info is None or detail is None:
            return
        dialog = merge_dialog(self.window, library_id, info.ontology, detail.entity)
        self._wire_picker(dialog.picker)  # type: ignore[attr-defined]
        self._run(
            dialog,
            GRAPH_ENTITY_MERGE,
            lambda r: self.notice.emit(tr("graph.merged", name=r.entity.name)),
        )

    def delete_entity(self) -> None:
        library_id, detail = self.state.library_id, self.state.detail
        if library_id is None or detail is None:
            return
        entity = detail.entity

        def done(result: g.EntityDeleteResponse | None, error: KbError | None) -> None:
            if error is not None:
                self.notice.emit(tr("error.generic", message=say_error(error)))
                return
            self.entity_deleted.emit()
            self.notice.emit(tr("graph.deleted", name=entity.name))
            self.changed.emit()

        self._confirm(
            tr("graph.delete.title"),
            tr("graph.delete.text", name=entity.name, count=len(detail.relations)),
            tr("graph.delete.confirm", name=entity.name),
            lambda: self.link.call(
                GRAPH_ENTITY_DELETE,
                g.EntityDeleteRequest(library_id=library_id, entity_id=entity.id),
                done,
            ),
        )

    # -- relations -----------------------------------------------------------------------
    def new_relation(self) -> None:
        library_id, info, detail = self.state.library_id, self.state.info, self.state.detail
        if library_id is None or info is None or detail is None:
            return
        dialog = relation_dialog(self.window, library_id, info.ontology, detail.entity)
        self._wire_picker(dialog.picker)  # type: ignore[attr-defined]
        dialog.refill()  # type: ignore[attr-defined]
        self._run(
            dialog,
            GRAPH_RELATION_CREATE,
            lambda r: self.notice.emit(
                tr("graph.relation.saved", relation=relation_text(self.state.ontology, r))
            ),
        )

    def retype_relation(self, relation: g.Relation | None) -> None:
        """The relation retyped among the types its two ends allow (both ends asked for)."""
        if relation is None or self.state.library_id is None or self.state.info is None:
            return
        library_id, ontology = self.state.library_id, self.state.info.ontology

        def got(head: g.EntityDetail | None, _e: KbError | None) -> None:
            def got_tail(tail: g.EntityDetail | None, _e2: KbError | None) -> None:
                if head is None or tail is None:
                    return
                dialog = relation_dialog(
                    self.window,
                    library_id,
                    ontology,
                    head.entity,
                    relation,
                    head.entity.type_key,
                    tail.entity.type_key,
                )
                self._run(dialog, GRAPH_RELATION_UPDATE)

            self.link.call(
                GRAPH_ENTITY,
                g.EntityGetRequest(library_id=library_id, entity_id=relation.tail_id),
                got_tail,
            )

        self.link.call(
            GRAPH_ENTITY, g.EntityGetRequest(library_id=library_id, entity_id=relation.head_id), got
        )

    def delete_relation(self, relation: g.Relation | None) -> None:
        library_id = self.state.library_id
        if relation is None or library_id is None:
            return
        text = relation_text(self.state.ontology, relation)
        self._confirm(
            tr("graph.relation.delete"),
            tr("graph.relation.delete.text", relation=text),
            tr("graph.relation.delete"),
            lambda: self.link.call(
                GRAPH_RELATION_DELETE,
                g.RelationDeleteRequest(library_id=library_id, relation_id=relation.id),
                lambda _r, error: self.notice.emit(
                    tr("error.generic", message=say_error(error))
                    if error
                    else tr("graph.relation.deleted", relation=text)
                ),
            ),
        )

    # -- the graph -----------------------------------------------------------------------
    def open_ontology(self) -> None:
        library_id, info = self.state.library_id, self.state.info
        if info is None or library_id is None:
            return
        dialog = OntologyDialog(info.ontology, self.window)
        self.opened.emit(dialog)
        dialog.submitted.connect(
            lambda ontology: self.link.call(
                GRAPH_UPDATE,
                g.GraphUpdateRequest(library_id=library_id, ontology=ontology),
                lambda result, error: self._saved(dialog, result, error),
            )
        )
        dialog.open()

    def _saved(self, dialog: FormDialog, result: g.GraphInfo | None, error: KbError | None) -> None:
        if error is not None:
            dialog.show_error(say_error(error))
            return
        dialog.accept()
        if result is not None:
            self.info_saved.emit(result)
        self.changed.emit()

    def open_settings(self) -> None:
        """The graph's settings, and the graph channel's weight in the library's retrieval
        settings when it changed."""
        info = self.state.info
        if info is None or self.state.library_id is None:
            return
        dialog = graph_settings_dialog(
            self.link, self.window, info, self.state.weight, self._settings_saved
        )
        self.opened.emit(dialog)
        dialog.open()

    def _settings_saved(self, result: g.GraphInfo | None) -> None:
        if result is not None:
            self.info_saved.emit(result)
        self.changed.emit()
