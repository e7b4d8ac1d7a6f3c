"""Local extraction writes whole documents in batches: a cancel between documents keeps the
graph of every document read before it (evidence and status 'done') and touches no other."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.graph import extract, store
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction

TEXT = "差旅报销制度由财务部审批。财务部隶属于行政中心。报销系统依赖统一认证平台。"


class CancelAfter(CancelToken):
    """Cancelled at its ``n``-th check (one check before matching, then one per document)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.left = n

    def check(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.cancel()
        super().check()


def library(tmp_path: Path, documents: int) -> tuple[sqlite3.Connection, str]:
    pool = open_database(tmp_path)
    conn = pool.get()
    library_id = libraries.create(conn, "Batches").id
    t = "2026-01-01"
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at)"
            " VALUES (?, ?, 'folder', '/nowhere', ?, ?)",
            ("s" * 32, library_id, t, t),
        )
        for d in range(documents):
            doc = uuid.UUID(int=d + 1).hex
            conn.execute(
                "INSERT INTO documents (id, library_id, source_id, relative_path, title,"
                " parse_status, fulltext_status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, 'd', 'done', 'done', ?, ?)",
                (doc, library_id, "s" * 32, f"d{d}.md", t, t),
            )
            conn.execute(
                "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text,"
                " checksum, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, 'h', ?, ?)",
                (uuid.uuid4().hex, library_id, doc, TEXT, TEXT, t, t),
            )
    store.update(conn, library_id, GraphSettings(strategy="local"), None)
    return conn, library_id


def graph_of(conn: sqlite3.Connection) -> tuple[list[str], int]:
    done = [
        row[0]
        for row in conn.execute(
            "SELECT relative_path FROM documents WHERE graph_status = 'done' ORDER BY id"
        )
    ]
    spans = conn.execute(
        "SELECT count(DISTINCT c.document_id) FROM graph_evidence v JOIN chunks c"
        " ON c.seq = v.chunk_seq"
    ).fetchone()[0]
    return done, spans


@pytest.mark.parametrize("rows", [1, 1_000_000])
def test_a_cancel_keeps_the_documents_read_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    # a batch per document, or every document in one batch that the cancel must still write
    monkeypatch.setattr(extract, "BATCH_ROWS", rows)
    monkeypatch.setattr(extract, "BATCH_SECONDS", 3600.0)
    conn, library_id = library(tmp_path, 6)
    seen: list[tuple[int, int]] = []
    with pytest.raises(CancelledError):
        extract.extract_library(
            conn,
            library_id,
            CancelAfter(1 + 4),  # the check before matching, then documents 1-3 read, 4th cancels
            lambda done, total: seen.append((done, total)),
        )
    done, spans = graph_of(conn)
    assert done == ["d0.md", "d1.md", "d2.md"] and spans == 3
    assert seen[-1] == (3, 6)
    # a run to the end writes the rest
    report = extract.extract_library(conn, library_id, CancelToken())
    assert report.documents == 6 and graph_of(conn) == (
        [f"d{i}.md" for i in range(6)],
        6,
    )
