"""The step from the best result: a question often names no entity of the graph and is answered
in two steps, the passage the search finds first and the passage about what that one names
("我有一笔8000元的差旅报销……还要哪位领导审批？": the expense rule says the 财务总监 approves
above 5,000; the finance department's page says who the 财务总监 is). The relations of the
entities the best result mentions that reach an entity of a type the question asks for (a
person for "谁", a place for "哪里") point at the second passage: their evidence.

On company-graph-dev the answer stood second, below the relevance floor (0.01–0.05), so the
chat was given the rule and not the name. How far a passage the step reaches counts is
``retrieval/calibration.STEP_ANSWER``: only where the search itself ranked it second or third.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from goodbuddy_kb.main_process.graph import hop, store
from goodbuddy_kb.main_process.graph.channel import ontology_of

#: The relations followed from the best result's entities, at most.
MAX_RELATIONS = 20


@dataclass(frozen=True)
class Step:
    """The passages the step reaches, the likeliest first, and each one's relation."""

    chunk_ids: tuple[str, ...]
    labels: dict[str, str] = field(default_factory=dict)


def from_result(
    conn: sqlite3.Connection, library_id: str, chunk_id: str, query: str, named: set[str]
) -> Step | None:
    """The step from the result ``chunk_id`` of the library's graph, for a question asking for
    some entity type; ``named``: the names of the entities the question itself names (their
    relations are the graph channel's, not a step). None when the graph is off, the question
    asks for no type, or nothing is reached."""
    settings = store.settings(conn, library_id)
    if settings.strategy == "off":
        return None
    ontology = ontology_of(conn, library_id)
    asked = hop.asked_types(ontology, query) if ontology is not None else set()
    if not asked:
        return None
    types, names = sorted(asked), sorted(named)
    type_marks, name_marks = ",".join("?" * len(types)), ",".join("?" * len(names))
    # the entities the result mentions, other than the question's own and the kind it asks for
    mentioned = conn.execute(
        "SELECT DISTINCT e.id FROM graph_evidence v JOIN chunks c ON c.seq = v.chunk_seq"
        " JOIN graph_entities e ON e.id = v.entity_id WHERE c.id = ? AND v.confidence >= ?"
        f" AND e.type_key NOT IN ({type_marks}) AND e.name NOT IN ({name_marks})",
        (chunk_id, settings.min_confidence, *types, *names),
    ).fetchall()
    ids = [r[0] for r in mentioned]
    if not ids:
        return None
    marks = ",".join("?" * len(ids))
    # their relations that reach an entity of an asked type (not one the question names)
    relations = conn.execute(
        "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name FROM graph_relations r"
        " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
        f" WHERE ((r.head_id IN ({marks}) AND t.type_key IN ({type_marks})"
        f" AND t.name NOT IN ({name_marks}))"
        f" OR (r.tail_id IN ({marks}) AND h.type_key IN ({type_marks})"
        f" AND h.name NOT IN ({name_marks})))"
        " AND r.confidence >= ? ORDER BY r.confidence DESC, h.normalized, t.normalized, r.id"
        f" LIMIT {MAX_RELATIONS}",
        (*ids, *types, *names, *ids, *types, *names, settings.min_confidence),
    ).fetchall()
    chunk_ids: list[str] = []
    labels: dict[str, str] = {}
    for row in relations:
        for (found,) in conn.execute(
            "SELECT c.id FROM graph_evidence v JOIN chunks c ON c.seq = v.chunk_seq"
            " WHERE v.relation_id = ? AND v.confidence >= ? AND c.enabled = 1"
            " AND c.role != 'parent' ORDER BY v.confidence DESC, c.seq",
            (row[0], settings.min_confidence),
        ):
            if found != chunk_id and found not in labels:
                chunk_ids.append(found)
                labels[found] = hop.step(row, row[2])  # "财务总监 —led_by→ 邵雨桐"
    return Step(tuple(chunk_ids), labels) if chunk_ids else None
