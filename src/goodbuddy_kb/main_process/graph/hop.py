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
#: The interrogatives among those words (谁, 哪里, 几楼, 哪个部门, 叫什么; who, where, which
#: department): what the question asks for, where it also names an attribute of another kind
#: (the boss in "Where does Helen Marsh's boss sit?", 领导 in "国际业务部领导在哪里办公").
_INTERROGATIVE_ZH = re.compile(r"[谁哪何几]|什么")
_INTERROGATIVES_EN = {"person": ("who", "whom", "whose"), "place": ("where",)}
#: An English interrogative opens a clause: the question's first word, or one after a
#: punctuation mark or a conjunction ("…, where is the person who signs it off based?": the
#: "who" after a noun opens a relative clause and asks nothing).
_CLAUSE_EN = re.compile(
    r"(?:^|[.,;:?!]|\b(?:and|but|so|or|then)\b)\s*(?:(?:and|but|so|or|then)\s+)?([a-z]+)"
)
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
    return _asked(ontology, query)[0]


def final_types(ontology: g.Ontology, query: str) -> set[str]:
    """Of :func:`asked_types`, those the question's interrogative asks for ("where" in "Where
    does Helen Marsh's boss sit?"; "哪个中心"), when it also names an attribute of another kind
    ("boss"): that attribute is the step to the answer, not the answer. All asked types when
    the interrogative asks for none of them or for every kind the question names."""
    asked, final = _asked(ontology, query)
    return final or asked


def _asked(ontology: g.Ontology, query: str) -> tuple[set[str], set[str]]:
    """The asked types, and those of them the question's interrogatives ask for."""
    folded = fold(query)
    latin = " " + " ".join(re.findall(r"[a-z]+", folded)) + " "
    # "在哪个系统里": 哪 asks which system, not where (the kind words read without it)
    cues = {fold(s) for t in ontology.entity_types for s in t.suffixes if s}
    which_zh = list(_WHICH_ZH.finditer(folded))
    for m in which_zh:
        if any(m.group(1).startswith(s) for s in cues):
            folded = folded[: m.start()] + " " * (m.end() - m.start()) + folded[m.end() :]
    asked = [m.group(1) for m in which_zh] + [m.group(1) for m in _WHICH_EN.finditer(folded)]
    kinds = {k for k, words in _KIND_WORDS_ZH.items() if any(w in folded for w in words)}
    kinds |= {k for k, words in _KIND_WORDS_EN.items() if any(f" {w} " in latin for w in words)}
    opening = {m.group(1) for m in _CLAUSE_EN.finditer(folded.strip())}
    pronouns = {
        k
        for k, words in _KIND_WORDS_ZH.items()
        if any(_INTERROGATIVE_ZH.search(w) and w in folded for w in words)
    }
    pronouns |= {k for k, words in _INTERROGATIVES_EN.items() if opening & set(words)}
    pronouns |= {
        k
        for k, words in _KIND_WORDS_EN.items()
        if any(w.startswith(("which ", "what ")) and f" {w} " in latin for w in words)
    }
    found = set()
    by_kind: dict[str, set[str]] = {}
    for entity_type in ontology.entity_types:
        kind = _kind_of_type(entity_type)
        if kind is not None:
            by_kind.setdefault(kind, set()).add(entity_type.key)
        # "哪个部门" / "which committee": an interrogative before one of the type's suffixes
        suffixes = [fold(s) for s in entity_type.suffixes if s]
        if any(a.startswith(s) or a == s.rstrip("s") for a in asked for s in suffixes):
            found.add(entity_type.key)
    which = set(found)
    for kind in kinds:
        found |= by_kind.get(kind, set())
    # a role is held by a person: asking "who" asks for the person, not the post
    if "person" in kinds:
        found -= {k for k in found if fold(k) == "role"}
    final = which | set().union(*(by_kind.get(k, set()) for k in pronouns))
    return found, (final & found if final & found != found else set())


