"""A person's edits of the graph: create, rename, retype, merge and delete entities, add and
remove aliases, create, retype and delete relations — each checked against the library's
ontology, each id re-checked against the library (``checks``).

A field a person edited is *locked* (``graph_entities.locked_fields``; ``graph_relations.locked``
for a relation a person created or retyped): extraction never overwrites or removes it. What a
person removed — a deleted entity's names, a retyped entity's old type, a dropped alias, a
deleted or retyped relation — is written to ``graph_suppressed``, and the triggers of migration
0014 refuse any extractor's attempt to bring it back. Evidence of a person's relation is copied
to extractor ``manual`` so a re-extraction (which replaces only its own evidence) keeps it.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterable

from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError
from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.checks import (
    check_endpoints,
    check_entity_type,
    check_name_free,
    coded_error,
    entity_row,
    relation_row,
    relation_type,
)
from goodbuddy_kb.main_process.graph.folding import fold, names_of
from goodbuddy_kb.main_process.graph.matching import Matcher, normalise_name
from goodbuddy_kb.main_process.ids import now_iso

#: Chunks searched for a new entity's mentions, and for a new relation's co-mentions.
MAX_MANUAL_EVIDENCE = 200


# -- bookkeeping -----------------------------------------------------------------------------
def _lock(conn: sqlite3.Connection, entity_id: str, fields: Iterable[str]) -> None:
    row = conn.execute("SELECT locked_fields FROM graph_entities WHERE id = ?", (entity_id,))
    current = set(json.loads(row.fetchone()[0]))
    conn.execute(
        "UPDATE graph_entities SET locked_fields = ? WHERE id = ?",
        (json.dumps(sorted(current | set(fields))), entity_id),
    )


def _suppress(
    conn: sqlite3.Connection, library_id: str, kind: str, type_key: str, keys: Iterable[str]
) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO graph_suppressed (library_id, kind, type_key, key, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(library_id, kind, type_key, k, now_iso()) for k in keys if k],
    )


def _unsuppress(
    conn: sqlite3.Connection, library_id: str, type_key: str, names: Iterable[str]
) -> None:
    conn.executemany(
        "DELETE FROM graph_suppressed WHERE library_id = ? AND kind IN ('entity', 'alias')"
        " AND type_key = ? AND key = ?",
        [(library_id, type_key, normalise_name(n)) for n in names],
    )


def _manual_mentions(conn: sqlite3.Connection, library_id: str, entity_id: str) -> None:
    """Evidence of a person's entity, now: its names matched in the chunks that hold them."""
    names = names_of(conn, entity_id)
    matcher = Matcher((n, entity_id) for n in names)
    seen: set[int] = set()
    for name in names:
        rows = conn.execute(
            "SELECT seq, content FROM chunks WHERE library_id = ? AND enabled = 1"
            " AND role != 'parent' AND instr(lower(content), lower(?)) > 0 LIMIT ?",
            (library_id, name.strip(), MAX_MANUAL_EVIDENCE),
        ).fetchall()
        for seq, content in rows:
            if seq in seen:
                continue
            seen.add(seq)
            conn.executemany(
                'INSERT INTO graph_evidence (library_id, chunk_seq, entity_id, start, "end",'
                " confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, 1.0, 'manual',"
                ' \'{"match": "manual"}\')',
                [(library_id, seq, entity_id, m.start, m.end) for m in matcher.find(content)],
            )


def _manual_relation_evidence(
    conn: sqlite3.Connection, library_id: str, relation_id: str, head_id: str, tail_id: str
) -> None:
    """A person's relation keeps its existing evidence as ``manual`` and gains, as evidence,
    the spans of chunks that mention both of its entities."""
    conn.execute(
        'INSERT INTO graph_evidence (library_id, chunk_seq, relation_id, start, "end",'
        " confidence, extractor, provenance) SELECT library_id, chunk_seq, relation_id, start,"
        ' "end", 1.0, \'manual\', \'{"match": "manual"}\' FROM graph_evidence'
        " WHERE relation_id = ? AND extractor != 'manual'",
        (relation_id,),
    )
    conn.execute(
        "DELETE FROM graph_evidence WHERE relation_id = ? AND extractor != 'manual'", (relation_id,)
    )
    rows = conn.execute(
        'SELECT h.chunk_seq, min(min(h.start, t.start)), max(max(h."end", t."end"))'
        " FROM graph_evidence h JOIN graph_evidence t ON t.chunk_seq = h.chunk_seq"
        " WHERE h.entity_id = ? AND t.entity_id = ? AND NOT EXISTS (SELECT 1 FROM"
        " graph_evidence v WHERE v.relation_id = ? AND v.chunk_seq = h.chunk_seq)"
        " GROUP BY h.chunk_seq LIMIT ?",
        (head_id, tail_id, relation_id, MAX_MANUAL_EVIDENCE),
    ).fetchall()
    conn.executemany(
        'INSERT INTO graph_evidence (library_id, chunk_seq, relation_id, start, "end",'
        " confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, 1.0, 'manual',"
        ' \'{"match": "co-mention"}\')',
        [(library_id, seq, relation_id, start, end) for seq, start, end in rows],
    )


