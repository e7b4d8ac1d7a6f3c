"""Graph storage: settings and ontology per library, entities (resolved by type and
normalised name or alias, never across types), relations and evidence spans."""

from __future__ import annotations

import json
import sqlite3
import uuid

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.graph import (
    MAX_RELATION_EVIDENCE,
    NEW_LIBRARY_STRATEGY,
    Entity,
    EntityDetail,
    EvidenceSpan,
    GraphInfo,
    GraphSettings,
    Ontology,
    Relation,
    RelationEvidence,
)
from goodbuddy_kb.main_process.graph.matching import normalise_name
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.storage.documents import GRAPH_WAITING


def _row(conn: sqlite3.Connection, library_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM graph_settings WHERE library_id = ?", (library_id,)
    ).fetchone()
    if row is not None:
        return row
    if conn.execute("SELECT 1 FROM libraries WHERE id = ?", (library_id,)).fetchone() is None:
        raise NotFoundError("library not found", {"libraryId": library_id})
    values = (
        library_id,
        GraphSettings(strategy=NEW_LIBRARY_STRATEGY).model_dump_json(by_alias=True),
        starter().model_dump_json(by_alias=True),
        now_iso(),
    )
    insert = (
        "INSERT OR IGNORE INTO graph_settings (library_id, settings, ontology, updated_at)"
        " VALUES (?, ?, ?, ?)"
    )
    if conn.in_transaction:
        conn.execute(insert, values)  # part of the caller's write (a first edit, say)
    else:
        with transaction(conn):
            conn.execute(insert, values)
    created: sqlite3.Row | None = conn.execute(
        "SELECT * FROM graph_settings WHERE library_id = ?", (library_id,)
    ).fetchone()
    assert created is not None
    return created


def settings(conn: sqlite3.Connection, library_id: str) -> GraphSettings:
    return GraphSettings.model_validate_json(_row(conn, library_id)["settings"])


def ontology(conn: sqlite3.Connection, library_id: str) -> Ontology:
    return Ontology.model_validate_json(_row(conn, library_id)["ontology"])


def mark_running(conn: sqlite3.Connection, library_id: str, document_ids: list[str] | None) -> None:
    """An extraction starts: the documents it will read (all the library's waiting ones when
    ``document_ids`` is None) read "running" until their graph is written."""
    with transaction(conn):
        if document_ids is None:
            conn.execute(
                "UPDATE documents SET graph_status = 'running' WHERE library_id = ?"
                " AND parse_status = 'done' AND graph_status != 'done'",
                (library_id,),
            )
        else:
            conn.executemany(
                "UPDATE documents SET graph_status = 'running' WHERE id = ? AND library_id = ?",
                [(d, library_id) for d in document_ids],
            )


def nothing_to_read(conn: sqlite3.Connection, library_id: str) -> None:
    """A local run's end: a document with no chunk left to read (its only one switched off)
    has its graph — none (it read "… Pending" for good, no run ever reaching it)."""
    conn.execute(
        "UPDATE documents SET graph_status = 'done', graph_error = NULL WHERE library_id = ?"
        " AND parse_status = 'done' AND graph_status IN ('pending', 'running') AND id NOT IN"
        " (SELECT document_id FROM chunks WHERE library_id = ? AND enabled = 1"
        " AND role != 'parent')",
        (library_id, library_id),
    )


def end_running(conn: sqlite3.Connection, library_id: str | None = None) -> None:
    """An extraction ended (finished, cancelled, failed, or cut off by a crash): documents it
    did not get to wait again, as their library's strategy says."""
    where = "" if library_id is None else " AND library_id = ?"
    with transaction(conn):
        conn.execute(
            f"UPDATE documents SET graph_status = {GRAPH_WAITING} WHERE graph_status = 'running'"
            + where,
            () if library_id is None else (library_id,),
        )


def info(conn: sqlite3.Connection, library_id: str) -> GraphInfo:
    row = _row(conn, library_id)
    counts = conn.execute(
        "SELECT (SELECT count(*) FROM graph_entities WHERE library_id = ?),"
        " (SELECT count(*) FROM graph_relations WHERE library_id = ?),"
        " (SELECT count(*) FROM graph_evidence WHERE library_id = ?)",
        (library_id, library_id, library_id),
    ).fetchone()
    return GraphInfo(
        library_id=library_id,
        settings=GraphSettings.model_validate_json(row["settings"]),
        ontology=Ontology.model_validate_json(row["ontology"]),
        needs_rebuild=bool(row["needs_rebuild"]),
        entities=counts[0],
        relations=counts[1],
        evidence=counts[2],
    )


