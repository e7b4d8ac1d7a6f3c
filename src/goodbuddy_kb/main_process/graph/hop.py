"""The graph channel's second hop: what a question asks for, and the relations that answer it.

A question names entity A and asks an attribute: who (a person), where (a place), which
department (an organisation), a contact. :func:`asked_types` reads that from general
interrogatives and attribute words in Chinese and English, and from "which/哪个 + a type's
suffix" with the suffixes of the library's ontology, and maps it onto the ontology's entity
types. :func:`follow` then takes A's relations: a relation whose other end is of an asked
type answers at once (one hop); otherwise A's neighbours B are followed to their relations
that reach an asked type (or a relation type the question cues), whose evidence is the text
describing B — its head, its location, its contact — named by its path
(费控系统 —owned_by→ 费用核算组 —led_by→ 韦佳宁). Bounded: at most ``MAX_BRIDGES``
neighbours and ``MAX_ANSWERS`` relations.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.main_process.graph.matching import fold

MAX_BRIDGES = 20
MAX_ANSWERS = 40

#: The kinds of answer a question can ask for, each with the words of the ontology's type
#: keys and English names that mean it.
_KIND_TYPES = {
    "person": ("person", "people", "role"),
    "place": ("location", "place", "site", "building"),
    "organisation": ("organization", "organisation", "department", "team"),
}
#: Interrogatives and attribute words of each kind (Chinese: substrings; English: words or
#: phrases). Contact details (phone, mail) belong to the person to contact.
_KIND_WORDS_ZH = {
    "person": (
        "谁",
        "哪位",
        "何人",
        "什么人",
        "叫什么",
        "名字",
        "姓名",
        "联系人",
        "联系",
        "电话",
        "分机",
        "邮箱",
        "负责人",
        "领导",
        "主持",
        "牵头人",
        "审批人",
    ),
    "place": (
        "在哪",
        "哪里",
        "哪儿",
        "哪栋",
        "几楼",
        "几层",
        "楼层",
        "地址",
        "地点",
        "位置",
        "城市",
    ),
    "organisation": ("哪个部门", "什么部门", "哪个团队", "哪个组", "哪个中心", "哪个单位"),
}
_KIND_WORDS_EN = {
    "person": (
        "who",
        "whom",
        "whose",
        "name",
        "contact",
        "phone",
        "email",
        "extension",
        "boss",
        "head",
        "chairs",
        "leads",
        "talk to",
    ),
    "place": ("where", "floor", "building", "address", "located", "based", "city"),
    "organisation": ("which department", "what department", "which team", "which group"),
}
#: "哪个/什么 …" or "which/what …" followed (within a few characters) by a type's suffix.
_WHICH_ZH = re.compile(r"(?:哪|什么)(?:个|一个|家|些)?([\u4e00-\u9fff]{1,4})")
_WHICH_EN = re.compile(r"\b(?:which|what)\s+(\w+)")


def _kind_of_type(entity_type: g.EntityType) -> str | None:
    words = {fold(entity_type.key), *re.findall(r"[a-z]+", fold(entity_type.name_en))}
    for kind, names in _KIND_TYPES.items():
        if words & set(names):
            return kind
    return None


def asked_types(ontology: g.Ontology, query: str) -> set[str]:
    """The entity type keys of the library's ontology that ``query`` asks for."""
    folded = fold(query)
    latin = " " + " ".join(re.findall(r"[a-z]+", folded)) + " "
    kinds = {k for k, words in _KIND_WORDS_ZH.items() if any(w in folded for w in words)}
    kinds |= {k for k, words in _KIND_WORDS_EN.items() if any(f" {w} " in latin for w in words)}
    found = set()
    by_kind: dict[str, set[str]] = {}
    for entity_type in ontology.entity_types:
        kind = _kind_of_type(entity_type)
        if kind is not None:
            by_kind.setdefault(kind, set()).add(entity_type.key)
        # "哪个部门" / "which committee": an interrogative before one of the type's suffixes
        suffixes = [fold(s) for s in entity_type.suffixes if s]
        asked = [m.group(1) for m in _WHICH_ZH.finditer(folded)]
        asked += [m.group(1) for m in _WHICH_EN.finditer(folded)]
        if any(a.startswith(s) or a == s.rstrip("s") for a in asked for s in suffixes):
            found.add(entity_type.key)
    for kind in kinds:
        found |= by_kind.get(kind, set())
    # a role is held by a person: asking "who" asks for the person, not the post
    if "person" in kinds:
        found -= {k for k in found if fold(k) == "role"}
    return found


@dataclass(frozen=True)
class Answer:
    """A relation whose evidence answers the question, and the path that reached it."""

    relation_id: str
    path: str
    #: 1 when A's own relation answers, 2 when it is a neighbour's
    hops: int
    #: the entity type the path ends on
    reached: str = ""


#: A relation row: (id, type key, head id, tail id, head name, tail name).
Row = tuple[str, str, str, str, str, str]


