"""Rebuild jobs against a real backend process over the real socket: new settings take effect
document by document, failures and cancels keep old generations searchable, a kill -9 in the
middle of a document's replacement leaves it whole, shutdown cancels, vectors swap atomically."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as rb
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.methods import (
    DOCUMENT_REBUILD,
    DOCUMENTS_LIST,
    GRAPH_UPDATE,
    LIBRARY_LIST,
    LIBRARY_REBUILD,
    RETRIEVE,
    TASKS_CANCEL,
    TASKS_LIST,
    VECTORS_REBUILD,
    VECTORS_STATUS,
)
from goodbuddy_kb.main_process.storage.db import DATABASE_FILE
from tests.bridge.helpers import (
    chunking,
    create_library,
    finished,
    library_with_docs,
    poll_task,
    session,
    settle,
    use_remote,
    wait_task,
    write_doc,
)
from tests.servers.embedserver import Script, openai_server

pytestmark = pytest.mark.integration


def docs(client: BlockingClient, library_id: str) -> dict[str, c.Document]:
    listed = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id, limit=200))
    return {d.path: d for d in listed.documents}


def top_path(client: BlockingClient, library_id: str, query: str) -> str:
    res = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=query))
    assert res.results, f"nothing found for {query}"
    return res.results[0].document_path


def pending(client: BlockingClient, library_id: str) -> bool:
    found = client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries
    return next(x for x in found if x.id == library_id).settings_pending_rebuild


def rebuild_library(client: BlockingClient, library_id: str) -> t.TaskInfo:
    task_id = client.call(LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)).task_id
    return wait_task(client, task_id)[0]


def test_new_chunking_through_a_library_rebuild_with_one_document_failing(
    data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    with session(data_dir) as (_backend, client):
        library_id = library_with_docs(client, folder)
        assert {d.chunk_count for d in docs(client, library_id).values()} == {2}
        chunking(client, library_id, "structure")
        assert pending(client, library_id)
        (folder / "doc3.md").write_bytes(b"\x00\x01binary" * 500)
        task = rebuild_library(client, library_id)
        assert task.kind == "rebuild" and task.state == "completed"
        assert (task.done, task.total, task.failed_documents) == (5, 5, 1)
        assert task.summary == t.TaskSummary(succeeded=4, failed=1, settings_applied=False)
        assert task.error and "doc3.md" in task.error and "binary" in task.error
        listed = docs(client, library_id)
        assert [listed[f"doc{d}.md"].chunk_count for d in range(1, 6)] == [6, 6, 2, 6, 6]
        assert listed["doc3.md"].retryable_error and listed["doc3.md"].status.fulltext == "done"
        assert top_path(client, library_id, "topic3x2") == "doc3.md", "old chunks still serve"
        hit = client.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="topic1x4")
        ).results[0]
        assert hit.heading_path[-1:] == ["Section 4"], "new boundaries: one chunk per section"
        assert "topic1x3" not in hit.snippet and "topic1x5" not in hit.snippet
        assert pending(client, library_id), "doc3 is still on the old settings"

        write_doc(folder, 3)  # fixed: only this document needs rebuilding
        doc3 = listed["doc3.md"].id
        task_id = client.call(
            DOCUMENT_REBUILD, rb.DocumentRebuildRequest(library_id=library_id, document_id=doc3)
        ).task_id
        single, _seen = wait_task(client, task_id)
        assert single.state == "completed" and single.document_id == doc3
        assert docs(client, library_id)["doc3.md"].chunk_count == 6
        again = rebuild_library(client, library_id)
        assert again.summary is not None and again.summary.settings_applied is True
        assert not pending(client, library_id)
        other = create_library(client, "Other")
        with pytest.raises(NotFoundError):
            client.call(
                DOCUMENT_REBUILD, rb.DocumentRebuildRequest(library_id=other, document_id=doc3)
            )


def test_cancel_after_two_of_five_documents(data_dir: Path, tmp_path: Path) -> None:
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        use_remote(client, base)
        library_id = library_with_docs(client, tmp_path / "docs")
        assert {d.status.vector for d in docs(client, library_id).values()} == {"done"}
        chunking(client, library_id, "structure")
        script.delay_s = 0.5  # each document now takes half a second to embed
        task_id = client.call(
            LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)
        ).task_id
        poll_task(client, task_id, lambda x: x.done >= 2)
        client.call(TASKS_CANCEL, t.TaskCancelRequest(task_id=task_id))
        final = poll_task(client, task_id, finished)
        script.delay_s = 0.0
        assert final.state == "cancelled" and final.error == "cancelled by the user"
        assert final.summary == t.TaskSummary(
            succeeded=2, failed=0, not_started=3, settings_applied=False
        )
        listed = docs(client, library_id)
        assert [listed[f"doc{d}.md"].chunk_count for d in range(1, 6)] == [6, 6, 2, 2, 2]
        assert {d.status.vector for d in listed.values()} == {"done"}
        for d in range(1, 6):
            assert top_path(client, library_id, f"topic{d}x3") == f"doc{d}.md"
        assert pending(client, library_id)


def test_shutdown_during_a_rebuild_cancels_it(data_dir: Path, tmp_path: Path) -> None:
    script = Script()
    with openai_server(script) as base:
        with session(data_dir) as (backend, client):
            use_remote(client, base)
            library_id = library_with_docs(client, tmp_path / "docs")
            # a local graph: the rebuild queues its extraction as it ends, while the app closes
            client.call(
                GRAPH_UPDATE,
                g.GraphUpdateRequest(
                    library_id=library_id, settings=g.GraphSettings(strategy="local")
                ),
            )
            chunking(client, library_id, "structure")
            script.delay_s = 0.5
            task_id = client.call(
                LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)
            ).task_id
            poll_task(client, task_id, lambda x: x.done >= 1)
            started = time.monotonic()
            backend.stop()
            assert time.monotonic() - started < 6, "within the shutdown grace bound"
        with session(data_dir) as (_backend, client):
            task = next(
                x for x in client.call(TASKS_LIST, t.TaskListRequest()).tasks if x.id == task_id
            )
            assert (task.state, task.error) == ("cancelled", "the app is closing"), task
            assert task.summary is not None and task.summary.not_started >= 1
            counts = {d.chunk_count for d in docs(client, library_id).values()}
            assert counts <= {2, 6}, "every document entirely old or entirely new"


def _integrity(db: Path, path: str) -> tuple[set[str], str]:
    """The document's chunk ids and its vector status, after checking that chunks, both
    full-text tables and the live vector rows agree, and SQLite's and FTS5's integrity checks."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        conn.execute("INSERT INTO chunks_cjk (chunks_cjk) VALUES ('integrity-check')")
        doc_id, vector_status = conn.execute(
            "SELECT id, vector_status FROM documents WHERE relative_path = ?", (path,)
        ).fetchone()
        rows = conn.execute(
            "SELECT id, seq FROM chunks WHERE document_id = ? AND role != 'parent' AND enabled = 1",
            (doc_id,),
        ).fetchall()
        seqs = {seq for _id, seq in rows}
        for table in ("chunks_fts", "chunks_cjk"):
            indexed = {
                x[0]
                for x in conn.execute(
                    f"SELECT rowid FROM {table} WHERE rowid IN (SELECT seq FROM chunks"
                    " WHERE document_id = ?)",
                    (doc_id,),
                )
            }
            assert indexed == seqs, f"{table} matches the chunks"
            (orphans,) = conn.execute(
                f"SELECT count(*) FROM {table} WHERE rowid NOT IN (SELECT seq FROM chunks)"
            ).fetchone()
            assert orphans == 0
        (version,) = conn.execute("SELECT current_vector_version FROM libraries").fetchone()
        live = {
            x[0]
            for x in conn.execute(
                "SELECT v.chunk_seq FROM vector_rows v JOIN chunks c ON c.seq = v.chunk_seq"
                " WHERE v.version_id = ? AND v.alive = 1 AND v.checksum = c.checksum"
                " AND c.document_id = ?",
                (version, doc_id),
            )
        }
        if vector_status == "done":
            assert live == seqs, "every chunk of the serving generation has its vector"
        (dangling,) = conn.execute(
            "SELECT count(*) FROM vector_rows WHERE alive = 1 AND chunk_seq NOT IN"
            " (SELECT seq FROM chunks)"
        ).fetchone()
        assert dangling == 0
        (row_count, dims) = conn.execute(
            "SELECT row_count, dims FROM vector_versions WHERE id = ?", (version,)
        ).fetchone()
        file = db.parent / "vectors" / f"{version}.f32"
        assert file.stat().st_size >= row_count * dims * 4
        return {x[0] for x in rows}, vector_status
    finally:
        conn.close()


