"""Rebuild jobs in-process over real files, a migrated database and loopback HTTP servers:
settings take effect, failures keep the previous generation, citations, vectors, sync retries."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.contracts.retrieval import ReferenceRequest
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process import references
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.embeddings.remote import OpenAICompatibleProvider
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.rebuild import rebuild_document, rebuild_library
from goodbuddy_kb.main_process.storage import documents, libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.vectors import build, channel, store
from tests.servers.embedserver import Script, openai_server
from tests.servers.httpserver import Reply, serve

SECTION = (
    "## Section {n}\n\n" + "Paragraph {n} of document {d} talks about topic{d}x{n}. " * 6 + "\n\n"
)


def write_docs(folder: Path, count: int = 5) -> list[Path]:
    paths = []
    for d in range(1, count + 1):
        path = folder / f"doc{d}.md"
        body = "".join(SECTION.format(n=n, d=d) for n in range(1, 7))
        path.write_text(f"# Document {d}\n\n{body}", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def kb(pool: ConnectionPool, data_dir: Path, tmp_path: Path) -> tuple[str, Path]:
    """Five documents of six sections each, chunked in fixed mode (1,600 characters: 2 chunks
    per document); tests switch to structure mode (one chunk per section)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    write_docs(folder)
    conn = pool.get()
    library_id = libraries.create(conn, "R").id
    set_chunking(pool, library_id, mode="fixed")
    empty = rebuild_library(conn, data_dir, library_id, None, CancelToken())
    assert empty.settings_applied and empty.total == 0, "an empty library applies at once"
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    return library_id, folder


def chunk_ids(pool: ConnectionPool, path: str) -> set[str]:
    return {
        r[0]
        for r in pool.get().execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.relative_path = ?",
            (path,),
        )
    }


def doc(pool: ConnectionPool, library_id: str, path: str) -> documents.Document:
    docs, _ = documents.page(pool.get(), library_id, 0, 100, "all")
    return next(d for d in docs if d.path == path)


def fts_hit_paths(pool: ConnectionPool, library_id: str, text: str) -> set[str]:
    hits = search(pool.get(), "fts", [library_id], build_query(text), 20)
    paths = dict(pool.get().execute("SELECT id, relative_path FROM documents").fetchall())
    return {paths[h.document_id] for h in hits}


def set_chunking(pool: ConnectionPool, library_id: str, **fields: object) -> None:
    libraries.update_settings(
        pool.get(), library_id, None, KnowledgeChunkingSettings.model_validate(fields)
    )


