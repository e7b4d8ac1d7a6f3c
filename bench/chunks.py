"""Chunk maintenance benchmark over the real socket: listing a 5,000-chunk document a page of
200 at a time (first, middle and last page), with and without a search within the document, and
an edit round trip (save → found by full text). Every figure is a median, printed beside
`system:ping` measured in the same run (the ratio is the figure to compare across machines).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/chunks.py [--chunks N] [--rounds N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import time
from pathlib import Path

from _timing import median_ms
from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    CHUNK_UPDATE,
    CHUNKS_LIST,
    DOCUMENTS_LIST,
    LIBRARY_CREATE,
    RETRIEVE,
    SOURCE_ADD,
    SYSTEM_PING,
    TASKS_LIST,
)
from goodbuddy_kb.contracts.system import PingRequest

SECTION = (
    "## Rule {n}\n\nRule {n} of the travel handbook: topic{n} covers lodging, meals and local "
    "transport for trip class {m}. 差旅手册第{n}条：住宿、餐饮与市内交通的标准和报销流程。"
    " Receipts are kept for audit and submitted within thirty days of return.\n\n"
)


def wait_idle(client: BlockingClient, library_id: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id)).tasks
        if tasks and all(x.state in t.FINISHED_STATES for x in tasks):
            return
        time.sleep(0.2)
    raise RuntimeError("tasks did not finish")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    os.environ.setdefault("GOODBUDDY_DEFAULT_EMBEDDING", "deterministic")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir, folder = Path(tmp) / "data", Path(tmp) / "docs"
        data_dir.mkdir(mode=0o700)
        folder.mkdir()
        body = "".join(SECTION.format(n=n, m=n % 7) for n in range(args.chunks))
        (folder / "handbook.md").write_text(f"# Handbook\n\n{body}", encoding="utf-8")
        backend = BackendProcess.start(data_dir)
        try:
            client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="B")).library.id
            started = time.perf_counter()
            client.call(
                SOURCE_ADD,
                c.SourceAddRequest(
                    library_id=library_id, kind="folder", location=str(folder), watch=False
                ),
            )
            wait_idle(client, library_id)
            indexed_s = time.perf_counter() - started
            doc = client.call(
                DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)
            ).documents[0]
            ping = median_ms(lambda: client.call(SYSTEM_PING, PingRequest()), 200, warmup=20)

            def page(cursor: str | None, search: str | None = None) -> k.ChunksListResponse:
                return client.call(
                    CHUNKS_LIST,
                    k.ChunksListRequest(
                        library_id=library_id,
                        document_id=doc.id,
                        cursor=cursor,
                        limit=200,
                        search=search,
                    ),
                )

            total = page(None).total
            cursors = itertools.cycle([None, str(total // 2 // 200 * 200), str(total - 200)])
            plain = median_ms(lambda: page(next(cursors)), args.rounds * 3, warmup=5)
            common = page(None, "receipts")
            assert common.total == total and len(common.chunks) == 200
            search_all = median_ms(
                lambda: page(next(cursors), "receipts"), args.rounds * 3, warmup=5
            )
            rare = page(None, "topic4242 ")
            search_one = median_ms(lambda: page(None, "topic4242 "), args.rounds, warmup=5)
            target = page(str(total // 2)).chunks[0]
            counter = itertools.count()

            def edit_round_trip() -> None:
                token = f"zq{next(counter):05d}marker"
                client.call(
                    CHUNK_UPDATE,
                    k.ChunkUpdateRequest(
                        library_id=library_id,
                        document_id=doc.id,
                        chunk_id=target.id,
                        content=f"Edited rule with {token} 修改后的条款。",
                    ),
                )
                found = client.call(
                    RETRIEVE,
                    r.RetrieveRequest(library_ids=[library_id], query=token, channels=["fts"]),
                )
                assert found.results and found.results[0].chunk_id == target.id

            edit = median_ms(edit_round_trip, args.rounds, warmup=3)
            client.close()
        finally:
            backend.stop()
    print(f"document of {total} chunks (indexed and vectorised in {indexed_s:.1f} s)")
    print(f"{'call':<44}{'p50 ms':>10}{'× ping':>10}")
    rows = [
        ("system:ping (reference)", ping),
        ("chunks:list page of 200 (first/middle/last)", plain),
        ("… search matching every chunk, page of 200", search_all),
        (f"… search matching {rare.total} chunk", search_one),
        ("chunk:update → found by full text", edit),
    ]
    for name, value in rows:
        print(f"{name:<44}{value:>10.2f}{value / ping:>10.1f}")
    print(
        json.dumps(
            {
                "chunks": total,
                "pingMs": ping,
                "listPageMs": plain,
                "searchAllPageMs": search_all,
                "searchOneMs": search_one,
                "editRoundTripMs": edit,
            }
        )
    )


if __name__ == "__main__":
    main()