def _kill_inside_a_write_transaction(backend: BackendProcess, db: Path, timeout: float) -> bool:
    """Freeze the backend at random moments until it is caught holding SQLite's write lock (in
    this library that is almost always the big document's replacement), then kill -9 it."""
    probe = sqlite3.connect(db, timeout=0, isolation_level=None)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and backend.alive():
            os.kill(backend.pid, signal.SIGSTOP)
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                backend.kill()  # SIGKILL while frozen mid-transaction
                return True
            probe.execute("ROLLBACK")
            os.kill(backend.pid, signal.SIGCONT)
            time.sleep(0.003)
    finally:
        probe.close()
    return False


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP/SIGKILL")
def test_kill_9_in_the_middle_of_a_replacement_leaves_the_document_whole(
    data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_doc(folder, 9, sections=3000, name="a-big.md")  # ~1 MB, thousands of chunks
    db = data_dir / DATABASE_FILE
    with session(data_dir) as (_backend, client):
        library_id = library_with_docs(client, folder, count=2)
        assert docs(client, library_id)["a-big.md"].status.vector == "done"
    old, _status = _integrity(db, "a-big.md")
    kills = 0
    for _round in range(3):
        backend = BackendProcess.start(data_dir)
        with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as cl:
            mode = "structure" if _round % 2 == 0 else "fixed"
            chunking(cl, library_id, mode)
            cl.call(LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id))
            caught = _kill_inside_a_write_transaction(backend, db, timeout=60)
        backend.stop()
        kills += caught
        after_crash, _status = _integrity(db, "a-big.md")
        with session(data_dir) as (_b, client):
            tasks = client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id)).tasks
            assert tasks[0].kind == "rebuild" and tasks[0].state in ("interrupted", "completed")
            finished = rebuild_library(client, library_id)
            assert finished.state == "completed" and finished.failed_documents == 0
            settle(client, library_id)
        new, status = _integrity(db, "a-big.md")
        assert after_crash in (old, new), "entirely old or entirely new"
        assert status == "done"
        old = new
    assert kills >= 1, "the probe never caught the backend inside a write transaction"