def step(row: Row, start: str) -> str:
    """One relation read from ``start``: "A —t→ B" when A is its head, "A ←t— B" otherwise."""
    head_id, head, tail = row[2], row[4], row[5]
    return f"{head if head_id == start else tail} {onward(row, start)}"


def onward(row: Row, start: str) -> str:
    """The relation's step from ``start`` without its start: "—t→ B" or "←t— B"."""
    _id, type_key, head_id, _tail_id, head, tail = row
    return f"—{type_key}→ {tail}" if head_id == start else f"←{type_key}— {head}"


def _other(row: Row, entity_id: str) -> str:
    return row[3] if row[2] == entity_id else row[2]


def follow(
    conn: sqlite3.Connection,
    min_confidence: float,
    named: Sequence[str],
    relations: Sequence[Row],
    asked: set[str],
    cued: set[str],
    cue_groups: Sequence[frozenset[str]] | None = None,
) -> list[Answer]:
    """The relations that answer: A's own reaching an asked type, else its neighbours'
    reaching an asked type or of a cued relation type that A's relations lack.

    ``cue_groups``: the relation types each cue word of the question cues. A word that cues
    several types is met by A's own relation of any of them ("由谁负责": 负责 cues owns and
    led_by; A owning the system meets it), not sent a hop further for the types A lacks — which
    dropped the answer A's own relation gave (龚明远 —owns→ ERP系统, a helper's try)."""
    if not asked and not cued:
        return []
    start = set(named)
    ids = {e for row in relations for e in row[2:4]}
    types = _types(conn, ids)
    own = {row[1] for row in relations}
    further = (
        set().union(*(group for group in cue_groups if not group & own))
        if cue_groups is not None
        else cued - own
    )
    answers: list[Answer] = []
    for row in relations:
        origin = row[2] if row[2] in start else row[3]
        other = _other(row, origin)
        if other not in start and types.get(other) in asked:
            answers.append(Answer(row[0], step(row, origin), 1, types[other]))
    reached = {types[_other(r, r[2] if r[2] in start else r[3])] for r in relations} & asked
    if further and reached == asked:
        # everything asked is met by A's own relations, but the question cues a relation A
        # lacks ("差旅报销制度的审批部门隶属于哪个中心"): the cue is asked of the neighbour
        # that A's relations lead to, and they are the bridge, not the answer
        answers, reached = [], set()
    remaining = asked - reached
    if not remaining and not further:
        return answers
    # the neighbours to follow, those the question points at first (an asked type, a cued
    # relation), each with the step that reached it
    bridges: dict[str, str] = {}
    ranked = sorted(relations, key=lambda r: _rank(r, start, types, asked, cued))
    # the neighbours the question points at (an asked type, a cued relation) when it points
    # at any: a hop through every neighbour would answer about all of them
    pointed = [r for r in ranked if _rank(r, start, types, asked, cued) == 0] or ranked
    for row in pointed:
        origin = row[2] if row[2] in start else row[3]
        other = _other(row, origin)
        if other not in start and other not in bridges and len(bridges) < MAX_BRIDGES:
            bridges[other] = step(row, origin)
    if not bridges:
        return answers
    known = {row[0] for row in relations}
    marks = ",".join("?" for _ in bridges)
    rows = conn.execute(
        "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name, h.type_key, t.type_key"
        " FROM graph_relations r JOIN graph_entities h ON h.id = r.head_id"
        " JOIN graph_entities t ON t.id = r.tail_id"
        f" WHERE (r.head_id IN ({marks}) OR r.tail_id IN ({marks})) AND r.confidence >= ?"
        f" ORDER BY r.confidence DESC, r.id LIMIT {MAX_ANSWERS * 4}",
        (*bridges, *bridges, min_confidence),
    ).fetchall()
    for row in rows:
        if row[0] in known or len(answers) >= MAX_ANSWERS:
            continue
        bridge = row[2] if row[2] in bridges else row[3]
        other, other_type = (row[3], row[7]) if bridge == row[2] else (row[2], row[6])
        if other in start or (other in bridges and other_type not in remaining):
            continue
        if other_type in remaining or row[1] in further:
            path = bridges[bridge] + " " + onward(row[:6], bridge)
            answers.append(Answer(row[0], path, 2, other_type))
    return answers


def complete(answers: Sequence[Answer], asked: set[str]) -> bool:
    """Whether the paths reach everything the question asks for (any answer when it asks only
    by relation cues): a graph that answers half a question is no reason to trust it more."""
    return bool(answers) and asked <= {a.reached for a in answers}


def _rank(row: Row, start: set[str], types: dict[str, str], asked: set[str], cued: set[str]) -> int:
    other = _other(row, row[2] if row[2] in start else row[3])
    return 0 if types.get(other) in asked or row[1] in cued else 1


def _types(conn: sqlite3.Connection, ids: set[str]) -> dict[str, str]:
    if not ids:
        return {}
    marks = ",".join("?" for _ in ids)
    return dict(
        conn.execute(f"SELECT id, type_key FROM graph_entities WHERE id IN ({marks})", list(ids))
    )
