"""Vectors of changed documents do not pile up, over the real socket: each changed chunk leaves
its old vector behind as a dead row that every query reads and skips; once a quarter of the
index is dead, vectorisation copies the live rows into a new index and swaps it in. A search
then scans as many vectors as the library has chunks, finds the new text, and the old index's
files are gone."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, RETRIEVE, SOURCE_ADD, SOURCE_SYNC
from goodbuddy_kb.main_process.vectors.store import COMPACT_MIN_DEAD, VECTOR_DIR
from tests.bridge.helpers import wait_idle

DOCUMENTS = COMPACT_MIN_DEAD + 16


def write(folder: Path, version: str) -> None:
    for d in range(DOCUMENTS):
        (folder / f"note {d}.md").write_text(
            f"# Note {d}\n\nMeeting room {d} is booked for the {version} review of project {d}.\n",
            encoding="utf-8",
        )


def scanned(client: BlockingClient, library_id: str, query: str) -> r.KnowledgeRetrievalResponse:
    return client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=query))


def test_changed_documents_leave_no_dead_vectors_behind(
    live: BlockingClient, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    write(folder, "spring")
    library_id = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Notes")).library.id
    live.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    wait_idle(live)
    assert scanned(live, library_id, "spring review").diagnostics.vector_scanned == DOCUMENTS
    files = sorted(p.name for p in (data_dir / VECTOR_DIR).iterdir())

    write(folder, "autumn")  # every document changes
    live.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=library_id))
    wait_idle(live)
    res = scanned(live, library_id, "autumn review of project 7")
    assert res.diagnostics.vector_scanned == DOCUMENTS, "the old vectors are not read any more"
    assert "vector" not in {d.channel for d in res.diagnostics.degraded_channels}
    assert res.results and "autumn" in res.results[0].snippet
    now = sorted(p.name for p in (data_dir / VECTOR_DIR).iterdir())
    assert len(now) == len(files) and not set(now) & set(files), "a new index, the old one gone"

    # a few changes stay below the share: appended, nothing rewritten
    for d in range(3):
        (folder / f"note {d}.md").write_text(
            f"# Note {d}\n\nWinter review {d}.\n", encoding="utf-8"
        )
    live.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=library_id))
    wait_idle(live)
    # the three changed notes' old rows stay in the file, dead and skipped: what is scanned is
    # the live vectors, one per document
    assert scanned(live, library_id, "winter").diagnostics.vector_scanned == DOCUMENTS
    assert sorted(p.name for p in (data_dir / VECTOR_DIR).iterdir()) == now
