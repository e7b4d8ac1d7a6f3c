"""How the knowledge graph's things read in the tab: type names in the user's language, the mark
of what a person edited (and which fields it locks), an entity's tooltip and a relation as text,
whole or from one of its ends."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.ui.i18n import language, tr

#: The mark of what a person edited (a glyph every bundled font has).
LOCK = "✎"


def type_label(entity_type: g.EntityType | g.RelationType) -> str:
    return entity_type.name_zh if language() == "zh" else entity_type.name_en


def entity_type_name(ontology: g.Ontology | None, key: str) -> str:
    found = next((t for t in ontology.entity_types if t.key == key), None) if ontology else None
    return type_label(found) if found else key


def relation_type_name(ontology: g.Ontology | None, key: str) -> str:
    found = next((t for t in ontology.relation_types if t.key == key), None) if ontology else None
    return type_label(found) if found else key


def lock_mark(e: g.Entity) -> str:
    return LOCK if e.locked_fields or e.created_by == "manual" else ""


def lock_tip(e: g.Entity) -> str:
    return locked_text(e) if lock_mark(e) else ""


def locked_text(e: g.Entity) -> str:
    fields = [tr(f"graph.field.locked.{f}") for f in e.locked_fields]
    if fields:
        return f"{LOCK} {tr('graph.locked', fields=tr('graph.sep').join(fields))}"
    return f"{LOCK} {tr('graph.locked.manual')}" if e.created_by == "manual" else ""


def entity_tip(ontology: g.Ontology | None, e: g.Entity) -> str:
    tip = f"{e.name} · {entity_type_name(ontology, e.type_key)}"
    return tip + (f"\n{', '.join(e.aliases)}" if e.aliases else "")


def relation_text(ontology: g.Ontology | None, r: g.Relation) -> str:
    return f"{r.head_name} —{relation_type_name(ontology, r.type_key)}→ {r.tail_name}"


def relation_here(ontology: g.Ontology | None, r: g.Relation, shown: str | None) -> str:
    """A relation in the panel of one of its ends (``shown``): the other end is what is new
    there ("—owns→ 费用报销系统", "财务共享中心 —owns→"), the full text is in the tooltip."""
    name = relation_type_name(ontology, r.type_key)
    if shown == r.head_id and shown != r.tail_id:
        return f"—{name}→ {r.tail_name}"
    if shown == r.tail_id and shown != r.head_id:
        return f"{r.head_name} —{name}→"
    return relation_text(ontology, r)
