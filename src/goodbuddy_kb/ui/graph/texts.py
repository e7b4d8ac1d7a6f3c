"""How the knowledge graph's things read: type names and the starter's descriptions in the user's
language (relations in a path the backend wrote too), the mark of what a person edited (and
which fields it locks), an entity's tooltip and a relation as text, whole or from one end."""

from __future__ import annotations

import re

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.ui.i18n import STRINGS, language, tr, tr_or

#: The mark of what a person edited (a glyph every bundled font has).
LOCK = "✎"


TypeModel = g.EntityType | g.RelationType
#: A relation key in a path, read forwards ("—owned_by→") or backwards ("←owned_by—").
_RELATION_IN_TEXT = re.compile(r"—([a-z][a-z0-9_]*)→|←([a-z][a-z0-9_]*)—")


def _starter_key(t: TypeModel) -> str:
    kind = "relation" if isinstance(t, g.RelationType) else "entity"
    return f"starter.{kind}.{t.key}"


def type_label(entity_type: TypeModel) -> str:
    """A type's name in the user's language: the catalogue's while it is the starter's (its
    English name unchanged), else as the person typed it."""
    key = _starter_key(entity_type)
    if key in STRINGS and STRINGS[key][1] == entity_type.name_en:
        return tr(key)
    return entity_type.name_zh if language() == "zh" else entity_type.name_en


def type_description(entity_type: TypeModel) -> str:
    """A type's description in the user's language while it is the starter's, else as typed."""
    relation = isinstance(entity_type, g.RelationType)
    return description_shown(relation, entity_type.key, entity_type.description)


def description_shown(relation: bool, key: str, description: str) -> str:
    """``description`` of the type ``key`` as the person reads it: the catalogue's while it is
    the starter's English text, else as typed."""
    found = f"starter.{'relation' if relation else 'entity'}.{key}.description"
    if found in STRINGS and STRINGS[found][1] == description:
        return tr(found)
    return description


def entity_type_name(ontology: g.Ontology | None, key: str) -> str:
    found = next((t for t in ontology.entity_types if t.key == key), None) if ontology else None
    return type_label(found) if found else key


def relation_type_name(ontology: g.Ontology | None, key: str) -> str:
    """A relation type's name: from the library's ontology when known, else the starter's
    from the catalogue, else its key."""
    found = next((t for t in ontology.relation_types if t.key == key), None) if ontology else None
    if found is not None:
        return type_label(found)
    return tr_or(f"starter.relation.{key}", key)


def status_line(info: g.GraphInfo) -> str:
    """A library's graph in one line: its strategy and counts (the graph tab, the Settings
    tab)."""
    return tr(
        "graph.status",
        strategy=tr(f"graph.strategy.{info.settings.strategy}"),
        entities=info.entities,
        relations=info.relations,
        evidence=info.evidence,
    )


def empty_text(info: g.GraphInfo | None, gone: str | None = None) -> str:
    """The details side with no entity shown: what to do, or, after an extraction of this
    strategy that found nothing, why (it read "the local strategy extracts by itself as
    documents are imported" beside "✓ Completed · 7/7" and an empty list; a helper's try).
    An entity chosen that the graph no longer holds is named (the panel went blank)."""
    if gone is not None:
        return tr("graph.empty.gone", name=gone) if gone else tr("graph.empty.gone_unnamed")
    run = info.last_run if info is not None else None
    if info is not None and info.entities:  # (not "if the list is empty: …" beside a full one)
        return tr("graph.empty.choose")
    if info is None or run is None or run.strategy != info.settings.strategy:
        return tr("graph.empty")
    return tr("graph.empty.none_found." + ("local" if run.strategy == "local" else "model"))


def relation_names_in(text: str, ontology: g.Ontology | None = None) -> str:
    """A path the backend wrote with relation keys ("报销系统 —owns→ 财务部", also backwards
    "财务部 ←owns— 报销系统"), with each relation named in the user's language ("报销系统 —负责→
    财务部")."""

    def named(m: re.Match[str]) -> str:
        if m[1] is not None:
            return f"—{relation_type_name(ontology, m[1])}→"
        return f"←{relation_type_name(ontology, m[2])}—"

    return _RELATION_IN_TEXT.sub(named, text)


#: A relation in a path once named: "—located in→", "←负责人—".
_ARROW = re.compile(r"—[^—→←]*→|←[^—→←]*—")
#: Joins what a line must not break between (UAX #14's word joiner).
_JOINER = "\u2060"
#: Between two Chinese characters, where a line may break anywhere else.
_CJK_PAIR = re.compile(r"(?<=[\u3400-\u9fff])(?=[\u3400-\u9fff])")


def unbroken(text: str) -> str:
    """``text`` with no line break inside a relation of a path ("—located / in→", "—位 / 于→"
    in a wrapped pane: a helper's try): its spaces non-breaking, its dashes and Chinese
    characters joined to their neighbours (a copy reads the same once the joiners are dropped)."""

    def join(m: re.Match[str]) -> str:
        inner = _CJK_PAIR.sub(_JOINER, m[0][1:-1].replace(" ", "\u00a0"))
        return f"{m[0][0]}{_JOINER}{inner}{_JOINER}{m[0][-1]}"

    return _ARROW.sub(join, text)


def path_list(paths: list[str], ontology: g.Ontology | None = None) -> str:
    """Paths the backend wrote, their relations named in the user's language, one after another
    with the language's separator, none broken inside a relation."""
    return tr("graph.path_sep").join(unbroken(relation_names_in(p, ontology)) for p in paths)


def is_step(reason: str) -> bool:
    """Whether a reason the graph gave is a relation or a path (else a name it found)."""
    return _RELATION_IN_TEXT.search(reason) is not None


def reasons_shown(reasons: list[str]) -> list[str]:
    """The graph's reasons for a result without a bare name that a relation or path beside it
    already names ("Confluence; R&D Productivity team —owns→ Confluence; R&D Productivity team"
    read as noise; a helper's try)."""
    steps = [x for x in reasons if is_step(x)]
    named = {n.strip() for x in steps for n in _RELATION_IN_TEXT.sub("\0", x).split("\0")}
    return [x for x in reasons if x in steps or x.removeprefix("≈ ") not in named]


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
