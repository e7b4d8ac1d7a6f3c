"""`knowledge:retrieve` over the real socket: cancellation, a real round trip, an unreachable or
failing embedding service degrading only the vector channel, and each library's own settings in
a multi-library request."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.methods import (
    CHAT_SEND,
    CONVERSATION_CREATE,
    EMBEDDING_UPDATE,
    RERANK_UPDATE,
    RETRIEVE,
    SETTINGS_UPDATE,
    SOURCE_SYNC,
    SYSTEM_CANCEL,
    VECTORS_STATUS,
)
from goodbuddy_kb.contracts.models import RerankConnection, RerankUpdateRequest
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.contracts.wire import encode_frame, request_message
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.retrieval.pipeline import Retriever
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import store
from tests.bridge.helpers import library_with, unreachable_embedding, wait_idle
from tests.servers.embedserver import openai_server_process
from tests.servers.httpserver import Reply, serve

pytestmark = pytest.mark.integration


def seed(data_dir: Path, chunks: int) -> str:
    """A library of ``chunks`` chunks with a ready deterministic-provider vector index."""
    pool = open_database(data_dir)
    conn = pool.get()
    library_id = libraries.create(conn, "Big").id
    provider = DeterministicProvider()
    t = "2026-01-01"
    rng = np.random.default_rng(3)
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at) VALUES (?, ?, 'folder', '/nowhere', ?, ?)",
            ("a" * 32, library_id, t, t),
        )
        conn.execute(
            "INSERT INTO documents (id, library_id, source_id, relative_path, title, parse_status, fulltext_status, created_at, updated_at) VALUES (?, ?, ?, 'big.md', 'Big', 'done', 'done', ?, ?)",
            ("b" * 32, library_id, "a" * 32, t, t),
        )
        conn.executemany(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    uuid.UUID(int=i).hex,
                    library_id,
                    "b" * 32,
                    i,
                    f"条目 {i} 报销",
                    f"条目 {i} 报销",
                    "h",
                    t,
                    t,
                )
                for i in range(chunks)
            ],
        )
        conn.execute(
            "INSERT INTO chunks_fts (rowid, text) SELECT seq, kb_fts_text(index_text) FROM chunks"
        )
        conn.execute(
            "INSERT INTO chunks_cjk (rowid, text) SELECT seq, kb_cjk_text(index_text) FROM chunks"
        )
    version = store.create(conn, data_dir, library_id, provider.fingerprint, provider.label, 384)
    matrix = rng.standard_normal((chunks, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    seqs = [row[0] for row in conn.execute("SELECT seq FROM chunks ORDER BY seq")]
    store.append(conn, data_dir, version, [(s, "h") for s in seqs], matrix)
    store.promote(conn, data_dir, store.get(conn, version.id))
    pool.close_all()
    return library_id


class CountingToken(CancelToken):
    """Cancels itself at the Nth check: deterministically "during" the scan."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at, self.checks, self.cancelled_at = at, 0, 0.0

    def check(self) -> None:
        self.checks += 1
        if self.checks == self.at:
            self.cancelled_at = time.perf_counter()
            self.cancel()
        super().check()


@pytest.mark.slow
def test_cancel_during_a_100k_chunk_scan_returns_quickly(data_dir: Path) -> None:
    library_id = seed(data_dir, 100_000)
    pool = open_database(data_dir)
    retriever = Retriever(pool.get(), data_dir, DeterministicProvider, lambda: None)
    token = CountingToken(at=5)  # after four of the scan's 13 pages
    with pytest.raises(CancelledError):
        retriever.run(
            r.RetrieveRequest(library_ids=[library_id], query="报销", channels=["vector"]), token
        )
    assert time.perf_counter() - token.cancelled_at < 0.2
    full = retriever.run(
        r.RetrieveRequest(library_ids=[library_id], query="报销", channels=["vector"]),
        CancelToken(),
    )
    assert full.diagnostics.vector_scanned == 100_000 and len(full.results) == 6
    pool.close_all()


def test_cancel_over_the_socket_ends_a_request_within_200ms(data_dir: Path) -> None:
    library_id = seed(data_dir, 2_000)
    backend = BackendProcess.start(data_dir)
    try:
        with (
            serve({"/v1/rerank": Reply(200, b"{}", "application/json", delay_s=5.0)}) as base,
            BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as asker,
            BlockingClient(
                backend.endpoint.server_name, backend.endpoint.secret
            ).open() as canceller,
        ):
            canceller.call(
                RERANK_UPDATE,
                RerankUpdateRequest(connection=RerankConnection(base_url=base, model="slow")),
            )
            request_id = uuid.uuid4().hex
            params = r.RetrieveRequest(
                library_ids=[library_id], query="报销", rerank="learned", request_id=request_id
            ).to_wire()
            asker.send_raw(encode_frame(request_message(77, RETRIEVE.name, params)))
            time.sleep(0.5)  # the request now waits on the slow rerank service
            started = time.perf_counter()
            assert canceller.call(SYSTEM_CANCEL, r.CancelRequest(request_id=request_id)).cancelled
            reply = asker.read_message(timeout=5)
            while reply.get("id") != 77:
                reply = asker.read_message(timeout=5)
            elapsed = time.perf_counter() - started
        assert reply["error"]["data"]["code"] == "cancelled", reply
        assert elapsed < 0.2
    finally:
        backend.stop()