# -- entities --------------------------------------------------------------------------------
def create_entity(
    conn: sqlite3.Connection,
    library_id: str,
    type_key: str,
    name: str,
    aliases: list[str],
    description: str,
) -> str:
    check_entity_type(store.ontology(conn, library_id), type_key)
    name = name.strip()
    for each in (name, *aliases):
        check_name_free(conn, library_id, type_key, each, None)
    _unsuppress(conn, library_id, type_key, [name, *aliases])
    entity_id = uuid.uuid4().hex
    locked = (
        ["name", "type"]
        + (["aliases"] if aliases else [])
        + (["description"] if description else [])
    )
    conn.execute(
        "INSERT INTO graph_entities (id, library_id, type_key, name, normalized, description,"
        " locked_fields, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'manual', ?)",
        (
            entity_id,
            library_id,
            type_key,
            name,
            normalise_name(name),
            description,
            json.dumps(sorted(locked)),
            now_iso(),
        ),
    )
    for alias in aliases:
        store.add_alias(conn, library_id, entity_id, alias)
    _manual_mentions(conn, library_id, entity_id)
    return entity_id


def update_entity(
    conn: sqlite3.Connection,
    library_id: str,
    entity_id: str,
    *,
    name: str | None,
    type_key: str | None,
    description: str | None,
    add_aliases: list[str],
    remove_aliases: list[str],
    keep_old_name: bool,
) -> None:
    row = entity_row(conn, library_id, entity_id)
    ontology = store.ontology(conn, library_id)
    old_type = row["type_key"]
    new_type = type_key if type_key is not None else old_type
    locked: list[str] = []
    if new_type != old_type:
        check_entity_type(ontology, new_type)
        _check_retype(conn, ontology, entity_id, new_type)
        for each in names_of(conn, entity_id):
            check_name_free(conn, library_id, new_type, each, entity_id)
        # extraction keeps discovering the old (type, name): it must resolve to nothing
        _suppress(
            conn, library_id, "entity", old_type, map(normalise_name, names_of(conn, entity_id))
        )
        _unsuppress(conn, library_id, new_type, names_of(conn, entity_id))
        conn.execute("UPDATE graph_entities SET type_key = ? WHERE id = ?", (new_type, entity_id))
        locked.append("type")
    if name is not None and name.strip() != row["name"]:
        name = name.strip()
        check_name_free(conn, library_id, new_type, name, entity_id)
        _unsuppress(conn, library_id, new_type, [name])
        conn.execute(
            "DELETE FROM graph_aliases WHERE entity_id = ? AND normalized = ?",
            (entity_id, normalise_name(name)),
        )
        conn.execute(
            "UPDATE graph_entities SET name = ?, normalized = ? WHERE id = ?",
            (name, normalise_name(name), entity_id),
        )
        if normalise_name(name) != row["normalized"]:
            if keep_old_name:
                store.add_alias(conn, library_id, entity_id, row["name"])
            else:
                _suppress(conn, library_id, "entity", new_type, [row["normalized"]])
        locked.append("name")
    if description is not None and description != row["description"]:
        conn.execute(
            "UPDATE graph_entities SET description = ? WHERE id = ?", (description, entity_id)
        )
        locked.append("description")
    for alias in add_aliases:
        check_name_free(conn, library_id, new_type, alias, entity_id)
        _unsuppress(conn, library_id, new_type, [alias])
        store.add_alias(conn, library_id, entity_id, alias)
        locked.append("aliases")
    for alias in remove_aliases:
        key = normalise_name(alias)
        conn.execute(
            "DELETE FROM graph_aliases WHERE entity_id = ? AND normalized = ?", (entity_id, key)
        )
        # its spans go now (the name's own spans stay)
        stale = [
            (v,)
            for v, content, start, end in conn.execute(
                'SELECT v.id, c.content, v.start, v."end" FROM graph_evidence v JOIN chunks c'
                " ON c.seq = v.chunk_seq WHERE v.entity_id = ?",
                (entity_id,),
            )
            if normalise_name(content[start:end]) == key
        ]
        conn.executemany("DELETE FROM graph_evidence WHERE id = ?", stale)
        _suppress(conn, library_id, "alias", new_type, [key])
        locked.append("aliases")
    if locked:
        _lock(conn, entity_id, locked)


def _check_retype(
    conn: sqlite3.Connection, ontology: Ontology, entity_id: str, new_type: str
) -> None:
    relations = {r.key: r for r in ontology.relation_types}
    broken = 0
    for type_key, head_id, head_type, tail_type in conn.execute(
        "SELECT r.type_key, r.head_id, h.type_key, t.type_key FROM graph_relations r"
        " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
        " WHERE r.head_id = ? OR r.tail_id = ?",
        (entity_id, entity_id),
    ):
        relation = relations.get(type_key)
        if relation is None:
            continue
        # a relation never links an entity to itself: the entity is one end, the other stays
        head = new_type if head_id == entity_id else head_type
        tail = tail_type if head_id == entity_id else new_type
        if not relation.allows(head, tail):
            broken += 1
    if broken:
        raise coded_error(
            InvalidRequestError, "graph.retype_breaks_relations", type=new_type, count=broken
        )


