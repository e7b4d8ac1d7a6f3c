"""Chunk maintenance over the real socket against a real backend process: the listing's page
bound, the content limit and ownership re-checks are enforced at the IPC boundary, and an edit
is searchable by full text as soon as its call returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.limits import MAX_CHUNK_CONTENT_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    CHUNK_UPDATE,
    CHUNKS_LIST,
    DOCUMENTS_LIST,
    NOTIFY_CHANGED,
    RETRIEVE,
    SOURCE_ADD,
)
from goodbuddy_kb.contracts.wire import encode_frame, request_message
from tests.bridge.helpers import create_library, wait_task

pytestmark = pytest.mark.integration


def raw(client: BlockingClient, name: str, params: dict[str, Any]) -> dict[str, Any]:
    client.send_raw(encode_frame(request_message(991, name, params)))
    reply = client.read_message(timeout=10)
    while reply.get("id") != 991:
        reply = client.read_message(timeout=10)
    return reply


def test_limits_ownership_and_an_edit_over_the_socket(
    client: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    body = "".join(f"## P{n}\n\nParagraph {n} about item{n} 条款{n}。\n\n" for n in range(1, 6))
    (folder / "a.md").write_text(f"# A\n\n{body}", "utf-8")
    library_id = create_library(client)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    assert added.task_id is not None
    wait_task(client, added.task_id)
    doc = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents[0]
    listing = client.call(
        CHUNKS_LIST, k.ChunksListRequest(library_id=library_id, document_id=doc.id, limit=2)
    )
    assert len(listing.chunks) == 2 and listing.total == 5 and listing.next_cursor == "2"
    ids = {"libraryId": library_id, "documentId": doc.id, "chunkId": listing.chunks[0].id}

    too_many = raw(
        client, CHUNKS_LIST.name, {"libraryId": library_id, "documentId": doc.id, "limit": 201}
    )
    assert too_many["error"]["data"]["code"] == "invalid_request"
    too_long = raw(
        client, CHUNK_UPDATE.name, {**ids, "content": "字" * (MAX_CHUNK_CONTENT_CHARACTERS + 1)}
    )
    assert too_long["error"]["data"]["code"] == "invalid_request"
    assert "字字字" not in str(too_long), "the content is never echoed back"
    other = create_library(client, "Other")
    stranger = raw(client, CHUNK_UPDATE.name, {**ids, "libraryId": other, "enabled": False})
    assert stranger["error"]["data"]["code"] == "not_found"

    client.notifications.clear()
    edited = client.call(
        CHUNK_UPDATE,
        k.ChunkUpdateRequest(
            library_id=library_id,
            document_id=doc.id,
            chunk_id=listing.chunks[0].id,
            content="Replaced with capybara 水豚 text.",
        ),
    )
    assert edited.chunk.manually_edited
    found = client.call(
        RETRIEVE,
        r.RetrieveRequest(library_ids=[library_id], query="capybara", channels=["fts"]),
    )
    assert [x.chunk_id for x in found.results] == [listing.chunks[0].id]
    method, params = client.next_notification(timeout=5)
    while method != NOTIFY_CHANGED.name:
        method, params = client.next_notification(timeout=5)
    assert params["documents"] and library_id in params["libraryIds"]
