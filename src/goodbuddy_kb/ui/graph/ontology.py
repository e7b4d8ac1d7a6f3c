"""The ontology editor: a library's entity types and relation types (key, Chinese and English
names, aliases, description; discovery cues for entity types; endpoint constraints and patterns
for relation types). Saving sends the whole ontology (``knowledge:graph:update``); the backend's
refusal — a type still used by a person's entities, endpoints that would strand a person's
relation — stays in the dialog, and nothing is changed."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.graph.texts import description_shown, type_label
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog

_ROLE = QtCore.Qt.ItemDataRole.UserRole


def _join(values: list[str]) -> str:
    return ", ".join(values)


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace("，", ",").split(",") if p.strip()]


class TypePage(QtWidgets.QWidget):
    """One kind of type: a list with add/remove, and the form of the selected type."""

    def __init__(self, relations: bool, types: list[dict[str, Any]]) -> None:
        super().__init__()
        self.relations = relations
        self.types = types
        self.entity_keys: list[tuple[str, str]] = []
        self.current: int | None = None
        self.list = QtWidgets.QListWidget()
        # a long name ends in "…" (its tooltip says it whole) rather than scrolling sideways
        self.list.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.list.setAccessibleName(
            tr("ontology.relation_types" if relations else "ontology.entity_types")
        )
        self.add_button = button("ontology.add", self.add_type)
        self.remove_button = button("ontology.remove", self.remove_type)
        left = QtWidgets.QVBoxLayout()
        left.addWidget(self.list, 1)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        left.addLayout(row)
        self.key = QtWidgets.QLineEdit()
        self.name_zh = QtWidgets.QLineEdit()
        self.name_en = QtWidgets.QLineEdit()
        self.aliases = QtWidgets.QLineEdit()
        self.description = QtWidgets.QLineEdit()
        form = QtWidgets.QFormLayout()
        fields: list[tuple[str, QtWidgets.QWidget]] = [
            ("ontology.key", self.key),
            ("ontology.name_zh", self.name_zh),
            ("ontology.name_en", self.name_en),
            ("ontology.aliases", self.aliases),
            ("ontology.description", self.description),
        ]
        if relations:
            self.heads = QtWidgets.QListWidget()
            self.tails = QtWidgets.QListWidget()
            for box in (self.heads, self.tails):
                box.setMaximumHeight(110)
            self.patterns = QtWidgets.QPlainTextEdit()
            self.patterns.setMaximumHeight(80)
            self.patterns.setTabChangesFocus(True)
            fields += [
                ("ontology.head_types", self.heads),
                ("ontology.tail_types", self.tails),
                ("ontology.patterns", self.patterns),
            ]
        else:
            self.suffixes = QtWidgets.QLineEdit()
            self.prefixes = QtWidgets.QLineEdit()
            fields += [("ontology.suffixes", self.suffixes), ("ontology.prefixes", self.prefixes)]
        for key, widget in fields:
            label = QtWidgets.QLabel(tr(key))
            label.setBuddy(widget)
            widget.setAccessibleName(tr(key))
            form.addRow(label, widget)
        hint = QtWidgets.QLabel(
            tr("ontology.endpoints_hint" if relations else "ontology.cues_hint")
        )
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        form.addRow(hint)
        body = QtWidgets.QWidget()
        body.setLayout(form)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QtWidgets.QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addWidget(scroll, 2)
        self.list.currentRowChanged.connect(self._select)

    def fill(self, entity_keys: list[tuple[str, str]]) -> None:
        self.entity_keys = entity_keys
        self.list.clear()
        for t in self.types:
            self.list.addItem(self._label(t))
            self.list.item(self.list.count() - 1).setToolTip(self._label(t))
        if self.types:
            self.list.setCurrentRow(0)

    @staticmethod
    def _label(t: dict[str, Any]) -> str:
        try:
            model = g.EntityType(**{k: v for k, v in t.items() if k in g.EntityType.model_fields})
            return f"{type_label(model)} ({t['key']})"
        except ValidationError:
            return str(t.get("key") or "…")

    def _description(self, t: dict[str, Any]) -> str:
        return description_shown(self.relations, t.get("key", ""), t.get("description", ""))

    def _checks(self, box: QtWidgets.QListWidget, chosen: list[str]) -> None:
        box.clear()
        for key, label in self.entity_keys:
            item = QtWidgets.QListWidgetItem(label)
            item.setData(_ROLE, key)
            item.setFlags(item.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                QtCore.Qt.CheckState.Checked if key in chosen else QtCore.Qt.CheckState.Unchecked
            )
            box.addItem(item)

    def _select(self, row: int) -> None:
        self.store()
        self.current = row if 0 <= row < len(self.types) else None
        t = self.types[row] if self.current is not None else {}
        self.key.setText(t.get("key", ""))
        # a stored key is what entities and relations refer to: it stays
        self.key.setReadOnly(bool(t.get("_stored")))
        self.name_zh.setText(t.get("name_zh", ""))
        self.name_en.setText(t.get("name_en", ""))
        self.aliases.setText(_join(t.get("aliases", [])))
        self.description.setText(self._description(t))
        for field in (self.aliases, self.description):
            # read from its start ("nd by name next to a role (…" showed its end), whole in the
            # tooltip
            field.setCursorPosition(0)
            field.setToolTip(field.text())
        if self.relations:
            self._checks(self.heads, t.get("head_types", []))
            self._checks(self.tails, t.get("tail_types", []))
            self.patterns.setPlainText("\n".join(t.get("patterns", [])))
        else:
            self.suffixes.setText(_join(t.get("suffixes", [])))
            self.prefixes.setText(_join(t.get("prefixes", [])))

    def store(self) -> None:
        """The form back into the selected type."""
        if self.current is None or self.current >= len(self.types):
            return
        t = self.types[self.current]
        description = self.description.text().strip()
        if description == self._description(t):
            description = t.get("description", "")  # the starter's, shown translated: kept
        t.update(
            key=self.key.text().strip(),
            name_zh=self.name_zh.text().strip(),
            name_en=self.name_en.text().strip(),
            aliases=_split(self.aliases.text()),
            description=description,
        )
        if self.relations:
            for name, box in (("head_types", self.heads), ("tail_types", self.tails)):
                t[name] = [
                    box.item(i).data(_ROLE)
                    for i in range(box.count())
                    if box.item(i).checkState() == QtCore.Qt.CheckState.Checked
                ]
            t["patterns"] = [
                p.strip() for p in self.patterns.toPlainText().splitlines() if p.strip()
            ]
        else:
            t["suffixes"] = _split(self.suffixes.text())
            t["prefixes"] = _split(self.prefixes.text())
        item = self.list.item(self.current)
        if item is not None:
            item.setText(self._label(t))

    def add_type(self) -> None:
        self.store()
        self.types.append({"key": "", "name_zh": "", "name_en": ""})
        self.list.addItem("…")
        self.list.setCurrentRow(len(self.types) - 1)
        self.key.setFocus()

    def remove_type(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.types):
            self.current = None
            del self.types[row]
            self.list.takeItem(row)
            if self.types:
                self.list.setCurrentRow(min(row, len(self.types) - 1))
            else:
                self._select(-1)


class OntologyDialog(FormDialog):
    """``submitted`` carries the new :class:`Ontology`."""

    def __init__(self, ontology: g.Ontology, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(tr("graph.dialog.ontology"), parent)
        self.resize(760, 520)
        entity_types = [{**t.model_dump(), "_stored": True} for t in ontology.entity_types]
        relation_types = [{**t.model_dump(), "_stored": True} for t in ontology.relation_types]
        self.entity_page = TypePage(False, entity_types)
        self.relation_page = TypePage(True, relation_types)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.entity_page, tr("ontology.entity_types"))
        self.tabs.addTab(self.relation_page, tr("ontology.relation_types"))
        self.tabs.currentChanged.connect(lambda _i: self._refresh_keys())
        note = QtWidgets.QLabel("ⓘ " + tr("ontology.note"))
        note.setWordWrap(True)
        self.form.addRow(note)
        self.form.addRow(self.tabs)
        self.entity_page.fill([])
        self._refresh_keys()
        self.build = self._build_ontology

    def _refresh_keys(self) -> None:
        self.entity_page.store()
        keys = [(str(t["key"]), TypePage._label(t)) for t in self.entity_page.types if t.get("key")]
        current = self.relation_page.list.currentRow()
        self.relation_page.store()
        self.relation_page.current = None
        self.relation_page.fill(keys)
        if current > 0:
            self.relation_page.list.setCurrentRow(current)

    def _build_ontology(self) -> g.Ontology | None:
        self.entity_page.store()
        self.relation_page.store()

        def clean(t: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in t.items() if not k.startswith("_")}

        try:
            return g.Ontology(
                entity_types=[g.EntityType(**clean(t)) for t in self.entity_page.types],
                relation_types=[g.RelationType(**clean(t)) for t in self.relation_page.types],
            )
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            context = {k: str(v) for k, v in (first.get("ctx") or {}).items()}
            problem = say(f"validation.{first['type']}", context, first.get("msg", ""))
            self.show_error(tr("ontology.invalid", where=where or "—", problem=problem))
            return None
