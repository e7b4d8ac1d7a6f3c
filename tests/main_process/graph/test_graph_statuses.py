"""A document's graph status says where its graph stands (PRD §7.6): "pending" while a local
extraction is queued, "on demand" while the model strategy waits for a run a person starts,
"running" while an extraction reads it, "done" after; and a single-document rebuild re-extracts
that document's graph (its old names go, its new ones come) instead of keeping stale entities;
documents an extraction was reading when the backend died wait again at start."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    CHUNK_GET,
    CHUNK_UPDATE,
    CHUNKS_LIST,
    DOCUMENT_REBUILD,
    DOCUMENTS_LIST,
    GRAPH_ENTITIES,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    SOURCE_ADD,
)
from goodbuddy_kb.main_process.chunking.drafts import ChunkDraft, canonical_index_text, checksum
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage import documents, libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from tests.dispatch import call
from tests.main_process.graph.helpers import FINANCE, turn_on
from tests.main_process.graph.test_model_extraction import configure
from tests.servers.extractserver import ExtractScript, Reply, extract_server

pytestmark = pytest.mark.integration


def graph_statuses(d: Dispatcher, library_id: str) -> dict[str, str]:
    listed = call(d, DOCUMENTS_LIST.name, {"libraryId": library_id})["documents"]
    return {doc["path"]: doc["status"]["graph"] for doc in listed}


def names(d: Dispatcher, library_id: str) -> set[str]:
    found = call(d, GRAPH_ENTITIES.name, {"libraryId": library_id, "limit": 200})["entities"]
    return {e["name"] for e in found}


def test_a_new_librarys_graph_is_local_and_built_as_its_documents_arrive(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """Nobody turns the graph on: a library made now extracts its documents' names and
    relations offline as they are imported."""
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "finance.md").write_text(FINANCE, encoding="utf-8")
    library_id = call(dispatcher, LIBRARY_CREATE.name, {"name": "New"})["library"]["id"]
    info = call(dispatcher, GRAPH_GET.name, {"libraryId": library_id})
    assert info["settings"]["strategy"] == "local"
    call(
        dispatcher,
        SOURCE_ADD.name,
        {"libraryId": library_id, "kind": "folder", "location": str(folder), "watch": False},
    )
    services.tasks.wait_idle(30)
    assert graph_statuses(dispatcher, library_id) == {"finance.md": "done"}
    assert {"财务部", "统一认证平台"} <= names(dispatcher, library_id)
    assert not call(dispatcher, GRAPH_GET.name, {"libraryId": library_id})["needsRebuild"]


def test_a_document_rebuild_re_extracts_that_documents_graph(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    turn_on(dispatcher, services, kb)
    assert "统一认证平台" in names(dispatcher, kb)
    (tmp_path / "kb" / "finance.md").write_text(
        "# 部门职责\n\n财务部隶属于行政中心。报销系统依赖统一支付平台。\n", encoding="utf-8"
    )
    listed = call(dispatcher, DOCUMENTS_LIST.name, {"libraryId": kb})["documents"]
    finance = next(doc for doc in listed if doc["path"] == "finance.md")
    call(dispatcher, DOCUMENT_REBUILD.name, {"libraryId": kb, "documentId": finance["id"]})
    services.tasks.wait_idle(30)
    after = names(dispatcher, kb)
    assert "统一认证平台" not in after, "the old text's entity does not outlive it"
    assert "统一支付平台" in after, "the new text's entity is extracted"
    assert graph_statuses(dispatcher, kb)["finance.md"] == "done"
    assert not call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["needsRebuild"]


def test_statuses_pending_on_demand_running_and_done(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    info = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    local = {**info["settings"], "strategy": "local"}
    call(dispatcher, GRAPH_UPDATE.name, {"libraryId": kb, "settings": local})
    assert set(graph_statuses(dispatcher, kb).values()) == {"pending"}, "a local run is due"
    release = threading.Event()

    def slow(_body: dict[str, Any]) -> Reply:
        release.wait(10)
        return {"answer": {"entities": [], "relations": []}}

    script = ExtractScript(slow)
    with extract_server(script) as url:
        configure(dispatcher, kb, url, modelConcurrency=1)
        statuses = graph_statuses(dispatcher, kb)
        assert set(statuses.values()) == {"on_demand"}, "the model waits for a person's run"
        call(dispatcher, GRAPH_EXTRACT.name, {"libraryId": kb})
        deadline = time.monotonic() + 10
        while not script.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert set(graph_statuses(dispatcher, kb).values()) == {"running"}
        release.set()
        services.tasks.wait_idle(30)
    assert set(graph_statuses(dispatcher, kb).values()) == {"done"}


def test_an_extraction_a_crash_cut_off_waits_again_at_start(
    dispatcher: Dispatcher, services: Services, kb: str, pool: ConnectionPool, data_dir: Path
) -> None:
    info = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    model = {**info["settings"], "strategy": "model"}
    call(dispatcher, GRAPH_UPDATE.name, {"libraryId": kb, "settings": model})
    with pool.get() as conn:  # the state a crash in the middle of a run leaves
        conn.execute("UPDATE documents SET graph_status = 'running' WHERE library_id = ?", (kb,))
    services.stop()
    restarted = Services.start(pool, data_dir, lambda _method, _params: None)
    try:
        assert set(graph_statuses(Dispatcher(restarted), kb).values()) == {"on_demand"}
    finally:
        restarted.stop()


def folder_library(
    dispatcher: Dispatcher, services: Services, folder: Path, files: dict[str, str]
) -> tuple[str, Callable[[str], dict[str, Any]]]:
    """A library of ``files`` in ``folder``, imported and extracted; and a function that
    reads one of its documents by path as the documents list gives it."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    library_id = call(dispatcher, LIBRARY_CREATE.name, {"name": folder.name})["library"]["id"]
    call(
        dispatcher,
        SOURCE_ADD.name,
        {"libraryId": library_id, "kind": "folder", "location": str(folder), "watch": False},
    )
    services.tasks.wait_idle(30)

    def document(path: str) -> dict[str, Any]:
        listed = call(dispatcher, DOCUMENTS_LIST.name, {"libraryId": library_id})["documents"]
        return next(doc for doc in listed if doc["path"] == path)

    return library_id, document


