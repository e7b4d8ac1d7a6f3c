"""Handlers of `knowledge:graph:*`: settings and ontology, entities, relations, extraction."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_RELATIONS,
    GRAPH_UPDATE,
)
from goodbuddy_kb.main_process.graph import checks, model, store
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries


def _state(ctx: CallContext, info: g.GraphInfo) -> g.GraphInfo:
    """The stored graph state plus what a model run would cost now and the last run."""
    conn = ctx.db.get()
    client = model.chat_client(conn, None)
    estimate = (
        model.estimate_calls(conn, info.library_id, client.model) if client is not None else None
    )
    return info.model_copy(
        update={
            "estimated_model_calls": estimate,
            "last_run": model.last_run(conn, info.library_id),
        }
    )


@handles(GRAPH_GET)
def get(ctx: CallContext, request: g.GraphGetRequest) -> g.GraphInfo:
    return _state(ctx, store.info(ctx.db.get(), request.library_id))


@handles(GRAPH_UPDATE)
def update(ctx: CallContext, request: g.GraphUpdateRequest) -> g.GraphInfo:
    if request.ontology is not None:
        # what a person made must stay valid under the new ontology
        checks.check_ontology(ctx.db.get(), request.library_id, request.ontology)
    result = store.update(ctx.db.get(), request.library_id, request.settings, request.ontology)
    ctx.changes.settings = ctx.changes.documents = True
    ctx.changes.library_ids.append(request.library_id)
    return _state(ctx, result)


@handles(GRAPH_ENTITIES)
def entities(ctx: CallContext, request: g.EntitiesListRequest) -> g.EntitiesListResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    found, total = store.entities(
        conn, request.library_id, request.search, request.type_key, request.offset, request.limit
    )
    return g.EntitiesListResponse(entities=found, total=total)


@handles(GRAPH_ENTITY)
def entity(ctx: CallContext, request: g.EntityGetRequest) -> g.EntityDetail:
    return store.detail(ctx.db.get(), request.library_id, request.entity_id)


@handles(GRAPH_RELATIONS)
def relations(ctx: CallContext, request: g.RelationsListRequest) -> g.RelationsListResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    found, total = store.relations(conn, request.library_id, request.offset, request.limit)
    return g.RelationsListResponse(relations=found, total=total)


@handles(GRAPH_EXTRACT)
def extract(ctx: CallContext, request: g.GraphExtractRequest) -> g.GraphExtractResponse:
    libraries.get(ctx.db.get(), request.library_id)
    task = ctx.services.tasks.extract_graph(request.library_id)
    return g.GraphExtractResponse(task_id=task.id)