def update(
    conn: sqlite3.Connection,
    library_id: str,
    new_settings: GraphSettings | None,
    new_ontology: Ontology | None,
) -> GraphInfo:
    """A strategy or ontology change marks the graph as needing re-extraction; it is never
    pretended to be applied."""
    current = info(conn, library_id)
    with transaction(conn):
        changed = False
        if new_settings is not None and new_settings != current.settings:
            changed |= new_settings.strategy != current.settings.strategy
            conn.execute(
                "UPDATE graph_settings SET settings = ?, updated_at = ? WHERE library_id = ?",
                (new_settings.model_dump_json(by_alias=True), now_iso(), library_id),
            )
            conn.execute(
                f"UPDATE documents SET graph_status = {GRAPH_WAITING}, graph_error = NULL"
                " WHERE library_id = ? AND parse_status = 'done'",
                (library_id,),
            )
        if new_ontology is not None and new_ontology != current.ontology:
            changed = True
            conn.execute(
                "UPDATE graph_settings SET ontology = ?, updated_at = ? WHERE library_id = ?",
                (new_ontology.model_dump_json(by_alias=True), now_iso(), library_id),
            )
        if changed:
            conn.execute(
                "UPDATE graph_settings SET needs_rebuild = 1 WHERE library_id = ?", (library_id,)
            )
    return info(conn, library_id)


# -- entities --------------------------------------------------------------------------------
def resolve(
    conn: sqlite3.Connection, library_id: str, type_key: str, name: str, created_by: str
) -> str:
    """The id of the entity of ``type_key`` named ``name`` (by name or alias); created if new.
    Never merges across types."""
    key = normalise_name(name)
    row = conn.execute(
        "SELECT id FROM graph_entities WHERE library_id = ? AND type_key = ? AND normalized = ?",
        (library_id, type_key, key),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT e.id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id"
            " WHERE a.library_id = ? AND a.normalized = ? AND e.type_key = ?",
            (library_id, key, type_key),
        ).fetchone()
    if row is not None:
        return str(row[0])
    entity_id = uuid.uuid4().hex
    conn.execute(
        "INSERT INTO graph_entities (id, library_id, type_key, name, normalized, created_by,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (entity_id, library_id, type_key, name.strip(), key, created_by, now_iso()),
    )
    return entity_id


def add_alias(conn: sqlite3.Connection, library_id: str, entity_id: str, alias: str) -> None:
    key = normalise_name(alias)
    if key:
        conn.execute(
            "INSERT OR IGNORE INTO graph_aliases (entity_id, library_id, alias, normalized)"
            " VALUES (?, ?, ?, ?)",
            (entity_id, library_id, alias.strip(), key),
        )


