"""Graph rows left without evidence: the evidence goes with its chunk (a cascade), and what it
held up goes here — after an extraction, and wherever documents or chunks are deleted (a
removed source, a file gone from its folder, a chunk a person deleted), so the graph never
shows entities mentioned nowhere and relations whose source is gone."""

from __future__ import annotations

import sqlite3


def prune(conn: sqlite3.Connection, library_id: str) -> None:
    """Extracted relations and entities without any evidence go (manual ones stay)."""
    conn.execute(
        "DELETE FROM graph_relations WHERE library_id = ? AND extractor != 'manual' AND locked = 0"
        " AND NOT EXISTS (SELECT 1 FROM graph_evidence v WHERE v.relation_id = graph_relations.id)",
        (library_id,),
    )
    conn.execute(
        "DELETE FROM graph_entities WHERE library_id = ? AND created_by != 'manual'"
        " AND locked_fields = '[]'"
        " AND NOT EXISTS (SELECT 1 FROM graph_evidence v WHERE v.entity_id = graph_entities.id)"
        " AND NOT EXISTS (SELECT 1 FROM graph_relations r WHERE r.head_id = graph_entities.id"
        " OR r.tail_id = graph_entities.id)",
        (library_id,),
    )