def test_a_chunk_edit_or_switch_gets_its_graph_again(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """Editing, switching off and on or deleting a chunk drops its graph evidence (the text it
    was read from changed): the document waits for its graph again and a local graph re-reads it,
    so the Graph column's count and the entity list follow the text — before, the document kept
    reading "done" with none of the names its edited text still holds, until someone ran an
    extraction by hand."""
    files = {"finance.md": FINANCE}
    library_id, document = folder_library(dispatcher, services, tmp_path / "edits", files)

    def finance() -> dict[str, Any]:
        return document("finance.md")

    doc = finance()
    assert doc["status"]["graph"] == "done" and doc["graphEntities"] >= 3
    chunks = call(dispatcher, CHUNKS_LIST.name, {"libraryId": library_id, "documentId": doc["id"]})[
        "chunks"
    ]
    chunk = next(ch for ch in chunks if ch["role"] != "parent")
    ids = {"libraryId": library_id, "documentId": doc["id"], "chunkId": chunk["id"]}
    text = call(dispatcher, CHUNK_GET.name, ids)["content"]
    edited = text.replace("统一认证平台", "统一支付平台")
    assert edited != text
    call(dispatcher, CHUNK_UPDATE.name, {**ids, "content": edited})
    services.tasks.wait_idle(30)
    after = finance()
    assert after["status"]["graph"] == "done"
    assert after["graphEntities"] == doc["graphEntities"], "the edited text's names are back"
    assert {"财务部", "统一支付平台"} <= names(dispatcher, library_id)
    assert "统一认证平台" not in names(dispatcher, library_id), "a name no text holds is gone"
    call(dispatcher, CHUNK_UPDATE.name, {**ids, "enabled": False})
    services.tasks.wait_idle(30)
    assert finance()["graphEntities"] < doc["graphEntities"]
    assert "统一支付平台" not in names(dispatcher, library_id)
    call(dispatcher, CHUNK_UPDATE.name, {**ids, "enabled": True})
    services.tasks.wait_idle(30)
    assert finance()["graphEntities"] == doc["graphEntities"]
    assert "统一支付平台" in names(dispatcher, library_id)


def test_a_document_whose_only_chunk_is_off_has_its_graph(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """Switching off a document's only chunk leaves nothing to read: its graph is done with
    nothing found (it read "… Pending" for good — the extraction never reached it — while
    every later run completed; a helper under Xvfb), and back on, its names come back."""
    files = {"club.md": "读书会由人力资源部组织，每月一次。\n", "finance.md": FINANCE}
    library_id, document = folder_library(dispatcher, services, tmp_path / "one", files)

    def club() -> dict[str, Any]:
        return document("club.md")

    doc = club()
    assert doc["status"]["graph"] == "done" and doc["graphEntities"] >= 1
    (chunk,) = call(
        dispatcher, CHUNKS_LIST.name, {"libraryId": library_id, "documentId": doc["id"]}
    )["chunks"]
    ids = {"libraryId": library_id, "documentId": doc["id"], "chunkId": chunk["id"]}
    call(dispatcher, CHUNK_UPDATE.name, {**ids, "enabled": False})
    services.tasks.wait_idle(30)
    off = club()
    assert off["status"]["graph"] == "done", off["status"]
    assert off["graphEntities"] == 0
    call(dispatcher, CHUNK_UPDATE.name, {**ids, "enabled": True})
    services.tasks.wait_idle(30)
    back = club()
    assert back["status"]["graph"] == "done" and back["graphEntities"] == doc["graphEntities"]


def test_a_document_of_a_library_whose_graph_settings_were_never_read_waits_for_its_graph(
    pool: ConnectionPool,
) -> None:
    """A new library's graph is local, but its settings row is made the first time they are
    read: a document imported before then read "– Off" while its first extraction was queued
    (a helper saw it during a first sync)."""
    conn = pool.get()
    library_id = libraries.create(conn, "Fresh").id
    assert conn.execute("SELECT count(*) FROM graph_settings").fetchone()[0] == 0
    source = sources.add(conn, library_id, "folder", "/nowhere", [], [], False)
    text = canonical_index_text("财务部负责报销。", None)
    drafts = [
        ChunkDraft(
            "c1", 0, "standalone", None, None, (), {}, "paragraph", text, text, checksum(text)
        )
    ]
    documents.store_parsed(
        conn, library_id, source.id, "a.md", "a", "text/markdown", "x", 10, drafts
    )
    (status,) = conn.execute("SELECT graph_status FROM documents").fetchone()
    assert status == "pending"
