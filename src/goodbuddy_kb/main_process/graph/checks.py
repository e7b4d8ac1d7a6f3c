"""The checks of a person's graph edits: every id re-checked against the library, every type
against the library's ontology, a relation's endpoints against its type (``RelationType.allows``),
names free within their type, and an ontology change that would strand what a person made
refused."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.graph import Ontology, RelationType
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.main_process.graph import store


def coded_error(cls: type[Exception], code: str, **params: object) -> Exception:
    """``cls`` carrying the English text of message ``code`` with its parameters."""
    return cls(english(code, {k: str(v) for k, v in params.items()}))


def entity_row(conn: sqlite3.Connection, library_id: str, entity_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM graph_entities WHERE id = ? AND library_id = ?", (entity_id, library_id)
    ).fetchone()
    if row is None:
        raise coded_error(NotFoundError, "graph.entity_not_in_library")
    return row


def relation_row(conn: sqlite3.Connection, library_id: str, relation_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM graph_relations WHERE id = ? AND library_id = ?", (relation_id, library_id)
    ).fetchone()
    if row is None:
        raise coded_error(NotFoundError, "graph.relation_not_found")
    return row


def check_entity_type(ontology: Ontology, type_key: str) -> None:
    if type_key not in {t.key for t in ontology.entity_types}:
        raise coded_error(InvalidRequestError, "graph.unknown_entity_type", type=type_key)


def relation_type(ontology: Ontology, type_key: str) -> RelationType:
    found = next((r for r in ontology.relation_types if r.key == type_key), None)
    if found is None:
        raise coded_error(InvalidRequestError, "graph.unknown_relation_type", type=type_key)
    return found


def check_endpoints(relation: RelationType, head_type: str, tail_type: str) -> None:
    if not relation.allows(head_type, tail_type):
        raise coded_error(
            InvalidRequestError,
            "graph.incompatible_endpoints",
            relation=relation.key,
            head=head_type,
            tail=tail_type,
        )


def check_name_free(
    conn: sqlite3.Connection, library_id: str, type_key: str, name: str, except_id: str | None
) -> None:
    """No other entity of the type is called ``name`` (by name or alias)."""
    for other in store.find_by_name(conn, library_id, name):
        if other.type_key == type_key and other.id != except_id:
            raise coded_error(ConflictError, "graph.name_taken", type=type_key, name=other.name)


def check_ontology(conn: sqlite3.Connection, library_id: str, ontology: Ontology) -> None:
    """A new ontology may not strand what a person made: types still used by locked or manual
    entities and relations stay, and their relations stay within the endpoint constraints."""
    kept_entities = {t.key for t in ontology.entity_types}
    for type_key, count in conn.execute(
        "SELECT type_key, count(*) FROM graph_entities WHERE library_id = ? AND"
        " (created_by = 'manual' OR locked_fields != '[]') GROUP BY type_key",
        (library_id,),
    ):
        if type_key not in kept_entities:
            raise coded_error(
                InvalidRequestError, "graph.ontology_type_in_use", type=type_key, count=count
            )
    relations = {r.key: r for r in ontology.relation_types}
    broken: dict[str, int] = {}
    for type_key, head_type, tail_type in conn.execute(
        "SELECT r.type_key, h.type_key, t.type_key FROM graph_relations r"
        " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
        " WHERE r.library_id = ? AND r.locked = 1",
        (library_id,),
    ):
        relation = relations.get(type_key)
        if relation is None:
            used = conn.execute(
                "SELECT count(*) FROM graph_relations WHERE library_id = ? AND locked = 1"
                " AND type_key = ?",
                (library_id, type_key),
            ).fetchone()[0]
            raise coded_error(
                InvalidRequestError, "graph.ontology_relation_in_use", type=type_key, count=used
            )
        if not relation.allows(head_type, tail_type):
            broken[type_key] = broken.get(type_key, 0) + 1
    for type_key, count in broken.items():
        raise coded_error(
            InvalidRequestError, "graph.ontology_breaks_relations", type=type_key, count=count
        )
