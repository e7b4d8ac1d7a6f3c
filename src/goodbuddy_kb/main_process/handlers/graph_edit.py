"""Handlers of a person's graph edits (`knowledge:graph:entity:*`, `knowledge:graph:relation:*`)
and of the neighbourhood the graph picture draws. Every id is re-checked against the library
(an id of another library reads as not found); every edit is one transaction."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITY_CREATE,
    GRAPH_ENTITY_DELETE,
    GRAPH_ENTITY_MERGE,
    GRAPH_ENTITY_UPDATE,
    GRAPH_NEIGHBOURHOOD,
    GRAPH_RELATION_CREATE,
    GRAPH_RELATION_DELETE,
    GRAPH_RELATION_UPDATE,
)
from goodbuddy_kb.main_process.graph import editing, store
from goodbuddy_kb.main_process.graph.neighbourhood import neighbourhood
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction


def _changed(ctx: CallContext, library_id: str) -> None:
    ctx.changes.library_ids.append(library_id)


def _detail(ctx: CallContext, library_id: str, entity_id: str) -> g.EntityDetail:
    return store.detail(ctx.db.get(), library_id, entity_id)


def _relation(ctx: CallContext, library_id: str, relation_id: str) -> g.Relation:
    return store.relation(ctx.db.get(), library_id, relation_id)


@handles(GRAPH_ENTITY_CREATE)
def entity_create(ctx: CallContext, request: g.EntityCreateRequest) -> g.EntityDetail:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        entity_id = editing.create_entity(
            conn,
            request.library_id,
            request.type_key,
            request.name,
            request.aliases,
            request.description,
        )
    _changed(ctx, request.library_id)
    return _detail(ctx, request.library_id, entity_id)


@handles(GRAPH_ENTITY_UPDATE)
def entity_update(ctx: CallContext, request: g.EntityUpdateRequest) -> g.EntityDetail:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        editing.update_entity(
            conn,
            request.library_id,
            request.entity_id,
            name=request.name,
            type_key=request.type_key,
            description=request.description,
            add_aliases=request.add_aliases,
            remove_aliases=request.remove_aliases,
            keep_old_name=request.keep_old_name,
        )
    _changed(ctx, request.library_id)
    return _detail(ctx, request.library_id, request.entity_id)


@handles(GRAPH_ENTITY_MERGE)
def entity_merge(ctx: CallContext, request: g.EntityMergeRequest) -> g.EntityDetail:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        editing.merge_entities(conn, request.library_id, request.entity_id, request.merged_ids)
    _changed(ctx, request.library_id)
    return _detail(ctx, request.library_id, request.entity_id)


@handles(GRAPH_ENTITY_DELETE)
def entity_delete(ctx: CallContext, request: g.EntityDeleteRequest) -> g.EntityDeleteResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        name, relations = editing.delete_entity(conn, request.library_id, request.entity_id)
    _changed(ctx, request.library_id)
    return g.EntityDeleteResponse(
        entity_id=request.entity_id, name=name, relations_removed=relations
    )


@handles(GRAPH_RELATION_CREATE)
def relation_create(ctx: CallContext, request: g.RelationCreateRequest) -> g.Relation:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        relation_id = editing.create_relation(
            conn, request.library_id, request.type_key, request.head_id, request.tail_id
        )
    _changed(ctx, request.library_id)
    return _relation(ctx, request.library_id, relation_id)


@handles(GRAPH_RELATION_UPDATE)
def relation_update(ctx: CallContext, request: g.RelationUpdateRequest) -> g.Relation:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        editing.retype_relation(conn, request.library_id, request.relation_id, request.type_key)
    _changed(ctx, request.library_id)
    return _relation(ctx, request.library_id, request.relation_id)


@handles(GRAPH_RELATION_DELETE)
def relation_delete(ctx: CallContext, request: g.RelationDeleteRequest) -> g.RelationDeleteResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    with transaction(conn):
        editing.delete_relation(conn, request.library_id, request.relation_id)
    _changed(ctx, request.library_id)
    return g.RelationDeleteResponse(relation_id=request.relation_id)


@handles(GRAPH_NEIGHBOURHOOD)
def neighbourhood_get(ctx: CallContext, request: g.NeighbourhoodRequest) -> g.NeighbourhoodResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    return neighbourhood(conn, request.library_id, request.entity_id, request.hops, request.limit)
