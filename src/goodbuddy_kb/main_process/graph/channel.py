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
#: Chunks read per kind of evidence: this many per result asked for, at least the minimum.
EVIDENCE_PER_RESULT = 4
MIN_EVIDENCE_ROWS = 100
NOT_ENABLED = "the knowledge graph is not enabled for this library"
NO_ENTITIES = "no entity of the graph was found in the question"


@dataclass
class GraphHit:
    chunk_id: str
    library_id: str
    score: float
    reasons: list[str] = field(default_factory=list)
    #: The chunk's stable key: ties rank in document order, the same on every run.
    seq: int = 0


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


def _same_names(conn: sqlite3.Connection, library_id: str, entity_ids: list[str]) -> list[str]:
    """The matched entities and the entities of other types with the same name: a question
    that says 北极星 (the alias of the term 客户数据平台) also means the system 客户数据平台.
    Resolution never merges across types; retrieval follows both."""
    marks = ",".join("?" for _ in entity_ids)
    more = [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT o.id FROM graph_entities e JOIN graph_entities o"
            " ON o.library_id = e.library_id AND o.normalized = e.normalized AND o.id != e.id"
            f" WHERE e.id IN ({marks}) AND e.library_id = ? ORDER BY o.type_key LIMIT ?",
            (*entity_ids, library_id, MAX_ENTITIES),
        )
    ]
    return list(dict.fromkeys(entity_ids + more))[: 2 * MAX_ENTITIES]


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
        entity_ids = _same_names(conn, library_id, entity_ids)
        names = dict(
            conn.execute(
                f"SELECT id, name FROM graph_entities WHERE id IN ({','.join('?' for _ in entity_ids)})",
                entity_ids,
            ).fetchall()
        )
        result.matched.extend(dict.fromkeys(names[e] for e in entity_ids if e in names))
        marks = ",".join("?" for _ in entity_ids)
        relations = conn.execute(
            "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name FROM graph_relations r"
            " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
            f" WHERE (r.head_id IN ({marks}) OR r.tail_id IN ({marks})) AND r.confidence >= ?"
            " ORDER BY r.confidence DESC, h.normalized, t.normalized, r.type_key"
            f" LIMIT {MAX_NEIGHBOURS * len(entity_ids)}",
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
            for chunk_id, keys, score, seq in rows:
                hit = scores.setdefault(chunk_id, GraphHit(chunk_id, library_id, 0.0, seq=seq))
                hit.score += weight * score
                for key in keys.split(",")[:3]:
                    label = label_of.get(key)
                    if label and label not in hit.reasons and len(hit.reasons) < 6:
                        hit.reasons.append(label)

        # Each kind of evidence is summed per chunk and cut to the best chunks inside SQLite:
        # a name mentioned in thousands of chunks costs one aggregate, not thousands of rows
        # in Python (bounded fan-out). Evidence never points at a disabled or parent chunk
        # (the triggers drop it), the join only finds the chunk's id.
        limit = max(pool * EVIDENCE_PER_RESULT, MIN_EVIDENCE_ROWS)
        evidence_sql = (
            "SELECT c.id, agg.keys, agg.score, c.seq FROM (SELECT chunk_seq,"
            " group_concat(DISTINCT {col}) AS keys, sum(confidence) AS score"
            " FROM graph_evidence WHERE {col} IN ({marks}) AND confidence >= ?"
            " GROUP BY chunk_seq ORDER BY score DESC, chunk_seq LIMIT ?) agg"
            " JOIN chunks c ON c.seq = agg.chunk_seq WHERE c.enabled = 1 AND c.role != 'parent'"
        )
        add(
            conn.execute(
                evidence_sql.format(col="entity_id", marks=marks),
                (*entity_ids, settings.min_confidence, limit),
            ).fetchall(),
            ENTITY_WEIGHT,
            names,
        )
        if relations:
            rel_ids = [r[0] for r in relations]
            add(
                conn.execute(
                    evidence_sql.format(col="relation_id", marks=",".join("?" for _ in rel_ids)),
                    (*rel_ids, settings.min_confidence, limit),
                ).fetchall(),
                RELATION_WEIGHT,
                relation_label,
            )
        if neighbours:
            ids = list(neighbours)
            add(
                conn.execute(
                    evidence_sql.format(col="entity_id", marks=",".join("?" for _ in ids)),
                    (*ids, settings.min_confidence, limit),
                ).fetchall(),
                NEIGHBOUR_WEIGHT,
                neighbours,
            )
    if result.enabled and not result.matched:
        result.degraded.append(NO_ENTITIES)
    ranked = sorted(scores.values(), key=lambda h: (-round(h.score, 9), h.library_id, h.seq))
    result.hits = ranked[:pool]
    return result
