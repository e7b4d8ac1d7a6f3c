"""A document's parse status "running" while its file is read (PRD §7.6, issue 32), over the
real socket: a large file is listed as being read while the sync parses it, then done, and
with an embedding model its vectors never read "off" meanwhile; the small file beside it is
never left "running"; a crash's leftovers are corrected at start."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    SOURCE_ADD,
)
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.storage.db import transaction
from tests.bridge.helpers import wait_idle

pytestmark = pytest.mark.integration


def big_markdown(sections: int) -> str:
    body = "这是一段用于测试解析时间的正文内容，其中包含一些中文句子。" * 8
    return "".join(f"## 第{i}节\n\n{body}\n\n" for i in range(sections))


def test_a_large_file_is_listed_as_being_read_while_it_is_parsed(
    live: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a-small.md").write_text("# 小\n\n一段短文。\n", "utf-8")
    (folder / "big.md").write_text(big_markdown(4_000), "utf-8")  # about 3 MB: seconds
    live.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="deterministic")),
    )
    library_id = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Big")).library.id
    live.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    seen: dict[str, set[str]] = {}
    vectors_seen: set[str] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        listed = live.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
        for doc in listed.documents:
            seen.setdefault(doc.path, set()).add(doc.status.parse)
            vectors_seen.add(doc.status.vector)
        done = [d for d in listed.documents if d.status.parse == "done"]
        if len(done) == 2:
            break
        time.sleep(0.02)
    assert "running" in seen.get("big.md", set()), seen
    assert "disabled" not in vectors_seen, "a file being read has its vectors queued, not off"
    wait_idle(live)
    final = live.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
    assert {d.path: d.status.parse for d in final.documents} == {
        "a-small.md": "done",
        "big.md": "done",
    }
    assert all(d.chunk_count > 0 for d in final.documents)


def test_a_read_a_crash_cut_off_is_not_shown_running_after_a_restart(
    data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# 甲\n\n第一段。\n", "utf-8")
    (folder / "b.md").write_text("# 乙\n\n第二段。\n", "utf-8")
    backend = BackendProcess.start(data_dir)
    try:
        with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as c:
            library_id = c.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="K")).library.id
            c.call(
                SOURCE_ADD,
                s.SourceAddRequest(
                    library_id=library_id, kind="folder", location=str(folder), watch=False
                ),
            )
            wait_idle(c)
    finally:
        backend.stop()
    pool = open_database(data_dir)
    with transaction(conn := pool.get()):
        # as a crash leaves them: a serving document and a new one, both being read
        conn.execute("UPDATE documents SET parse_status = 'running'")
        conn.execute("DELETE FROM chunks WHERE document_id IN"
                     " (SELECT id FROM documents WHERE relative_path = 'b.md')")  # fmt: skip
    pool.close_all()
    backend = BackendProcess.start(data_dir)
    try:
        with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as c:
            listed = c.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
            assert {d.path: d.status.parse for d in listed.documents} == {
                "a.md": "done",
                "b.md": "pending",
            }
    finally:
        backend.stop()
