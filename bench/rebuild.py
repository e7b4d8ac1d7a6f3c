"""Rebuild benchmark: a library rebuild of 2,000 Markdown documents of about 3 KB through the
real backend, embeddings off, after a chunking change (so every chunk is rewritten). Prints
documents per second beside the first sync of the same corpus in the same run, and retrieve
latency (p50/p95) measured *during* the rebuild beside idle — the old index must keep serving
without stalls (target: during/idle p50 ≤ 2×).

    .venv/bin/python bench/rebuild.py [--files N] [--queries N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as rb
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_REBUILD,
    RETRIEVE,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    TASKS_LIST,
)
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from sync import WORDS_EN, WORDS_ZH, wait, write_corpus


def seconds(info: t.TaskInfo) -> float:
    assert info.finished_at is not None
    return (
        datetime.fromisoformat(info.finished_at) - datetime.fromisoformat(info.created_at)
    ).total_seconds()


def question(rng: random.Random) -> str:
    return "".join(rng.choice(WORDS_ZH) for _ in range(3)) + " " + rng.choice(WORDS_EN)


def timed_query(client: BlockingClient, library_id: str, text: str) -> float:
    start = time.perf_counter()
    res = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=text))
    assert res.results, text
    return (time.perf_counter() - start) * 1000


def state_of(client: BlockingClient, task_id: str) -> t.TaskInfo:
    tasks = client.call(TASKS_LIST, t.TaskListRequest(limit=20)).tasks
    return next(x for x in tasks if x.id == task_id)


def pct(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100)[int(q) - 1] if len(samples) > 1 else samples[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=60, help="idle queries")
    args = parser.parse_args()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        size = write_corpus(root / "corpus", args.files)
        backend = BackendProcess.start(root / "data")
        try:
            client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            client.call(
                EMBEDDING_UPDATE,
                m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="none")),
            )
            library_id = client.call(
                LIBRARY_CREATE, lib.LibraryCreateRequest(name="bench")
            ).library.id
            added = client.call(
                SOURCE_ADD,
                c.SourceAddRequest(
                    library_id=library_id, kind="folder", location=str(root / "corpus"), watch=False
                ),
            )
            assert added.task_id
            synced = wait(client, added.task_id)
            idle = [
                timed_query(client, library_id, question(rng)) for _ in range(args.queries + 3)
            ][3:]
            client.call(
                SETTINGS_UPDATE,
                lib.SettingsUpdateRequest(
                    library_id=library_id,
                    chunking=KnowledgeChunkingSettings(mode="fixed", target_characters=800),
                ),
            )
            task_id = client.call(
                LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)
            ).task_id
            during: list[float] = []
            while True:
                during.append(timed_query(client, library_id, question(rng)))
                if len(during) % 10 == 0:
                    info = state_of(client, task_id)
                    if info.state in t.FINISHED_STATES:
                        break
            rebuilt = state_of(client, task_id)
            client.call(
                SETTINGS_UPDATE,
                lib.SettingsUpdateRequest(
                    library_id=library_id, chunking=KnowledgeChunkingSettings(mode="structure")
                ),
            )
            quiet = wait(
                client,
                client.call(
                    LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)
                ).task_id,
            )
            client.close()
        finally:
            backend.stop()
    assert synced.state == rebuilt.state == quiet.state == "completed", (synced, rebuilt, quiet)
    assert rebuilt.summary is not None and rebuilt.summary.settings_applied
    sync_s, rebuild_s, quiet_s = seconds(synced), seconds(rebuilt), seconds(quiet)
    print(f"{args.files} Markdown files, {size / 1048576:.1f} MB, embeddings off")
    print(
        f"library rebuild, no queries:    {quiet_s:7.2f} s = {args.files / quiet_s:6.0f} documents/s"
        f"  (first sync of the same corpus: {args.files / sync_s:6.0f} documents/s,"
        f" rebuild/sync time {quiet_s / sync_s:.2f}×)"
    )
    print(
        f"library rebuild, under queries: {rebuild_s:7.2f} s = {args.files / rebuild_s:6.0f}"
        f" documents/s while serving {len(during)} back-to-back queries"
    )
    p50_idle, p50_during = statistics.median(idle), statistics.median(during)
    print(
        f"retrieve p50: idle {p50_idle:6.1f} ms, during rebuild {p50_during:6.1f} ms"
        f"  → during/idle {p50_during / p50_idle:.2f}× (target ≤ 2×)"
    )
    print(
        f"retrieve p95: idle {pct(idle, 95):6.1f} ms, during rebuild {pct(during, 95):6.1f} ms;"
        f" max during {max(during):.1f} ms"
    )


if __name__ == "__main__":
    main()