def vector_label(client: BlockingClient, library_id: str) -> m.VectorIndexInfo:
    return client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))


def degraded_vector(client: BlockingClient, library_id: str) -> list[str]:
    res = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="topic2x2"))
    assert res.results and res.results[0].document_path == "doc2.md"
    return [d.reason for d in res.diagnostics.degraded_channels if d.channel == "vector"]


def test_rebuild_vectors_after_an_endpoint_switch_swaps_only_when_complete(
    data_dir: Path, tmp_path: Path
) -> None:
    first, second, third = Script(), Script(seed_offset=7), Script(seed_offset=9)
    with (
        openai_server(first) as a,
        openai_server(second) as b,
        openai_server(third) as c3,
        session(data_dir) as (_backend, client),
    ):
        use_remote(client, a)
        library_id = library_with_docs(client, tmp_path / "docs")
        label_a = vector_label(client, library_id).model_label
        assert label_a and a.split("//")[1] in label_a
        use_remote(client, b, batch=2)
        info = vector_label(client, library_id)
        assert not info.compatible and "another model or endpoint" in (info.reason or "")
        second.delay_s = 0.3
        task_id = client.call(
            VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
        ).task_id
        poll_task(client, task_id, lambda x: x.state == "running" and x.done > 0)
        during = vector_label(client, library_id)
        assert during.state == "building" and during.model_label == label_a, "old one current"
        # the count is the new index's, as the task's is (it read 10/10, the old one's)
        assert during.vectors < during.retrievable_chunks == 10, during
        assert any("another model" in x for x in degraded_vector(client, library_id))
        done = poll_task(client, task_id, finished)
        second.delay_s = 0.0
        assert done.state == "completed"
        swapped = vector_label(client, library_id)
        assert swapped.compatible and swapped.model_label != label_a
        assert degraded_vector(client, library_id) == []

        third.fail_after = 3  # 10 chunks in batches of 2: the fourth of five batches fails
        use_remote(client, c3, batch=2)
        failed_id = client.call(
            VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
        ).task_id
        failed = poll_task(client, failed_id, finished)
        assert failed.state == "failed" and "HTTP 500" in (failed.error or "")
        kept = vector_label(client, library_id)
        assert kept.model_label == swapped.model_label and "HTTP 500" in (kept.last_failure or "")
        # the rebuild failed as a whole: no document of the batch in flight reads "failed"
        # beside the others (four did when a helper's service went down mid-rebuild)
        statuses = {d.status.vector for d in docs(client, library_id).values()}
        assert statuses == {"incompatible"}, statuses
        use_remote(client, b, batch=2)  # back to the model of the version still serving
        assert degraded_vector(client, library_id) == [], "the previous version kept serving"


def test_a_model_elsewhere_is_connected_to_not_loaded(data_dir: Path, tmp_path: Path) -> None:
    """Vectorising through a service, the step before the first batch said "loading the
    embedding model…" (a helper's try): nothing loads here, the service is asked."""
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        use_remote(client, base)
        library_id = library_with_docs(client, tmp_path / "docs", count=2)
        script.delay_s = 0.5  # the dimensions probe and each batch
        client.notifications.clear()
        task_id = client.call(
            VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
        ).task_id
        _info, seen = wait_task(client, task_id)
    steps = [x.current for x in seen]
    assert t.STEP_CONNECTING in steps and t.STEP_LOADING_MODEL not in steps, steps
