"""One entity folded into another: its evidence, relations and names become the other's. Used by
a person's merge (``editing.merge_entities``) and by extraction where it finds one thing under
two names (``units.units_across_scripts``)."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.matching import normalise_name


def names_of(conn: sqlite3.Connection, entity_id: str) -> list[str]:
    """The entity's name, then its aliases."""
    row = conn.execute("SELECT name FROM graph_entities WHERE id = ?", (entity_id,)).fetchone()
    aliases = [
        r[0]
        for r in conn.execute("SELECT alias FROM graph_aliases WHERE entity_id = ?", (entity_id,))
    ]
    return [row[0], *aliases]


def fold(conn: sqlite3.Connection, library_id: str, entity_id: str, other_id: str) -> None:
    """``other_id`` folded into ``entity_id`` (both of the library, one type; the caller checks):
    a relation that becomes a loop is dropped, one that becomes another's twin gives that twin
    its evidence (and its lock), the other's names become the entity's aliases."""
    (kept,) = conn.execute(
        "SELECT normalized FROM graph_entities WHERE id = ?", (entity_id,)
    ).fetchone()
    names = names_of(conn, other_id)
    conn.execute("DELETE FROM graph_aliases WHERE entity_id = ?", (other_id,))
    conn.execute(
        "UPDATE graph_evidence SET entity_id = ? WHERE entity_id = ?", (entity_id, other_id)
    )
    for end in ("head_id", "tail_id"):
        for rel_id, type_key, head_id, tail_id in conn.execute(
            f"SELECT id, type_key, head_id, tail_id FROM graph_relations WHERE {end} = ?",
            (other_id,),
        ).fetchall():
            head = entity_id if head_id == other_id else head_id
            tail = entity_id if tail_id == other_id else tail_id
            twin = conn.execute(
                "SELECT id FROM graph_relations WHERE library_id = ? AND type_key = ?"
                " AND head_id = ? AND tail_id = ? AND id != ?",
                (library_id, type_key, head, tail, rel_id),
            ).fetchone()
            if head == tail:
                conn.execute("DELETE FROM graph_relations WHERE id = ?", (rel_id,))
            elif twin is not None:
                conn.execute(
                    "UPDATE graph_evidence SET relation_id = ? WHERE relation_id = ?",
                    (twin[0], rel_id),
                )
                conn.execute(
                    "UPDATE graph_relations SET locked = max(locked, (SELECT locked FROM"
                    " graph_relations WHERE id = ?)) WHERE id = ?",
                    (rel_id, twin[0]),
                )
                conn.execute("DELETE FROM graph_relations WHERE id = ?", (rel_id,))
            else:
                conn.execute(
                    "UPDATE graph_relations SET head_id = ?, tail_id = ? WHERE id = ?",
                    (head, tail, rel_id),
                )
    conn.execute("DELETE FROM graph_entities WHERE id = ?", (other_id,))
    for each in names:
        if normalise_name(each) != kept:
            store.add_alias(conn, library_id, entity_id, each)