@dataclass(frozen=True)
class Answer:
    """A relation whose evidence answers the question, and the path that reached it."""

    relation_id: str
    path: str
    #: 1 when A's own relation answers, 2 when it is a neighbour's, 3 through the organisation
    #: a neighbour leads or belongs to
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


def _sides(row: Row, start: set[str]) -> tuple[str, str]:
    """The relation's end among the question's entities (``start``), and its other end."""
    origin = row[2] if row[2] in start else row[3]
    return origin, _other(row, origin)


@dataclass(frozen=True)
class Question:
    """What a question asks of the graph (:func:`read`): the entity types it asks for, those
    its interrogative asks for last (``final``: :func:`final_types`), the relation types each of
    its cue words cues (``cue_groups``), the organisation types it names by a kind word alone
    (``passed``: :func:`passed_types`), and the ontology's places and units (``places``)."""

    asked: frozenset[str]
    final: frozenset[str]
    cue_groups: tuple[frozenset[str], ...] = ()
    passed: frozenset[str] = frozenset()
    places: Places | None = None

    @property
    def cued(self) -> frozenset[str]:
        return frozenset().union(*self.cue_groups)


def read(
    ontology: g.Ontology | None,
    rest: str,
    query: str,
    spans: Sequence[tuple[int, int]],
    cue_groups: Sequence[frozenset[str]],
) -> Question:
    """The question's asks: ``rest`` is ``query`` with the names it spells out (``spans``)
    blanked; ``cue_groups`` the relation types each of its cue words cues."""
    if ontology is None:
        return Question(frozenset(), frozenset(), tuple(cue_groups))
    asked, final = _asked(ontology, rest)
    return Question(
        frozenset(asked),
        frozenset(final or asked),
        tuple(cue_groups),
        frozenset(passed_types(ontology, query, spans)),
        places_of(ontology),
    )