def test_unreachable_embedding_service_degrades_only_the_vector_channel(
    live: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
    unreachable_embedding(live)
    res = live.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="出差住宿标准"))
    assert res.results and "600" in res.results[0].snippet
    assert set(res.diagnostics.used_channels) >= {"cjk"}
    vector = [d for d in res.diagnostics.degraded_channels if d.channel == "vector"]
    assert vector and "rebuild" in vector[0].reason
    # the index status answers too, instead of failing on the dead endpoint
    status = live.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
    assert not status.compatible and status.reason
    # the chat's "always" mode answers from the full-text evidence and says it was degraded
    conversation = live.call(CONVERSATION_CREATE, ch.ConversationCreateRequest())
    sent = live.call(
        CHAT_SEND,
        ch.SendRequest(
            conversation_id=conversation.id,
            text="出差住宿标准是多少",
            library_ids=[library_id],
            mode="always",
        ),
    ).assistant_message
    assert sent.retrieval is not None and sent.retrieval.status == "degraded"
    assert sent.citations and "600" in sent.content


def test_embedding_service_going_down_keeps_full_text_serving(
    live: BlockingClient, tmp_path: Path
) -> None:
    with openai_server_process() as base:
        live.call(
            EMBEDDING_UPDATE,
            m.EmbeddingUpdateRequest(
                connection=m.EmbeddingConnection(
                    kind="openai-compatible", base_url=base, model="e", dimensions=384, timeout_s=2
                )
            ),
        )
        library_id = library_with(live, tmp_path / "kb")
        served = live.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="住宿"))
        assert "vector" in served.diagnostics.used_channels, served.diagnostics.degraded_channels
    # the server is gone now
    res = live.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="出差住宿标准"))
    assert res.results and "600" in res.results[0].snippet
    vector = [d for d in res.diagnostics.degraded_channels if d.channel == "vector"]
    assert vector and "cannot be reached" in vector[0].reason
    status = live.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
    assert status.compatible and status.vectors == status.retrievable_chunks


def test_degraded_search_with_no_match_is_not_reported_as_empty(
    live: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
    unreachable_embedding(live)
    conversation = live.call(CONVERSATION_CREATE, ch.ConversationCreateRequest())
    sent = live.call(
        CHAT_SEND,
        ch.SendRequest(
            conversation_id=conversation.id,
            text="zzqx unmatched words",
            library_ids=[library_id],
            mode="always",
        ),
    ).assistant_message
    assert sent.retrieval is not None and sent.retrieval.status == "degraded"
    assert sent.retrieval.reason and "vector" in sent.retrieval.reason


def test_each_library_keeps_its_own_settings_in_a_multi_library_request(
    live: BlockingClient, tmp_path: Path
) -> None:
    first = library_with(live, tmp_path / "a", name="A")
    second = library_with(live, tmp_path / "b", name="B")
    folder = tmp_path / "b"
    for i in range(12):
        (folder / f"extra{i}.md").write_text(f"# 住宿 {i}\n\n出差住宿补充说明 {i}。\n", "utf-8")
    live.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=second))
    wait_idle(live)
    live.call(
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(
            library_id=first,
            retrieval=KnowledgeRetrievalSettings(top_k=2, fts_weight=0.0, vector_weight=1.0),
        ),
    )
    live.call(
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(
            library_id=second, retrieval=KnowledgeRetrievalSettings(top_k=10, vector_weight=0.0)
        ),
    )
    # the RRF fusion states each library's weights in its formula; the adaptive fusion applies
    # them the same way (tests/main_process/retrieval/test_fusion_rerank_context.py)
    res = live.call(
        RETRIEVE,
        r.RetrieveRequest(library_ids=[first, second], query="出差住宿标准", fusion="rrf"),
    )
    shown = len(res.results) + len(res.below_floor)
    assert res.settings.top_k == 10 and shown == 10, "the largest top K applies"
    for hit in res.results:
        ranks = hit.channel_ranks
        if hit.library_id == first:
            # library A searches by vectors only: its full-text ranks add nothing
            assert hit.rrf_score == pytest.approx(1.0 / (60 + ranks["vector"]))
        else:
            # library B has no vector weight: a Chinese query's full-text weight is all cjk
            assert hit.rrf_score == pytest.approx(1.0 / (60 + ranks["cjk"]))
    assert any(h.library_id == first for h in res.results)
