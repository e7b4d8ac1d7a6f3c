"""Library settings over the real socket: settings where no retrieval channel can run are
refused, field by field, and nothing is saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from tests.bridge.helpers import library_with

pytestmark = pytest.mark.integration


def test_settings_where_no_channel_can_run_are_refused(
    live: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
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
