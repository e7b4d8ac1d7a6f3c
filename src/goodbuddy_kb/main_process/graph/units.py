"""One unit named in two scripts: notes in English and in Chinese name the same team each in
their own language ("the Applications Team" of an English FAQ, 应用开发组 of a Chinese owners'
table), and where neither gives the other's name beside it, extraction makes two units with
half the relations each. Both led by the same person, and that person leads no other unit in
either script, they are one unit: the path from a system the English notes say the team owns
goes on to the department and the floor the Chinese notes give it."""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict

from goodbuddy_kb.main_process.graph.entity_index import UNIT_WORDS
from goodbuddy_kb.main_process.graph.folding import fold

#: A unit's name: one ending in a word for a unit, in each script (a company, a committee, a
#: place is not one: a chair of a committee or a general manager leads a unit besides).
_HAN_UNIT = re.compile(
    r"(?=.*[\u4e00-\u9fff])[\u4e00-\u9fffA-Za-z0-9]+(?:部|组|科|室|处|中心|团队)"
)
_LATIN_UNIT = re.compile(
    r"[A-Za-z][A-Za-z0-9&.,' -]*\s(?:"
    + "|".join(w.strip() for w in (*UNIT_WORDS, " centre", " center", " desk"))
    + ")",
    re.IGNORECASE,
)


def _script(name: str) -> str | None:
    if _HAN_UNIT.fullmatch(name):
        return "han"
    if name.isascii() and _LATIN_UNIT.fullmatch(name):
        return "latin"
    return None


def units_across_scripts(conn: sqlite3.Connection, library_id: str) -> int:
    """Folds each pair of extracted units, one named in Han characters and one in Latin letters,
    led by one person who leads no other unit in either script and each led by no one else,
    neither related to the other nor edited by a person, into the one with more relations (the
    first made, where as many). Returns the number folded."""
    heads: dict[str, set[str]] = defaultdict(set)  # unit → its heads
    units: dict[str, list[tuple[str, str]]] = defaultdict(list)  # person → (unit, script)
    editable: set[str] = set()
    for unit, person, name, by, locked in conn.execute(
        "SELECT r.head_id, r.tail_id, e.name, e.created_by, e.locked_fields"
        " FROM graph_relations r JOIN graph_entities e ON e.id = r.head_id"
        " JOIN graph_entities p ON p.id = r.tail_id WHERE r.library_id = ?"
        " AND r.type_key = 'led_by' AND e.type_key = 'organization' AND p.type_key = 'person'",
        (library_id,),
    ):
        heads[unit].add(person)
        script = _script(name.strip())
        if script is not None and (unit, script) not in units[person]:
            units[person].append((unit, script))
        if by == "local" and locked == "[]":
            editable.add(unit)
    folded = 0
    for person, led in units.items():
        han = [u for u, s in led if s == "han"]
        latin = [u for u, s in led if s == "latin"]
        if len(han) != 1 or len(latin) != 1:
            continue
        pair = (han[0], latin[0])
        if any(heads[u] != {person} or u not in editable for u in pair) or _related(conn, *pair):
            continue
        keep, gone = sorted(pair, key=lambda u: (-_relations(conn, u), _made(conn, u)))
        fold(conn, library_id, keep, gone)
        folded += 1
    return folded


def same_thing(conn: sqlite3.Connection, library_id: str, pairs: list[tuple[str, str]]) -> int:
    """Folds each pair of entities a text gave as one thing's two names (``Entities.said_same``)
    into the one with more relations (the first made, where as many), unless a person made or
    edited either or the two are related (信息技术部 … 应用开发组（信息技术部）: a bracket naming
    the unit a team is part of, not another name of it). Returns the number folded."""
    folded = 0
    gone: dict[str, str] = {}
    for first, second in pairs:
        a, b = gone.get(first, first), gone.get(second, second)
        if a == b or not (_editable(conn, a) and _editable(conn, b)) or _related(conn, a, b):
            continue
        keep, other = sorted((a, b), key=lambda u: (-_relations(conn, u), _made(conn, u)))
        fold(conn, library_id, keep, other)
        gone = {k: (keep if v == other else v) for k, v in gone.items()} | {other: keep}
        folded += 1
    return folded


def _editable(conn: sqlite3.Connection, entity_id: str) -> bool:
    row = conn.execute(
        "SELECT created_by, locked_fields FROM graph_entities WHERE id = ?", (entity_id,)
    ).fetchone()
    return row is not None and row[0] == "local" and row[1] == "[]"


def _related(conn: sqlite3.Connection, a: str, b: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM graph_relations WHERE (head_id = ?1 AND tail_id = ?2)"
            " OR (head_id = ?2 AND tail_id = ?1)",
            (a, b),
        ).fetchone()
        is not None
    )


def _relations(conn: sqlite3.Connection, entity_id: str) -> int:
    (n,) = conn.execute(
        "SELECT count(*) FROM graph_relations WHERE head_id = ?1 OR tail_id = ?1", (entity_id,)
    ).fetchone()
    return int(n)


def _made(conn: sqlite3.Connection, entity_id: str) -> int:
    (rowid,) = conn.execute(
        "SELECT rowid FROM graph_entities WHERE id = ?", (entity_id,)
    ).fetchone()
    return int(rowid)
