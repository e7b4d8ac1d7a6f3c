"""`knowledge:document:remove` through the dispatcher on a real database and a real folder
sync: the folder's file leaves the library and stays out on the next sync (its exact path is
excluded, wildcards and all: a neighbour whose name the pattern could match stays); a file
added on its own goes with its source; the files themselves are never touched."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts.methods import DOCUMENT_REMOVE, SOURCE_LIST
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.dispatch import call, fail


def paths(pool: ConnectionPool, library_id: str) -> dict[str, str]:
    rows = pool.get().execute(
        "SELECT relative_path, id FROM documents WHERE library_id = ?", (library_id,)
    )
    return {path: doc_id for path, doc_id in rows}


def test_a_folders_unreadable_file_is_removed_and_stays_out(
    dispatcher: Dispatcher,
    pool: ConnectionPool,
    library_id: str,
    folder: Path,
    folder_source: SourceRow,
) -> None:
    (folder / "a[1].md").write_bytes(b"")  # empty: cannot be read
    (folder / "a1.md").write_text("# A1\n\nA neighbour the pattern must not catch.\n")
    sync_source(pool.get(), folder_source, CancelToken())
    docs = paths(pool, library_id)
    assert set(docs) == {"a[1].md", "a1.md"}
    answer = call(
        dispatcher,
        DOCUMENT_REMOVE.name,
        {"libraryId": library_id, "documentId": docs["a[1].md"]},
    )
    assert answer["excluded"] == "a[[]1].md"
    assert set(paths(pool, library_id)) == {"a1.md"}
    listed = call(dispatcher, SOURCE_LIST.name, {"libraryId": library_id})["sources"]
    assert listed[0]["exclude"] == ["a[[]1].md"]
    sync_source(pool.get(), sources.get(pool.get(), library_id, folder_source.id), CancelToken())
    assert set(paths(pool, library_id)) == {"a1.md"}, "the next sync leaves it out"
    assert (folder / "a[1].md").exists()
    missing = fail(
        dispatcher,
        DOCUMENT_REMOVE.name,
        {"libraryId": library_id, "documentId": docs["a[1].md"]},
    )
    assert "document not found" in str(missing)


def test_a_file_added_on_its_own_goes_with_its_source(
    dispatcher: Dispatcher, pool: ConnectionPool, library_id: str, tmp_path: Path
) -> None:
    lone = tmp_path / "lone.md"
    lone.write_bytes(b"")
    row = sources.add(pool.get(), library_id, "file", str(lone), [], [], False)
    sync_source(pool.get(), row, CancelToken())
    (doc_id,) = paths(pool, library_id).values()
    answer = call(dispatcher, DOCUMENT_REMOVE.name, {"libraryId": library_id, "documentId": doc_id})
    assert answer["excluded"] is None
    assert paths(pool, library_id) == {}
    assert call(dispatcher, SOURCE_LIST.name, {"libraryId": library_id})["sources"] == []
    assert lone.exists()