def test_library_rebuild_applies_new_chunking_and_clears_the_flag(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, _folder = kb
    before = {f"doc{d}.md": chunk_ids(pool, f"doc{d}.md") for d in range(1, 6)}
    assert all(len(ids) == 2 for ids in before.values()), "fixed mode, 1,600 characters"
    set_chunking(pool, library_id, mode="structure")
    assert libraries.get(pool.get(), library_id).settings_pending_rebuild
    assert chunk_ids(pool, "doc1.md") == before["doc1.md"], "saving settings changes nothing"
    seen: list[tuple[int, int, str | None]] = []
    report = rebuild_library(
        pool.get(),
        data_dir,
        library_id,
        None,
        CancelToken(),
        lambda done, total, current, _f: seen.append((done, total, current)),
    )
    assert (report.succeeded, report.failed, report.settings_applied) == (5, 0, True)
    assert [s[2] for s in seen[:5]] == [f"doc{d}.md" for d in range(1, 6)], "in path order"
    assert seen[-1] == (5, 5, None)
    assert not libraries.get(pool.get(), library_id).settings_pending_rebuild
    lengths = [
        len(r[0])
        for r in pool.get().execute(
            "SELECT content FROM chunks WHERE library_id = ?", (library_id,)
        )
    ]
    assert len(lengths) >= 5 * 5 and max(lengths) <= 400 * 1.25, "boundaries follow 400 chars"
    for path, ids in before.items():
        assert chunk_ids(pool, path).isdisjoint(ids) and len(chunk_ids(pool, path)) > len(ids)
    assert fts_hit_paths(pool, library_id, "topic3x5") == {"doc3.md"}


def test_settings_put_back_need_no_rebuild_unless_chunks_were_made_meanwhile(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    """Target length 1600 → 1200 → 1600 left "waiting for rebuild" (a helper's try): the chunks
    were all made with the settings put back. Once a sync has chunked a file with the changed
    settings, putting them back does not make the library one build again."""
    library_id, folder = kb
    pending = lambda: libraries.get(pool.get(), library_id).settings_pending_rebuild  # noqa: E731
    set_chunking(pool, library_id, mode="fixed", target_characters=1200)
    assert pending()
    set_chunking(pool, library_id, mode="fixed")
    assert not pending(), "the settings every chunk was made with need no rebuild"
    set_chunking(pool, library_id, mode="fixed", target_characters=1200)
    (folder / "doc9.md").write_text("# Late\n\n" + "A late arrival. " * 200, encoding="utf-8")
    conn = pool.get()
    (source,) = sources.list_rows(conn, library_id)
    sync_source(conn, source, CancelToken())
    set_chunking(pool, library_id, mode="fixed")
    assert pending(), "doc9.md was chunked at 1,200 characters"
    report = rebuild_library(pool.get(), data_dir, library_id, None, CancelToken())
    assert report.settings_applied and not pending()
    set_chunking(pool, library_id, mode="fixed", target_characters=1200)
    set_chunking(pool, library_id, mode="fixed")
    assert not pending(), "after the rebuild, one build again"


def test_a_document_that_fails_keeps_its_previous_generation(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, folder = kb
    old3 = chunk_ids(pool, "doc3.md")
    set_chunking(pool, library_id, mode="structure")
    (folder / "doc3.md").write_bytes(bytes(range(256)) * 40)  # now a binary file
    report = rebuild_library(pool.get(), data_dir, library_id, None, CancelToken())
    assert (report.succeeded, report.failed) == (4, 1)
    assert report.first_error and "doc3.md" in report.first_error
    assert report.settings_applied is False, "doc3 still has chunks made with the old settings"
    assert chunk_ids(pool, "doc3.md") == old3
    assert fts_hit_paths(pool, library_id, "topic3x2") == {"doc3.md"}, "old chunks still found"
    d3 = doc(pool, library_id, "doc3.md")
    assert d3.status.parse == "done" and d3.status.fulltext == "done"
    assert d3.retryable_error and "binary" in d3.retryable_error
    summary = documents.summary(pool.get(), library_id)
    assert summary.failed == 1 and summary.settings_pending_rebuild
    failed, _ = documents.page(pool.get(), library_id, 0, 10, "failed")
    assert [d.path for d in failed] == ["doc3.md"]


def test_missing_file_keeps_the_document_and_sync_retries_it_when_it_returns(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path], tmp_path: Path
) -> None:
    library_id, folder = kb
    doc2 = doc(pool, library_id, "doc2.md")
    (folder / "doc2.md").rename(tmp_path / "away.md")
    outcome = rebuild_document(pool.get(), data_dir, library_id, doc2.id, None, CancelToken())
    assert not outcome.ok and outcome.kept_previous
    assert outcome.error == "the file was moved or deleted"
    assert fts_hit_paths(pool, library_id, "topic2x1") == {"doc2.md"}
    (tmp_path / "away.md").rename(folder / "doc2.md")  # back, unchanged
    source = sources.list_rows(pool.get(), library_id)[0]
    report = sync_source(pool.get(), source, CancelToken())
    assert (report.retried, report.processed, report.unchanged) == (1, 1, 4)
    assert doc(pool, library_id, "doc2.md").retryable_error is None


def test_sync_retries_a_failed_document_whose_file_did_not_change(
    pool: ConnectionPool, kb: tuple[str, Path]
) -> None:
    library_id, folder = kb
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a PDF")
    source = sources.list_rows(pool.get(), library_id)[0]
    first = sync_source(pool.get(), source, CancelToken())
    assert first.failed == 1
    second = sync_source(pool.get(), source, CancelToken())
    assert (second.retried, second.failed, second.unchanged) == (1, 1, 5)


def test_an_unchanged_empty_file_is_not_read_again_until_it_changes(
    pool: ConnectionPool, kb: tuple[str, Path]
) -> None:
    """A helper's try: an empty file was "retried" at every sync, so every sync reported a
    failure and looked degraded; the same bytes can only fail the same way."""
    library_id, folder = kb
    (folder / "empty.md").write_text("   ", encoding="utf-8")
    source = sources.list_rows(pool.get(), library_id)[0]
    first = sync_source(pool.get(), source, CancelToken())
    assert first.failed == 1
    second = sync_source(pool.get(), source, CancelToken())
    assert (second.retried, second.failed, second.unchanged) == (0, 0, 6)
    failed, _ = documents.page(pool.get(), library_id, 0, 10, "failed")
    assert [d.path for d in failed] == ["empty.md"], "still listed as failed, with its reason"
    (folder / "empty.md").write_text("# 标题\n\n正文 topicfilled", encoding="utf-8")
    third = sync_source(pool.get(), source, CancelToken())
    assert third.processed == 1 and third.failed == 0
    assert fts_hit_paths(pool, library_id, "topicfilled") == {"empty.md"}


def test_citations_to_unchanged_chunks_survive_and_removed_ones_say_so(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, folder = kb
    set_chunking(pool, library_id, mode="structure")
    rebuild_library(pool.get(), data_dir, library_id, None, CancelToken())
    d4 = doc(pool, library_id, "doc4.md")
    rows = (
        pool.get()
        .execute("SELECT id, content FROM chunks WHERE document_id = ? ORDER BY ordinal", (d4.id,))
        .fetchall()
    )
    first_id, last_id = rows[0][0], rows[-1][0]
    text = (folder / "doc4.md").read_text(encoding="utf-8")
    (folder / "doc4.md").write_text(text.replace("Paragraph 6 of", "Paragraph six of"), "utf-8")
    outcome = rebuild_document(pool.get(), data_dir, library_id, d4.id, None, CancelToken())
    assert outcome.ok

    def cite(chunk_id: str) -> bool:
        ref = ReferenceRequest(library_id=library_id, document_id=d4.id, chunk_id=chunk_id)
        return references.context(pool.get(), ref).valid

    assert cite(first_id), "an unchanged chunk keeps its id and its citation"
    assert not cite(last_id), "a changed chunk's old citation is no longer valid"
    stale = references.context(
        pool.get(), ReferenceRequest(library_id=library_id, document_id=d4.id, chunk_id=last_id)
    )
    assert stale.chunks == [] and "no longer valid" in (stale.message or "")


def test_settings_changed_mid_rebuild_stay_pending(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, _folder = kb
    set_chunking(pool, library_id, mode="structure")

    def progress(done: int, _total: int, _current: str | None, _failed: int) -> None:
        if done == 2:
            set_chunking(pool, library_id, mode="parent-child")

    report = rebuild_library(pool.get(), data_dir, library_id, None, CancelToken(), progress)
    assert report.succeeded == 5 and report.settings_applied is False
    assert libraries.get(pool.get(), library_id).settings_pending_rebuild


def test_cancel_between_documents_leaves_each_whole(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, _folder = kb
    old = {f"doc{d}.md": chunk_ids(pool, f"doc{d}.md") for d in range(1, 6)}
    set_chunking(pool, library_id, mode="structure")
    token = CancelToken()

    def progress(done: int, _total: int, _current: str | None, _failed: int) -> None:
        if done == 2:
            token.cancel()

    report = rebuild_library(pool.get(), data_dir, library_id, None, token, progress)
    assert (report.succeeded, report.not_started, report.cancelled) == (
        2,
        3,
        "cancelled by the user",
    )
    assert report.settings_applied is False
    for d in range(1, 6):
        now = chunk_ids(pool, f"doc{d}.md")
        assert (now != old[f"doc{d}.md"]) == (d <= 2)
        assert fts_hit_paths(pool, library_id, f"topic{d}x3") == {f"doc{d}.md"}


def test_vectors_of_a_rebuilt_document_are_written_with_its_chunks(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    library_id, folder = kb
    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library_id, provider, CancelToken())
    version = store.current(pool.get(), library_id)
    assert version is not None
    text = (folder / "doc5.md").read_text(encoding="utf-8")
    (folder / "doc5.md").write_text(text + "\n## Extra\n\nA brand new zebra crossing rule.\n")
    d5 = doc(pool, library_id, "doc5.md")
    assert rebuild_document(pool.get(), data_dir, library_id, d5.id, provider, CancelToken()).ok
    current = store.current(pool.get(), library_id)
    assert current is not None and current.id == version.id, "appended, no new version"
    assert store.count_missing(pool.get(), library_id, version.id) == 0
    assert doc(pool, library_id, "doc5.md").status.vector == "done"
    result = channel.search(
        pool.get(),
        data_dir,
        [library_id],
        provider,
        "A brand new zebra crossing rule.",
        3,
        CancelToken(),
    )
    assert result.degraded == [] and result.hits[0].document_id == d5.id


@pytest.mark.integration
def test_embedding_service_down_keeps_old_generations_and_stops_early(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "BACKOFF_S", (0.0, 0.0, 0.0))
    library_id, _folder = kb
    script = Script()
    with openai_server(script) as base:
        provider = OpenAICompatibleProvider(base, "embed-small", "sk-test-0000", 384, 8, 2.0)
        build.vectorise(pool.get(), data_dir, library_id, provider, CancelToken())
        old = {f"doc{d}.md": chunk_ids(pool, f"doc{d}.md") for d in range(1, 6)}
        set_chunking(pool, library_id, mode="structure")
        script.fail_after = script.calls  # the service goes down now
        seen: list[tuple[int, int, int]] = []
        report = rebuild_library(
            pool.get(),
            data_dir,
            library_id,
            provider,
            CancelToken(),
            lambda done, total, _path, failed: seen.append((done, total, failed)),
        )
    assert (report.succeeded, report.failed, report.not_started) == (0, 2, 3)
    # the bar ends on the documents it went through, the one that stopped it with them (it read
    # "2/30" beside "1 written · 2 failed · 27 not started")
    assert seen[-1] == (2, 5, 2)
    assert report.stopped and "HTTP 500" in report.stopped and "sk-" not in report.stopped
    for d in range(1, 6):
        assert chunk_ids(pool, f"doc{d}.md") == old[f"doc{d}.md"]
    version = store.current(pool.get(), library_id)
    assert version is not None and store.count_missing(pool.get(), library_id, version.id) == 0
    d1 = doc(pool, library_id, "doc1.md")
    assert d1.status.vector == "done" and "embedding failed" in (d1.retryable_error or "")


@pytest.mark.integration
def test_web_page_rebuild_refetches_and_keeps_the_page_when_the_server_fails(
    pool: ConnectionPool, data_dir: Path
) -> None:
    page = {"reply": Reply(200, b"<html><body><h1>Rules</h1><p>Old rule alpha.</p></body></html>")}
    conn = pool.get()
    library_id = libraries.create(conn, "Web").id
    with serve({"/rules": lambda _p, _b: page["reply"]}) as base:
        source = sources.add(conn, library_id, "web", f"{base}/rules", [], [], False)
        sync_source(conn, source, CancelToken())
        doc_id = documents.known(conn, source.id)[f"{base}/rules"].id
        page["reply"] = Reply(200, b"<html><body><h1>Rules</h1><p>New rule beta.</p></body></html>")
        assert rebuild_document(conn, data_dir, library_id, doc_id, None, CancelToken()).ok
        assert fts_hit_paths(pool, library_id, "beta") == {f"{base}/rules"}
        page["reply"] = Reply(500, b"down", "text/plain")
        failed = rebuild_document(conn, data_dir, library_id, doc_id, None, CancelToken())
    assert not failed.ok and failed.kept_previous and "HTTP 500" in (failed.error or "")
    assert fts_hit_paths(pool, library_id, "beta") == {f"{base}/rules"}


def test_a_full_vector_build_catches_up_with_a_rebuild_running_beside_it(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    """Rebuilds and vectorisation run in different lanes: chunks a rebuild replaces while a new
    vector version is built are embedded before that version is validated and swapped in."""
    library_id, _folder = kb
    provider = DeterministicProvider()
    build.vectorise(pool.get(), data_dir, library_id, provider, CancelToken())
    set_chunking(pool, library_id, mode="structure")
    d1 = doc(pool, library_id, "doc1.md")
    calls: list[int] = []

    def meanwhile(done: int, _total: int, _failed: int) -> None:
        if not calls:  # after the first batch: a rebuild replaces doc1's chunks
            assert rebuild_document(
                pool.get(), data_dir, library_id, d1.id, provider, CancelToken()
            ).ok
        calls.append(done)

    report = build.vectorise(
        pool.get(), data_dir, library_id, provider, CancelToken(), meanwhile, rebuild=True
    )
    assert report.error is None
    current = store.current(pool.get(), library_id)
    assert current is not None and store.count_missing(pool.get(), library_id, current.id) == 0
    (dangling,) = (
        pool.get()
        .execute(
            "SELECT count(*) FROM vector_rows WHERE alive = 1 AND chunk_seq NOT IN"
            " (SELECT seq FROM chunks)"
        )
        .fetchone()
    )
    assert dangling == 0
    assert len(chunk_ids(pool, "doc1.md")) == 6


def test_a_rebuild_that_only_adds_the_contextual_prefix_leaves_citations_unchanged(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path]
) -> None:
    """Contextual indexing turned on and the library rebuilt: every passage keeps its text, and
    its citation says so; the prefix changed its checksum, and every older citation said its
    passage was edited after the answer (a helper's try). An edit since still says so."""
    library_id, _folder = kb
    d2 = doc(pool, library_id, "doc2.md")
    chunk_id, content, kept = (
        pool.get()
        .execute("SELECT id, content, checksum FROM chunks WHERE document_id = ?", (d2.id,))
        .fetchone()
    )
    ref = ReferenceRequest(
        library_id=library_id, document_id=d2.id, chunk_id=chunk_id, checksum=kept
    )
    libraries.update_settings(pool.get(), library_id, None, None, contextual_indexing=True)
    rebuild_library(pool.get(), data_dir, library_id, None, CancelToken())
    (now,) = pool.get().execute("SELECT checksum FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    assert now != kept, "the prefix is in the index text"
    after = references.context(pool.get(), ref)
    assert after.valid and not after.changed
    # and back off again: the citation kept with the prefix is of the same text too
    with_prefix = ref.model_copy(update={"checksum": now})
    libraries.update_settings(pool.get(), library_id, None, None, contextual_indexing=False)
    rebuild_library(pool.get(), data_dir, library_id, None, CancelToken())
    back = references.context(pool.get(), with_prefix)
    assert back.valid and not back.changed
    pool.get().execute(
        "UPDATE chunks SET content = ?, index_text = ?, checksum = 'x' WHERE id = ?",
        (content + " Edited.", content + " Edited.", chunk_id),
    )
    assert references.context(pool.get(), ref).changed, "an edit since is said"
