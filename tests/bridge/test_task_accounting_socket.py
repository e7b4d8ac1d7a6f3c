"""Task accounting over the real socket against a real backend process: work with nothing to
do is not queued (no "Vectorise 0/0" after a sync that changed nothing, no "OCR 0/0" after a
settings save), and a vector build that fails before its first batch still shows how many
chunks were waiting (not "0/0")."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import (
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_REBUILD,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_SYNC,
    VECTORS_REBUILD,
)
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from tests.bridge.helpers import create_library, library_with_docs, settle, unreachable_embedding

pytestmark = pytest.mark.integration


def test_tasks_with_nothing_to_do_are_not_listed(client: BlockingClient, tmp_path: Path) -> None:
    library_id = library_with_docs(client, tmp_path / "kb", 3)
    before = {x.id for x in settle(client, library_id)}
    # a sync that finds every file unchanged: the sync is listed, no vector or graph work
    client.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=library_id))
    settle(client, library_id)
    # the library settings dialog saves chunking with OCR on (as it always sends it)
    client.call(
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(
            library_id=library_id,
            chunking=KnowledgeChunkingSettings(mode="structure"),
            ocr_enabled=True,
        ),
    )
    new = [x for x in settle(client, library_id) if x.id not in before]
    assert [(x.kind, x.state, x.done, x.total) for x in new] == [("sync", "completed", 3, 3)]
    assert new[0].summary is not None and new[0].summary.unchanged == 3


def test_a_failed_vector_build_shows_the_chunks_it_had_to_embed(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with_docs(client, tmp_path / "kb", 3)
    (built,) = [x for x in settle(client, library_id) if x.kind == "vectorize"]
    chunks = built.total
    assert chunks > 0
    unreachable_embedding(client)  # the dimensions probe fails before any batch
    task = client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
    failed = next(x for x in settle(client, library_id) if x.id == task.task_id)
    assert failed.state == "failed" and "cannot be reached" in (failed.error or "")
    assert (failed.done, failed.total) == (0, chunks), "not 0/0 for a build of many chunks"


def test_a_library_without_readable_text_gets_no_graph_or_vector_task(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = create_library(client, "Empty")
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    local = info.settings.model_copy(update={"strategy": "local"})
    client.call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=local))
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "empty.md").write_bytes(b"")
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    settle(client, library_id)
    client.call(LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id))
    kinds = sorted(x.kind for x in settle(client, library_id))
    assert kinds == ["rebuild", "sync"], "no Graph extraction 0/0, no Vectorise 0/0"
