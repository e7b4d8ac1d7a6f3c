"""The Knowledge graph tab's small dialogs: an entity form (new, rename, retype), aliases, merge,
a relation (new, retype) with pickers limited to the ontology (the graph settings dialog is
shared with the Settings tab: ``ui.widgets.graph_settings``). Each emits ``submitted`` with its
request and keeps the backend's refusal next to its fields."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.graph.texts import entity_type_name, type_label
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog


def type_box(
    types: list[g.EntityType] | list[g.RelationType], current: str | None
) -> QtWidgets.QComboBox:
    box = QtWidgets.QComboBox()
    for t in types:
        label = type_label(t)
        box.addItem(
            label if label.casefold() == t.key.replace("_", " ") else f"{label} ({t.key})", t.key
        )
    if current is not None:
        box.setCurrentIndex(max(0, box.findData(current)))
    return box


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace("，", ",").replace("\n", ",").split(",") if p.strip()]


def entity_dialog(
    parent: QtWidgets.QWidget,
    library_id: str,
    ontology: g.Ontology,
    entity: g.Entity | None,
    mode: str,
) -> FormDialog:
    """mode: ``new`` | ``rename`` | ``retype`` | ``aliases``."""
    title = tr(f"graph.dialog.{mode}")
    # which entity the form changes (the dialog over the list hides the selection)
    named = tr("graph.dialog.of", title=title, name=entity.name) if entity is not None else title
    dialog = FormDialog(named, parent)
    name = QtWidgets.QLineEdit(entity.name if entity else "")
    name.setMaxLength(200)
    types = type_box(ontology.entity_types, entity.type_key if entity else None)
    aliases = QtWidgets.QLineEdit(", ".join(entity.aliases) if entity else "")
    aliases.setPlaceholderText(tr("graph.aliases.placeholder"))
    keep = QtWidgets.QCheckBox(tr("graph.keep_old_name"))
    keep.setChecked(True)
    if mode in ("new", "rename"):
        dialog.add("graph.field.name", name)
    if mode in ("new", "retype"):
        dialog.add("graph.field.type", types)
    if mode in ("new", "aliases"):
        dialog.add("graph.field.aliases", aliases)
    if mode == "rename":
        keep.setAccessibleName(tr("graph.keep_old_name"))
        dialog.form.addRow(keep)
    dialog.name_edit, dialog.type_box, dialog.aliases_edit = name, types, aliases  # type: ignore[attr-defined]
    dialog.keep_box = keep  # type: ignore[attr-defined]

    def build() -> g.EntityCreateRequest | g.EntityUpdateRequest | None:
        if mode in ("new", "rename") and not name.text().strip():
            dialog.show_error(tr("dialog.name.empty"))
            return None
        if mode == "new":
            return g.EntityCreateRequest(
                library_id=library_id,
                type_key=types.currentData(),
                name=name.text().strip(),
                aliases=_split(aliases.text()),
            )
        assert entity is not None
        if mode == "rename":
            return g.EntityUpdateRequest(
                library_id=library_id,
                entity_id=entity.id,
                name=name.text().strip(),
                keep_old_name=keep.isChecked(),
            )
        if mode == "retype":
            return g.EntityUpdateRequest(
                library_id=library_id, entity_id=entity.id, type_key=types.currentData()
            )
        wanted = _split(aliases.text())
        return g.EntityUpdateRequest(
            library_id=library_id,
            entity_id=entity.id,
            add_aliases=[a for a in wanted if a not in entity.aliases],
            remove_aliases=[a for a in entity.aliases if a not in wanted],
        )

    dialog.build = build
    (name if mode in ("new", "rename") else types if mode == "retype" else aliases).setFocus()
    return dialog


class EntityPicker(QtWidgets.QWidget):
    """A search field over the library's entities of the allowed types and a list to pick
    from; ``search`` asks the tab for matches (``respond`` fills the list). With ``preselect``
    the first match is chosen for the person; without, nothing is until they pick."""

    search_requested = QtCore.Signal(str)

    def __init__(
        self,
        ontology: g.Ontology,
        parent: QtWidgets.QWidget | None = None,
        preselect: bool = True,
    ) -> None:
        super().__init__(parent)
        self.ontology = ontology
        self.preselect = preselect
        self.allowed: set[str] | None = None
        self.exclude: set[str] = set()
        self.query = QtWidgets.QLineEdit()
        self.query.setPlaceholderText(tr("graph.search.placeholder"))
        self.query.setAccessibleName(tr("graph.search"))
        self.list = QtWidgets.QListWidget()
        self.list.setAccessibleName(tr("graph.pick_entity"))
        self.list.setMinimumHeight(140)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.query)
        layout.addWidget(self.list)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(lambda: self.search_requested.emit(self.query.text().strip()))
        self.query.textChanged.connect(lambda _t: self._timer.start())

    def respond(self, entities: list[g.Entity]) -> None:
        self.list.clear()
        for e in entities:
            if e.id in self.exclude or (
                self.allowed is not None and e.type_key not in self.allowed
            ):
                continue
            item = QtWidgets.QListWidgetItem(
                f"{e.name}  [{entity_type_name(self.ontology, e.type_key)}]"
            )
            item.setData(QtCore.Qt.ItemDataRole.UserRole, e.id)
            self.list.addItem(item)
        if self.list.count() and self.preselect:
            self.list.setCurrentRow(0)

    def chosen(self) -> list[str]:
        selected = [i.data(QtCore.Qt.ItemDataRole.UserRole) for i in self.list.selectedItems()]
        if selected or not self.preselect:
            return selected
        current = self.list.currentItem()
        return [current.data(QtCore.Qt.ItemDataRole.UserRole)] if current else []


def merge_dialog(
    parent: QtWidgets.QWidget, library_id: str, ontology: g.Ontology, entity: g.Entity
) -> FormDialog:
    dialog = FormDialog(tr("graph.dialog.merge"), parent)
    note = QtWidgets.QLabel(
        tr("graph.merge.note", name=entity.name, type=entity_type_name(ontology, entity.type_key))
    )
    note.setWordWrap(True)
    dialog.form.addRow(note)
    # Nothing is chosen for the person: a reflex OK must not merge the first match away.
    picker = EntityPicker(ontology, preselect=False)
    picker.allowed = {entity.type_key}
    picker.exclude = {entity.id}
    picker.list.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
    dialog.add("graph.pick_entity", picker)
    dialog.picker = picker  # type: ignore[attr-defined]
    dialog.ok_button.setEnabled(False)
    picker.list.itemSelectionChanged.connect(
        lambda: dialog.ok_button.setEnabled(bool(picker.chosen()))
    )

    def build() -> g.EntityMergeRequest | None:
        chosen = picker.chosen()
        if not chosen:
            dialog.show_error(tr("graph.pick_first"))
            return None
        return g.EntityMergeRequest(library_id=library_id, entity_id=entity.id, merged_ids=chosen)

    dialog.build = build
    picker.query.setFocus()
    return dialog


def relation_dialog(
    parent: QtWidgets.QWidget,
    library_id: str,
    ontology: g.Ontology,
    entity: g.Entity,
    relation: g.Relation | None = None,
    head_type: str | None = None,
    tail_type: str | None = None,
) -> FormDialog:
    """A new relation from ``entity`` (as head or tail), or ``relation`` retyped: the relation
    types offered are those whose endpoint constraints allow the ends."""
    dialog = FormDialog(
        tr("graph.dialog.relation_retype" if relation else "graph.dialog.relation"), parent
    )
    if relation is not None:
        assert head_type is not None and tail_type is not None
        choices = [r for r in ontology.relation_types if r.allows(head_type, tail_type)]
        types = type_box(choices, relation.type_key)
        dialog.form.addRow(QtWidgets.QLabel(f"{relation.head_name} → {relation.tail_name}"))
        dialog.add("graph.field.relation", types)
        dialog.type_box = types  # type: ignore[attr-defined]
        dialog.build = lambda: g.RelationUpdateRequest(
            library_id=library_id, relation_id=relation.id, type_key=types.currentData()
        )
        return dialog
    direction = QtWidgets.QComboBox()
    direction.addItem(tr("graph.direction.head", name=entity.name), "head")
    direction.addItem(tr("graph.direction.tail", name=entity.name), "tail")
    types = QtWidgets.QComboBox()
    picker = EntityPicker(ontology)
    picker.exclude = {entity.id}

    def refill() -> None:
        as_head = direction.currentData() == "head"
        current = types.currentData()
        types.clear()
        for r in ontology.relation_types:
            if (r.allows_head if as_head else r.allows_tail)(entity.type_key):
                label = type_label(r)
                same = label.casefold() == r.key.replace("_", " ")
                types.addItem(label if same else f"{label} ({r.key})", r.key)
        types.setCurrentIndex(max(0, types.findData(current)))
        allowed()

    def allowed() -> None:
        key = types.currentData()
        relation_type = next((r for r in ontology.relation_types if r.key == key), None)
        other = (
            (
                relation_type.tail_types
                if direction.currentData() == "head"
                else relation_type.head_types
            )
            if relation_type
            else []
        )
        picker.allowed = set(other) if other else None
        picker.search_requested.emit(picker.query.text().strip())

    direction.currentIndexChanged.connect(lambda _i: refill())
    types.currentIndexChanged.connect(lambda _i: allowed())
    dialog.add("graph.field.direction", direction)
    dialog.add("graph.field.relation", types)
    dialog.add("graph.field.other", picker)
    dialog.type_box, dialog.picker, dialog.direction = types, picker, direction  # type: ignore[attr-defined]
    dialog.refill = refill  # type: ignore[attr-defined]

    def build() -> g.RelationCreateRequest | None:
        chosen = picker.chosen()
        if types.currentData() is None:
            dialog.show_error(tr("graph.no_relation_type"))
            return None
        if not chosen:
            dialog.show_error(tr("graph.pick_first"))
            return None
        head, tail = (
            (entity.id, chosen[0]) if direction.currentData() == "head" else (chosen[0], entity.id)
        )
        return g.RelationCreateRequest(
            library_id=library_id, type_key=types.currentData(), head_id=head, tail_id=tail
        )

    dialog.build = build
    return dialog
