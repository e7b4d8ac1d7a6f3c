"""A person's graph edits over the real socket against a real backend process: an edit and its
lock survive a re-extraction, an incompatible relation is refused with its message code, and an
entity of another library reads as not found."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_NEIGHBOURHOOD,
    GRAPH_RELATION_CREATE,
    GRAPH_UPDATE,
    SOURCE_ADD,
    SOURCE_REMOVE,
)
from tests.bridge.helpers import create_library, wait_task
from tests.main_process.graph.helpers import FINANCE, TRAVEL

pytestmark = pytest.mark.integration


def _entity(client: BlockingClient, library_id: str, name: str) -> g.Entity:
    found = client.call(
        GRAPH_ENTITIES, g.EntitiesListRequest(library_id=library_id, search=name)
    ).entities
    return next(e for e in found if e.name == name or name in e.aliases)


def test_edits_locks_and_refusals_over_the_socket(client: BlockingClient, tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TRAVEL, "utf-8")
    (folder / "finance.md").write_text(FINANCE, "utf-8")
    library_id = create_library(client)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    assert added.task_id is not None
    wait_task(client, added.task_id)
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    client.call(
        GRAPH_UPDATE,
        g.GraphUpdateRequest(
            library_id=library_id, settings=info.settings.model_copy(update={"strategy": "local"})
        ),
    )
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    wait_task(client, task.task_id)
    finance = _entity(client, library_id, "财务部")
    renamed = client.call(
        GRAPH_ENTITY_UPDATE,
        g.EntityUpdateRequest(library_id=library_id, entity_id=finance.id, name="财务管理部"),
    )
    assert renamed.entity.locked_fields == ["name"]
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    wait_task(client, task.task_id)
    kept = _entity(client, library_id, "财务部")
    assert kept.id == finance.id and kept.name == "财务管理部" and kept.locked_fields == ["name"]

    policy = _entity(client, library_id, "差旅报销制度")
    with pytest.raises(InvalidRequestError) as refused:
        client.call(
            GRAPH_RELATION_CREATE,
            g.RelationCreateRequest(
                library_id=library_id, type_key="approves", head_id=policy.id, tail_id=finance.id
            ),
        )
    assert refused.value.message_code == "graph.incompatible_endpoints"
    picture = client.call(
        GRAPH_NEIGHBOURHOOD, g.NeighbourhoodRequest(library_id=library_id, entity_id=finance.id)
    )
    assert any(e.type_key == "approves" and e.tail_id == policy.id for e in picture.edges)

    other = create_library(client, "Other")
    with pytest.raises(NotFoundError):
        client.call(
            GRAPH_ENTITY_UPDATE,
            g.EntityUpdateRequest(library_id=other, entity_id=finance.id, name="X"),
        )


def test_what_a_removed_source_held_up_leaves_the_graph(
    client: BlockingClient, tmp_path: Path
) -> None:
    """Removing a source (or deleting a file) took the graph's evidence with its chunks but left
    the entities mentioned nowhere now ("提及 0") and the relations whose source was gone."""
    library_id = create_library(client)
    sources = {}
    for name, text in (("travel", TRAVEL), ("finance", FINANCE)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.md").write_text(text, "utf-8")
        added = client.call(
            SOURCE_ADD,
            c.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(folder), watch=False
            ),
        )
        assert added.task_id is not None
        wait_task(client, added.task_id)
        sources[name] = added.source.id
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    wait_task(client, task.task_id)
    before = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    assert _entity(client, library_id, "统一认证平台").mentions > 0  # only finance.md names it
    client.call(
        SOURCE_REMOVE, c.SourceRemoveRequest(library_id=library_id, source_id=sources["finance"])
    )
    after = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    listed = client.call(GRAPH_ENTITIES, g.EntitiesListRequest(library_id=library_id)).entities
    assert listed and all(e.mentions > 0 for e in listed), [(e.name, e.mentions) for e in listed]
    assert "统一认证平台" not in {e.name for e in listed}
    assert after.entities == len(listed) < before.entities
    assert 0 < after.relations < before.relations