def names(conn: sqlite3.Connection, library_ids: list[str]) -> list[tuple[str, str, str]]:
    """(name, entity id, type key) for every entity name and alias of the libraries."""
    marks = ",".join("?" for _ in library_ids)
    rows = conn.execute(
        f"SELECT name, id, type_key FROM graph_entities WHERE library_id IN ({marks})"
        " UNION ALL SELECT a.alias, e.id, e.type_key FROM graph_aliases a JOIN graph_entities e"
        f" ON e.id = a.entity_id WHERE a.library_id IN ({marks})",
        (*library_ids, *library_ids),
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def relation_id(
    conn: sqlite3.Connection,
    library_id: str,
    type_key: str,
    head_id: str,
    tail_id: str,
    confidence: float,
    extractor: str,
) -> str:
    row = conn.execute(
        "SELECT id, confidence FROM graph_relations WHERE library_id = ? AND type_key = ?"
        " AND head_id = ? AND tail_id = ?",
        (library_id, type_key, head_id, tail_id),
    ).fetchone()
    if row is not None:
        if confidence > row[1]:
            conn.execute(
                "UPDATE graph_relations SET confidence = ? WHERE id = ? AND locked = 0",
                (confidence, row[0]),
            )
        return str(row[0])
    new_id = uuid.uuid4().hex
    conn.execute(
        "INSERT INTO graph_relations (id, library_id, type_key, head_id, tail_id, confidence,"
        " extractor) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (new_id, library_id, type_key, head_id, tail_id, confidence, extractor),
    )
    return new_id


def drop_unrelated(conn: sqlite3.Connection, library_id: str, ids: set[str]) -> None:
    """Drops extracted entities in ``ids`` that take part in no relation but where a thing is,
    with those relations and the evidence of both (what is left goes with `graph_rows.prune`): a
    description that only stands where a place does (a committee "in 自治区", "in 旅游区") is
    not yet a name; one that leads, owns, approves or belongs to something is. An entity a
    person edited or locked stays."""
    unsupported = [
        (i,)
        for i in ids
        if conn.execute(
            "SELECT 1 FROM graph_entities WHERE id = ? AND created_by = 'local'"
            " AND locked_fields = '[]' AND NOT EXISTS (SELECT 1 FROM graph_relations r"
            " JOIN graph_entities t ON t.id = r.tail_id WHERE (r.head_id = ?1 OR r.tail_id = ?1)"
            " AND t.type_key != 'location')",
            (i,),
        ).fetchone()
    ]
    touching = (
        "SELECT id FROM graph_relations WHERE (head_id = ?1 OR tail_id = ?1)"
        " AND extractor != 'manual' AND locked = 0"
    )
    conn.executemany(f"DELETE FROM graph_evidence WHERE relation_id IN ({touching})", unsupported)
    conn.executemany(f"DELETE FROM graph_relations WHERE id IN ({touching})", unsupported)
    conn.executemany("DELETE FROM graph_evidence WHERE entity_id = ?", unsupported)


# -- reading ---------------------------------------------------------------------------------
def _entity(conn: sqlite3.Connection, row: sqlite3.Row) -> Entity:
    aliases = [
        r[0]
        for r in conn.execute(
            "SELECT alias FROM graph_aliases WHERE entity_id = ? ORDER BY alias", (row["id"],)
        )
    ]
    return Entity(
        id=row["id"],
        type_key=row["type_key"],
        name=row["name"],
        aliases=aliases,
        description=row["description"],
        locked_fields=json.loads(row["locked_fields"]),
        mentions=row["mentions"],
        created_by=row["created_by"],
    )


_ENTITY_SELECT = (
    "SELECT e.*, (SELECT count(*) FROM graph_evidence v WHERE v.entity_id = e.id) AS mentions"
    " FROM graph_entities e"
)


def entities(
    conn: sqlite3.Connection,
    library_id: str,
    search: str | None,
    type_key: str | None,
    offset: int,
    limit: int,
) -> tuple[list[Entity], int]:
    where = "e.library_id = ?"
    params: list[object] = [library_id]
    if type_key:
        where += " AND e.type_key = ?"
        params.append(type_key)
    if search:
        where += " AND (instr(e.normalized, ?) > 0 OR EXISTS (SELECT 1 FROM graph_aliases a WHERE a.entity_id = e.id AND instr(a.normalized, ?) > 0))"
        key = normalise_name(search)
        params += [key, key]
    (total,) = conn.execute(
        f"SELECT count(*) FROM graph_entities e WHERE {where}", params
    ).fetchone()
    rows = conn.execute(
        f"{_ENTITY_SELECT} WHERE {where} ORDER BY mentions DESC, e.name LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    return [_entity(conn, r) for r in rows], int(total)


def entity(conn: sqlite3.Connection, library_id: str, entity_id: str) -> Entity:
    row = conn.execute(
        f"{_ENTITY_SELECT} WHERE e.library_id = ? AND e.id = ?", (library_id, entity_id)
    ).fetchone()
    if row is None:
        raise NotFoundError("entity not found", {"entityId": entity_id})
    return _entity(conn, row)


def find_by_name(conn: sqlite3.Connection, library_id: str, name: str) -> list[Entity]:
    key = normalise_name(name)
    rows = conn.execute(
        f"{_ENTITY_SELECT} WHERE e.library_id = ? AND (e.normalized = ? OR EXISTS (SELECT 1"
        " FROM graph_aliases a WHERE a.entity_id = e.id AND a.normalized = ?))",
        (library_id, key, key),
    ).fetchall()
    return [_entity(conn, r) for r in rows]


_RELATION_SELECT = (
    "SELECT r.*, h.name AS head_name, t.name AS tail_name FROM graph_relations r"
    " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
)


def _relation(row: sqlite3.Row) -> Relation:
    return Relation(
        id=row["id"],
        type_key=row["type_key"],
        head_id=row["head_id"],
        head_name=row["head_name"],
        tail_id=row["tail_id"],
        tail_name=row["tail_name"],
        confidence=row["confidence"],
        extractor=row["extractor"],
        locked=bool(row["locked"]),
    )


def relations(
    conn: sqlite3.Connection, library_id: str, offset: int, limit: int
) -> tuple[list[Relation], int]:
    (total,) = conn.execute(
        "SELECT count(*) FROM graph_relations WHERE library_id = ?", (library_id,)
    ).fetchone()
    rows = conn.execute(
        f"{_RELATION_SELECT} WHERE r.library_id = ? ORDER BY r.confidence DESC, h.name"
        " LIMIT ? OFFSET ?",
        (library_id, limit, offset),
    ).fetchall()
    return [_relation(r) for r in rows], int(total)


def relation(conn: sqlite3.Connection, library_id: str, relation_id: str) -> Relation:
    row = conn.execute(
        f"{_RELATION_SELECT} WHERE r.library_id = ? AND r.id = ?", (library_id, relation_id)
    ).fetchone()
    if row is None:
        raise NotFoundError("relation not found in this library", {"relationId": relation_id})
    return _relation(row)


def relations_of(conn: sqlite3.Connection, entity_id: str) -> list[Relation]:
    rows = conn.execute(
        f"{_RELATION_SELECT} WHERE r.head_id = ? OR r.tail_id = ? ORDER BY r.confidence DESC",
        (entity_id, entity_id),
    ).fetchall()
    return [_relation(r) for r in rows]


_EVIDENCE_SELECT = (
    'SELECT c.id, c.document_id, c.content, v.start, v."end", v.confidence, v.extractor,'
    " d.relative_path, v.relation_id FROM graph_evidence v JOIN chunks c ON c.seq = v.chunk_seq"
    " JOIN documents d ON d.id = c.document_id"
)


def _span(r: sqlite3.Row) -> EvidenceSpan:
    return EvidenceSpan(
        chunk_id=r[0],
        document_id=r[1],
        start=r[3],
        end=r[4],
        text=r[2][r[3] : r[4]],
        confidence=r[5],
        extractor=r[6],
        document_path=r[7],
        context=mention_context(r[2], r[3], r[4]),
    )


def evidence_of(conn: sqlite3.Connection, entity_id: str, limit: int = 50) -> list[EvidenceSpan]:
    rows = conn.execute(
        f"{_EVIDENCE_SELECT} WHERE v.entity_id = ? ORDER BY c.document_id, c.ordinal, v.start"
        " LIMIT ?",
        (entity_id, limit),
    ).fetchall()
    return [_span(r) for r in rows]


def detail(conn: sqlite3.Connection, library_id: str, entity_id: str) -> EntityDetail:
    """The entity, its relations with where the text states each, and its mentions."""
    found = entity(conn, library_id, entity_id)
    related = relations_of(conn, found.id)
    spans: dict[str, list[EvidenceSpan]] = {r.id: [] for r in related}
    for start in range(0, len(related), 500):
        ids = [r.id for r in related[start : start + 500]]
        marks = ",".join("?" * len(ids))
        for row in conn.execute(
            f"{_EVIDENCE_SELECT} WHERE v.relation_id IN ({marks})"
            " ORDER BY v.confidence DESC, c.document_id, c.ordinal, v.start",
            ids,
        ):
            listed = spans[row[8]]
            if len(listed) < MAX_RELATION_EVIDENCE:
                listed.append(_span(row))
    return EntityDetail(
        entity=found,
        relations=related,
        evidence=evidence_of(conn, found.id),
        relation_evidence=[RelationEvidence(relation_id=k, spans=v) for k, v in spans.items() if v],
    )


#: Characters of the chunk shown on either side of a mention, at most.
CONTEXT_REACH = 40
_SENTENCE_END = "。！？；!?;\n"


def _wordish(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def mention_context(content: str, start: int, end: int, reach: int = CONTEXT_REACH) -> str:
    """The mention with up to ``reach`` characters of its chunk on either side, read from where
    its sentence starts when that is within reach, never from or to the middle of a Latin word
    ("n, configuration and troubleshooting of Orion Gateway 4.2. It is written for syste"), and
    marked "…" where the chunk goes on."""
    left = max(0, start - reach)
    sentence = max(content.rfind(mark, left, start) for mark in _SENTENCE_END)
    if sentence >= 0:
        left = sentence + 1
    elif left > 0 and _wordish(content[left - 1]) and _wordish(content[left]):
        space = content.find(" ", left, start)
        left = space + 1 if space >= 0 else left
    right = min(len(content), end + reach)
    if right < len(content) and _wordish(content[right - 1]) and _wordish(content[right]):
        space = content.rfind(" ", end, right)
        right = space if space >= 0 else right
    text = content[left:right].strip()
    if left > 0 and sentence < 0:
        text = "…" + text
    return text + ("…" if right < len(content) else "")