def merge_entities(
    conn: sqlite3.Connection, library_id: str, entity_id: str, merged_ids: list[str]
) -> None:
    kept = entity_row(conn, library_id, entity_id)
    for other_id in dict.fromkeys(merged_ids):
        if other_id == entity_id:
            raise coded_error(InvalidRequestError, "graph.merge_self")
        other = entity_row(conn, library_id, other_id)
        if other["type_key"] != kept["type_key"]:
            raise coded_error(InvalidRequestError, "graph.merge_across_types")
        fold(conn, library_id, entity_id, other_id)
    _lock(conn, entity_id, ["aliases"])


def delete_entity(conn: sqlite3.Connection, library_id: str, entity_id: str) -> tuple[str, int]:
    row = entity_row(conn, library_id, entity_id)
    (relations,) = conn.execute(
        "SELECT count(*) FROM graph_relations WHERE head_id = ? OR tail_id = ?",
        (entity_id, entity_id),
    ).fetchone()
    _suppress(
        conn, library_id, "entity", row["type_key"], map(normalise_name, names_of(conn, entity_id))
    )
    conn.execute("DELETE FROM graph_entities WHERE id = ?", (entity_id,))
    return str(row["name"]), int(relations)


# -- relations -------------------------------------------------------------------------------
def _type_of(conn: sqlite3.Connection, library_id: str, entity_id: str) -> str:
    return str(entity_row(conn, library_id, entity_id)["type_key"])


def create_relation(
    conn: sqlite3.Connection, library_id: str, type_key: str, head_id: str, tail_id: str
) -> str:
    relation = relation_type(store.ontology(conn, library_id), type_key)
    head_type = _type_of(conn, library_id, head_id)
    tail_type = _type_of(conn, library_id, tail_id)
    if head_id == tail_id:
        raise coded_error(InvalidRequestError, "graph.self_relation")
    check_endpoints(relation, head_type, tail_type)
    existing = conn.execute(
        "SELECT id, locked FROM graph_relations WHERE library_id = ? AND type_key = ?"
        " AND head_id = ? AND tail_id = ?",
        (library_id, type_key, head_id, tail_id),
    ).fetchone()
    if existing is not None and existing[1]:
        raise coded_error(ConflictError, "graph.relation_exists")
    conn.execute(
        "DELETE FROM graph_suppressed WHERE library_id = ? AND kind = 'relation'"
        " AND type_key = ? AND key = ?",
        (library_id, type_key, f"{head_id}>{tail_id}"),
    )
    if existing is not None:
        # an extracted relation a person confirms becomes theirs
        relation_id = str(existing[0])
        conn.execute(
            "UPDATE graph_relations SET locked = 1, confidence = 1.0 WHERE id = ?", (relation_id,)
        )
    else:
        relation_id = uuid.uuid4().hex
        conn.execute(
            "INSERT INTO graph_relations (id, library_id, type_key, head_id, tail_id, confidence,"
            " extractor, locked) VALUES (?, ?, ?, ?, ?, 1.0, 'manual', 1)",
            (relation_id, library_id, type_key, head_id, tail_id),
        )
    _manual_relation_evidence(conn, library_id, relation_id, head_id, tail_id)
    return relation_id


def retype_relation(
    conn: sqlite3.Connection, library_id: str, relation_id: str, type_key: str
) -> None:
    row = relation_row(conn, library_id, relation_id)
    if row["type_key"] == type_key:
        return
    relation = relation_type(store.ontology(conn, library_id), type_key)
    head_type = _type_of(conn, library_id, row["head_id"])
    tail_type = _type_of(conn, library_id, row["tail_id"])
    check_endpoints(relation, head_type, tail_type)
    if conn.execute(
        "SELECT 1 FROM graph_relations WHERE library_id = ? AND type_key = ? AND head_id = ?"
        " AND tail_id = ?",
        (library_id, type_key, row["head_id"], row["tail_id"]),
    ).fetchone():
        raise coded_error(ConflictError, "graph.relation_exists")
    endpoints = f"{row['head_id']}>{row['tail_id']}"
    _suppress(conn, library_id, "relation", row["type_key"], [endpoints])
    conn.execute(
        "DELETE FROM graph_suppressed WHERE library_id = ? AND kind = 'relation'"
        " AND type_key = ? AND key = ?",
        (library_id, type_key, endpoints),
    )
    conn.execute(
        "UPDATE graph_relations SET type_key = ?, locked = 1, confidence = 1.0 WHERE id = ?",
        (type_key, relation_id),
    )
    _manual_relation_evidence(conn, library_id, relation_id, row["head_id"], row["tail_id"])


def delete_relation(conn: sqlite3.Connection, library_id: str, relation_id: str) -> None:
    row = relation_row(conn, library_id, relation_id)
    _suppress(conn, library_id, "relation", row["type_key"], [f"{row['head_id']}>{row['tail_id']}"])
    conn.execute("DELETE FROM graph_relations WHERE id = ?", (relation_id,))