def follow(
    conn: sqlite3.Connection,
    min_confidence: float,
    named: Sequence[str],
    relations: Sequence[Row],
    question: Question,
) -> list[Answer]:
    """The relations that answer: A's own reaching an asked type, else its neighbours'
    reaching an asked type or of a cued relation type that A's relations lack.

    A cue word that cues several relation types is met by A's own relation of any of them
    ("由谁负责": 负责 cues owns and led_by; A owning the system meets it), not sent a hop
    further for the types A lacks — which dropped the answer A's own relation gave (龚明远
    —owns→ ERP系统, a helper's try).

    A relation reaching only an asked type the interrogative does not ask for is a step to the
    answer ("Helen Marsh —reports_to→ Jason He" for "Where does Helen Marsh's boss sit?").
    Where a place is asked and no bridge has one of its own, a bridge is where the
    organisation it leads or belongs to is, one hop further (:func:`_through`). Where the
    question names a unit by its kind word alone, unless A is one, the answer lies past such a
    unit, and A's own relations reaching something else are not it ("Who leads the HQ team
    doing the technical build for Project Northstar?" asks for the team's head, not the
    project's lead)."""
    asked, cued, places = set(question.asked), set(question.cued), question.places
    if not asked and not cued:
        return []
    final = set(question.final & asked) or asked
    start = set(named)
    ids = {e for row in relations for e in row[2:4]}
    types = _types(conn, ids)
    past = set(question.passed)
    beyond = {types.get(_sides(r, start)[1]) for r in relations}
    if past & {types.get(e) for e in start} or not final - past or not past & beyond:
        past = set()  # A is such a unit, the unit is what is asked, or A has none to pass
    own = {row[1] for row in relations}
    further = set().union(*(group for group in question.cue_groups if not group & own))
    answers: list[Answer] = []
    for row in relations:
        origin, other = _sides(row, start)
        if other not in start and types.get(other) in final and (not past or types[other] in past):
            answers.append(Answer(row[0], step(row, origin), 1, types[other]))
    reached = (
        {a.reached for a in answers}
        if past
        else {types[_sides(r, start)[1]] for r in relations} & final
    )
    own_answers: list[Answer] = []
    if further and reached == final:
        # everything asked is met by A's own relations, but the question cues a relation A
        # lacks ("差旅报销制度的审批部门隶属于哪个中心"): the cue is asked of the neighbour
        # that A's relations lead to, and they are the bridge, not the answer — unless no
        # neighbour has such a relation ("费控系统归哪个部门维护": 哪个部门 cues belongs_to too)
        own_answers, answers, reached = answers, [], set()
    remaining = final - reached
    said = [r for r in relations if r[1] in cued] if answers and not remaining else []
    if said and not {a.relation_id for a in answers} & {r[0] for r in said}:
        # the name's relation the question's words cue reaches no asked type, another of its
        # relations does: the cued one is the way ("国际业务部现在直接向哪位领导汇报？" asks
        # whom it reports to, 总经理, and who that is; not who runs it, a person too), where it
        # leads to an answer
        origins = {r[0]: _sides(r, start)[0] for r in relations}
        if {origins[a.relation_id] for a in answers} <= {origins[r[0]] for r in said}:
            cued_way = follow(conn, min_confidence, named, said, question)
            if cued_way:
                return cued_way
    if not remaining and not further:
        return answers
    # the neighbours to follow, those the question points at first (an asked type, a cued
    # relation), each with the step that reached it
    bridges: dict[str, str] = {}
    ranked = sorted(relations, key=lambda r: _rank(r, start, types, asked, cued))
    # the neighbours the question points at (an asked type, a cued relation) when it points
    # at any: a hop through every neighbour would answer about all of them
    pointed = [r for r in ranked if types.get(_sides(r, start)[1]) in past]
    pointed = pointed or [r for r in ranked if _rank(r, start, types, asked, cued) == 0] or ranked
    for row in pointed:
        origin, other = _sides(row, start)
        if other not in start and other not in bridges and len(bridges) < MAX_BRIDGES:
            bridges[other] = step(row, origin)
    if not bridges:
        return answers or own_answers
    known = {row[0] for row in relations}
    rows = _relations_of(conn, bridges, min_confidence)
    for wide in rows:
        if wide[0] in known or len(answers) >= MAX_ANSWERS:
            continue
        bridge = wide[2] if wide[2] in bridges else wide[3]
        other, other_type = _far(wide, bridge)
        if other in start or (other in bridges and other_type not in remaining):
            continue
        if other_type in remaining or wide[1] in further:
            path = bridges[bridge] + " " + onward(_row(wide), bridge)
            answers.append(Answer(wide[0], path, 2, other_type))
    still = (remaining - {a.reached for a in answers}) & (places.places if places else set())
    if still and places is not None:
        answers += _through(conn, min_confidence, start, bridges, rows, still, places.units, known)
    return answers or own_answers


#: A relation row with its ends' types: (id, type key, head id, tail id, head name, tail name,
#: head type, tail type).
Wide = tuple[str, str, str, str, str, str, str, str]


def _relations_of(
    conn: sqlite3.Connection, entities: dict[str, str], min_confidence: float
) -> list[Wide]:
    """The relations of ``entities`` (at most ``MAX_ANSWERS`` × 4, the surest first)."""
    marks = ",".join("?" for _ in entities)
    return conn.execute(
        "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name, h.type_key, t.type_key"
        " FROM graph_relations r JOIN graph_entities h ON h.id = r.head_id"
        " JOIN graph_entities t ON t.id = r.tail_id"
        f" WHERE (r.head_id IN ({marks}) OR r.tail_id IN ({marks})) AND r.confidence >= ?"
        f" ORDER BY r.confidence DESC, r.id LIMIT {MAX_ANSWERS * 4}",
        (*entities, *entities, min_confidence),
    ).fetchall()


def _row(row: Wide) -> Row:
    return row[0], row[1], row[2], row[3], row[4], row[5]


def _far(row: Wide, near: str) -> tuple[str, str]:
    """The relation's other end from ``near``, and its type."""
    return (row[3], row[7]) if near == row[2] else (row[2], row[6])


