"""Vector indexes end to end in-process: providers over loopback HTTP, versions, degradation."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.credentials import CredentialStore
from goodbuddy_kb.main_process.embeddings import make_provider
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.embeddings.remote import OllamaProvider, OpenAICompatibleProvider
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.vectors import build, channel, store
from tests.servers.embedserver import Script, ollama_server, openai_server


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "BACKOFF_S", (0.0, 0.0, 0.0))


def provider_for(
    base: str, model: str = "embed-small", dims: int | None = 384
) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(base, model, "sk-test-secret-key-000", dims, 8, 2.0)


def ask(
    pool: ConnectionPool,
    data_dir: Path,
    library: str,
    provider: EmbeddingProvider | None,
    text: str,
) -> channel.VectorResult:
    return channel.search(pool.get(), data_dir, [library], provider, text, 6, CancelToken())


def doc_statuses(pool: ConnectionPool, library: str) -> set[str]:
    return {
        r[0]
        for r in pool.get().execute(
            "SELECT vector_status FROM documents WHERE library_id = ?", (library,)
        )
    }


@pytest.mark.integration
def test_build_then_query_over_openai_compatible(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    with openai_server(Script()) as base:
        provider = provider_for(base)
        report = build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
        assert report.full and report.error is None and report.embedded > 0
        assert doc_statuses(pool, library) == {"done"}
        result = ask(pool, data_dir, library, provider, "出差住宿标准")
    assert result.degraded == [] and len(result.hits) == 6
    assert result.scanned == report.embedded
    assert all(0 <= h.similarity <= 1.0001 for h in result.hits)


@pytest.mark.integration
def test_endpoint_switch_under_the_same_model_name_never_uses_old_vectors(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    with openai_server(Script()) as first, openai_server(Script(seed_offset=7)) as second:
        old, new = provider_for(first), provider_for(second)
        assert old.model == new.model and old.fingerprint != new.fingerprint
        build.vectorise(pool.get(), data_dir, library, old, CancelToken())
        switched = ask(pool, data_dir, library, new, "报销")
        assert switched.hits == [] and switched.scanned == 0
        assert "another model or endpoint" in switched.degraded[0]
        build.refresh_status(pool.get(), library, new.fingerprint)
        assert doc_statuses(pool, library) == {"incompatible"}
        build.vectorise(pool.get(), data_dir, library, new, CancelToken(), rebuild=True)
        after = ask(pool, data_dir, library, new, "报销")
    assert after.degraded == [] and after.hits
    assert doc_statuses(pool, library) == {"done"}


@pytest.mark.integration
def test_failure_at_sixty_percent_keeps_the_previous_version_serving(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    good = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library, good, CancelToken())
    before = store.current(pool.get(), library)
    assert before is not None
    total = store.count_missing(pool.get(), library, None)
    batches = -(-total // 8)
    with openai_server(Script(fail_after=int(batches * 0.6))) as base:
        report = build.vectorise(pool.get(), data_dir, library, provider_for(base), CancelToken())
    assert report.full and report.error and "HTTP 500" in report.error
    assert "sk-should-never-leak" not in report.error
    assert store.current(pool.get(), library) == before, "the previous version still serves"
    assert store.last_failure(pool.get(), library) == report.error
    result = ask(pool, data_dir, library, good, "年假")
    assert result.hits and result.degraded == []
    leftover = (
        pool.get()
        .execute("SELECT count(*) FROM vector_versions WHERE state = 'building'")
        .fetchone()[0]
    )
    assert leftover == 0


@pytest.mark.integration
@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        ("500", "HTTP 500"),
        ("garbage", "malformed JSON"),
        ("dims", "dimensional"),
        ("stall", "in time"),
    ],
)
def test_incremental_failures_mark_documents_failed_and_keep_the_rest(
    pool: ConnectionPool, data_dir: Path, library: str, failure: str, reason: str, tmp_path: Path
) -> None:
    script = Script(failure=failure)
    with openai_server(script) as base:
        provider = provider_for(base)
        build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
        folder = tmp_path / "more"
        folder.mkdir()
        (folder / "new.md").write_text("# 新文件\n\n新增的考勤补充说明。\n", encoding="utf-8")
        conn = pool.get()
        sync_source(
            conn, sources.add(conn, library, "folder", str(folder), [], [], False), CancelToken()
        )
        script.fail_after = script.calls  # the service breaks now
        report = build.vectorise(conn, data_dir, library, provider, CancelToken())
        assert not report.full, "same provider: an incremental update"
        assert report.error and reason in report.error
        statuses = dict(
            conn.execute("SELECT relative_path, vector_status FROM documents").fetchall()
        )
        assert statuses == {"policy_zh.md": "done", "manual_en.md": "done", "new.md": "failed"}
        script.fail_after = None
        assert ask(pool, data_dir, library, provider, "考勤").hits, "the rest stays usable"


def test_partial_vectors_degrade_but_still_answer(
    pool: ConnectionPool, data_dir: Path, library: str, tmp_path: Path
) -> None:
    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
    folder = tmp_path / "extra"
    folder.mkdir()
    (folder / "x.md").write_text("# X\n\n额外的文档内容。\n", encoding="utf-8")
    conn = pool.get()
    sync_source(
        conn, sources.add(conn, library, "folder", str(folder), [], [], False), CancelToken()
    )
    result = ask(pool, data_dir, library, provider, "额外的文档")
    assert result.hits and any("no vector yet" in d for d in result.degraded)
    build.vectorise(conn, data_dir, library, provider, CancelToken())
    assert ask(pool, data_dir, library, provider, "额外的文档").degraded == []


def test_no_provider_and_no_index_are_explained(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    assert "no embedding model" in ask(pool, data_dir, library, None, "x").degraded[0]
    assert (
        "no vector index yet"
        in ask(pool, data_dir, library, DeterministicProvider(), "x").degraded[0]
    )


@pytest.mark.integration
def test_query_embedding_failure_degrades(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    script = Script()
    with openai_server(script) as base:
        provider = provider_for(base)
        build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
        script.fail_after = script.calls
        result = ask(pool, data_dir, library, provider, "年假")
    assert result.hits == [] and "could not be embedded" in result.degraded[0]


def test_server_down_is_unavailable(pool: ConnectionPool) -> None:
    provider = provider_for("http://127.0.0.1:9/v1")
    with pytest.raises(UnavailableError, match="cannot be reached"):
        provider.embed_passages(["x"])


def test_edits_and_disables_kill_their_vectors(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    from goodbuddy_kb.main_process.storage import chunks

    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
    top = ask(pool, data_dir, library, provider, "婚假三天").hits[0]
    chunks.set_enabled(pool.get(), top.chunk_id, False)
    assert top.chunk_id not in [
        h.chunk_id for h in ask(pool, data_dir, library, provider, "婚假三天").hits
    ]
    assert doc_statuses(pool, library) == {"done"}
    build.refresh_status(pool.get(), library, provider.fingerprint)
    assert doc_statuses(pool, library) == {"done"}, "a disabled chunk needs no vector"


@pytest.mark.integration
def test_ollama_provider(pool: ConnectionPool, data_dir: Path, library: str) -> None:
    with ollama_server(Script()) as base:
        provider = OllamaProvider(base, "bge-m3", None, None, 16, 2.0)
        assert provider.dimensions == 384
        build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
        assert ask(pool, data_dir, library, provider, "差旅").hits


def test_keys_are_encrypted_at_rest_and_used_only_in_headers(data_dir: Path) -> None:
    store_ = CredentialStore(data_dir, use_keyring=False)
    store_.set("embedding-api-key", "sk-live-abcdef123456")
    assert store_.get("embedding-api-key") == "sk-live-abcdef123456"
    raw = (data_dir / "credentials.enc").read_bytes()
    assert b"sk-live" not in raw
    store_.set("embedding-api-key", None)
    assert store_.get("embedding-api-key") is None
    connection = EmbeddingConnection(kind="none")
    assert make_provider(connection, store_) is None


@pytest.mark.slow
def test_bundled_local_model_embeds_chinese_and_english(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    provider = make_provider(
        EmbeddingConnection(kind="local"), CredentialStore(data_dir, use_keyring=False)
    )
    assert provider is not None and provider.dimensions == 384
    q = provider.embed_query("员工请假要提前多久申请？")
    p = provider.embed_passages(["年假应至少提前五个工作日申请。", "The gateway terminates TLS."])
    assert float(p[0] @ q) > float(p[1] @ q)


def test_vectors_scanned_counts_the_live_vectors_not_dead_rows(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    """ "N vectors scanned" is what the search compared the question with: a chunk switched off
    leaves its row behind, dead and skipped, and it is not counted."""
    provider = DeterministicProvider()
    report = build.vectorise(pool.get(), data_dir, library, provider, CancelToken())
    assert ask(pool, data_dir, library, provider, "报销").scanned == report.embedded
    conn = pool.get()
    (seq,) = conn.execute(
        "SELECT seq FROM chunks WHERE library_id = ? AND role != 'parent' LIMIT 1", (library,)
    ).fetchone()
    conn.execute("UPDATE chunks SET enabled = 0 WHERE seq = ?", (seq,))
    conn.commit()
    after = ask(pool, data_dir, library, provider, "报销")
    assert after.scanned == report.embedded - 1
    assert all(h.seq != seq for h in after.hits)
