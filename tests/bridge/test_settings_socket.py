"""Library settings over the real socket: settings where no retrieval channel can run are
refused, field by field, and nothing is saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    GRAPH_UPDATE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from tests.bridge.helpers import graph_off, library_with

pytestmark = pytest.mark.integration


def test_settings_where_no_channel_can_run_are_refused(
    live: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
    graph_off(live, library_id)
    with pytest.raises(InvalidRequestError) as refused:
        live.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id,
                retrieval=KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=0.0),
            ),
        )
    assert {f["field"] for f in refused.value.details["fields"]} == {
        "retrieval.ftsWeight",
        "retrieval.vectorWeight",
    }
    live.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="none")),
    )
    with pytest.raises(InvalidRequestError):
        live.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id,
                retrieval=KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=1.0),
            ),
        )
    kept = live.call(SETTINGS_GET, lib.SettingsGetRequest(library_id=library_id))
    assert kept.retrieval.fts_weight == 1.0, "nothing was saved"


def test_graph_only_weights_are_accepted_while_the_graph_is_on(
    live: BlockingClient, tmp_path: Path
) -> None:
    """The graph channel runs when the library's graph is on: weights that leave only it are
    saved (and refused again, naming the graph, once it is off)."""
    library_id = library_with(live, tmp_path / "kb")
    graph_off(live, library_id)
    graph_only = KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=0.0, graph_weight=1.0)
    with pytest.raises(InvalidRequestError, match="the knowledge graph is off"):
        live.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(library_id=library_id, retrieval=graph_only),
        )
    live.call(
        GRAPH_UPDATE,
        g.GraphUpdateRequest(library_id=library_id, settings=g.GraphSettings(strategy="local")),
    )
    saved = live.call(
        SETTINGS_UPDATE, lib.SettingsUpdateRequest(library_id=library_id, retrieval=graph_only)
    )
    assert (saved.retrieval.fts_weight, saved.retrieval.graph_weight) == (0.0, 1.0)
    live.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="none")),
    )
    nothing = KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=1.0, graph_weight=0.0)
    with pytest.raises(InvalidRequestError) as refused:
        live.call(
            SETTINGS_UPDATE, lib.SettingsUpdateRequest(library_id=library_id, retrieval=nothing)
        )
    assert "knowledge graph is off" not in refused.value.message
    assert "retrieval.graphWeight" in {f["field"] for f in refused.value.details["fields"]}