def _through(
    conn: sqlite3.Connection,
    min_confidence: float,
    start: set[str],
    bridges: dict[str, str],
    rows: Sequence[Wide],
    still: set[str],
    unit_types: frozenset[str],
    known: set[str],
) -> list[Answer]:
    """The third hop: a bridge with no place of its own (a person, a team) is where the
    organisation it leads or belongs to is ("Helen Marsh —reports_to→ Jason He ←led_by—
    International Business Department —located_in→ 7th floor"). Only through organisations
    (``unit_types``), and only for the place types still unanswered after the second hop
    (``still``): a place is shared with one's unit; a head or a contact is not."""
    reached_from = {r[2] if r[2] in bridges else r[3] for r in rows if {r[6], r[7]} & still}
    units: dict[str, str] = {}
    for row in rows:
        bridge = row[2] if row[2] in bridges else row[3]
        other, other_type = _far(row, bridge)
        if (
            bridge not in reached_from
            and other_type in unit_types
            and other not in start
            and other not in bridges
            and other not in units
            and len(units) < MAX_BRIDGES
        ):
            units[other] = bridges[bridge] + " " + onward(_row(row), bridge)
    answers: list[Answer] = []
    for row in _relations_of(conn, units, min_confidence) if units else []:
        if row[0] in known or len(answers) >= MAX_ANSWERS:
            continue
        unit = row[2] if row[2] in units else row[3]
        other, other_type = _far(row, unit)
        if other_type in still and other not in start and other not in bridges:
            path = units[unit] + " " + onward(_row(row), unit)
            answers.append(Answer(row[0], path, 3, other_type))
    return answers


@dataclass(frozen=True)
class Places:
    """The ontology's place types, and the organisation types whose place their members and
    heads share (:func:`_through`)."""

    places: frozenset[str]
    units: frozenset[str]


def places_of(ontology: g.Ontology) -> Places:
    kinds = {t.key: _kind_of_type(t) for t in ontology.entity_types}
    return Places(
        frozenset(k for k, kind in kinds.items() if kind == "place"),
        frozenset(k for k, kind in kinds.items() if kind == "organisation"),
    )


def passed_types(ontology: g.Ontology, query: str, spans: Sequence[tuple[int, int]]) -> set[str]:
    """The organisation types ``query`` names by a kind word of theirs standing alone ("the HQ
    team", 那个委员会), not inside a name it spells out (``spans``) or right after one ("the
    Coventry office"). A one-character Chinese suffix (部, 组) is too ambiguous to count."""
    folded = fold(query)
    found = set()
    for entity_type in ontology.entity_types:
        if _kind_of_type(entity_type) != "organisation":
            continue
        for suffix in entity_type.suffixes:
            word = fold(suffix).strip()
            if not word or (not word.isascii() and len(word) < 2):
                continue
            pattern = rf"\b{re.escape(word)}s?\b" if word.isascii() else re.escape(word)
            for m in re.finditer(pattern, folded):
                if not any(s <= m.start() < e or 0 <= m.start() - e <= 1 for s, e in spans):
                    found.add(entity_type.key)
    return found


def ends(answers: Sequence[Answer]) -> list[Answer]:
    """The answers no other answer's path runs through: where a question asks for several
    things in a chain, what it asks last."""
    return [a for a in answers if not any(b.path.startswith(a.path + " ") for b in answers)]


def complete(answers: Sequence[Answer], asked: set[str]) -> bool:
    """Whether the paths reach everything the question asks for (any answer when it asks only
    by relation cues): a graph that answers half a question is no reason to trust it more."""
    return bool(answers) and asked <= {a.reached for a in answers}


def _rank(row: Row, start: set[str], types: dict[str, str], asked: set[str], cued: set[str]) -> int:
    other = _sides(row, start)[1]
    return 0 if types.get(other) in asked or row[1] in cued else 1


def _types(conn: sqlite3.Connection, ids: set[str]) -> dict[str, str]:
    if not ids:
        return {}
    marks = ",".join("?" for _ in ids)
    return dict(
        conn.execute(f"SELECT id, type_key FROM graph_entities WHERE id IN ({marks})", list(ids))
    )
