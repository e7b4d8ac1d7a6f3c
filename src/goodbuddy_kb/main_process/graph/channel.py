"""The graph channel of retrieval: find the query's entities (folded alias match over the
query), expand at most one hop along relations above the library's confidence floor (bounded
fan-out), and rank the chunks that carry evidence for them. A library whose graph strategy is
"off" takes no part; its reason is reported, never a silent empty result."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field

from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.matching import Matcher

MAX_NEIGHBOURS = 20
MAX_ENTITIES = 12
ENTITY_WEIGHT = 1.0
RELATION_WEIGHT = 1.5
NEIGHBOUR_WEIGHT = 0.5
NOT_ENABLED = "the knowledge graph is not enabled for this library"
NO_ENTITIES = "no entity of the graph was found in the question"


@dataclass
class GraphHit:
    chunk_id: str
    library_id: str
    score: float
    reasons: list[str] = field(default_factory=list)


@dataclass
class GraphResult:
    hits: list[GraphHit] = field(default_factory=list)
    enabled: bool = False
    matched: list[str] = field(default_factory=list)
    relations_used: int = 0
    degraded: list[str] = field(default_factory=list)


_cache: dict[str, tuple[tuple[int, int, int], Matcher]] = {}
_cache_lock = threading.Lock()


def _matcher(conn: sqlite3.Connection, library_id: str) -> Matcher:
    """One automaton per library, rebuilt only when its entity names change."""
    version = conn.execute(
        "SELECT (SELECT count(*) FROM graph_entities WHERE library_id = ?),"
        " (SELECT coalesce(max(rowid), 0) FROM graph_entities WHERE library_id = ?),"
        " (SELECT count(*) FROM graph_aliases WHERE library_id = ?)",
        (library_id, library_id, library_id),
    ).fetchone()
    key = (int(version[0]), int(version[1]), int(version[2]))
    with _cache_lock:
        cached = _cache.get(library_id)
        if cached is not None and cached[0] == key:
            return cached[1]
    matcher = Matcher((name, entity_id) for name, entity_id, _t in store.names(conn, [library_id]))
    with _cache_lock:
        _cache[library_id] = (key, matcher)
    return matcher


def search(conn: sqlite3.Connection, library_ids: list[str], query: str, pool: int) -> GraphResult:
    result = GraphResult()
    scores: dict[str, GraphHit] = {}
    for library_id in library_ids:
        settings = store.settings(conn, library_id)
        if settings.strategy == "off":
            result.degraded.append(NOT_ENABLED)
            continue
        result.enabled = True
        matches = _matcher(conn, library_id).find(query)
        entity_ids = list(dict.fromkeys(e for m in matches for e in m.payload))[:MAX_ENTITIES]
        if not entity_ids:
            continue
        names = dict(
            conn.execute(
                f"SELECT id, name FROM graph_entities WHERE id IN ({','.join('?' for _ in entity_ids)})",
                entity_ids,
            ).fetchall()
        )
        result.matched.extend(names[e] for e in entity_ids if e in names)
        marks = ",".join("?" for _ in entity_ids)
        relations = conn.execute(
            "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name FROM graph_relations r"
            " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
            f" WHERE (r.head_id IN ({marks}) OR r.tail_id IN ({marks})) AND r.confidence >= ?"
            f" ORDER BY r.confidence DESC LIMIT {MAX_NEIGHBOURS * len(entity_ids)}",
            (*entity_ids, *entity_ids, settings.min_confidence),
        ).fetchall()
        result.relations_used += len(relations)
        relation_label = {r[0]: f"{r[4]} —{r[1]}→ {r[5]}" for r in relations}
        neighbours = {
            other: names_pair
            for r in relations
            for other, names_pair in ((r[3], r[5]), (r[2], r[4]))
            if other not in entity_ids
        }

        def add(
            rows: list[sqlite3.Row],
            weight: float,
            label_of: dict[str, str],
            library_id: str = library_id,
        ) -> None:
            for chunk_id, key, confidence in rows:
                hit = scores.setdefault(chunk_id, GraphHit(chunk_id, library_id, 0.0))
                hit.score += weight * confidence
                label = label_of.get(key)
                if label and label not in hit.reasons and len(hit.reasons) < 6:
                    hit.reasons.append(label)

        evidence_sql = (
            "SELECT c.id, v.{col}, v.confidence FROM graph_evidence v JOIN chunks c ON"
            " c.seq = v.chunk_seq WHERE v.{col} IN ({marks}) AND c.enabled = 1"
            " AND c.role != 'parent' AND v.confidence >= ?"
        )
        add(
            conn.execute(
                evidence_sql.format(col="entity_id", marks=marks),
                (*entity_ids, settings.min_confidence),
            ).fetchall(),
            ENTITY_WEIGHT,
            names,
        )
        if relations:
            rel_ids = [r[0] for r in relations]
            add(
                conn.execute(
                    evidence_sql.format(col="relation_id", marks=",".join("?" for _ in rel_ids)),
                    (*rel_ids, settings.min_confidence),
                ).fetchall(),
                RELATION_WEIGHT,
                relation_label,
            )
        if neighbours:
            ids = list(neighbours)
            add(
                conn.execute(
                    evidence_sql.format(col="entity_id", marks=",".join("?" for _ in ids)),
                    (*ids, settings.min_confidence),
                ).fetchall(),
                NEIGHBOUR_WEIGHT,
                neighbours,
            )
    if result.enabled and not result.matched:
        result.degraded.append(NO_ENTITIES)
    ranked = sorted(scores.values(), key=lambda h: (-h.score, h.chunk_id))
    result.hits = ranked[:pool]
    return result
