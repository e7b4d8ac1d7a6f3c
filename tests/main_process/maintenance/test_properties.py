"""Property test: after any sequence of chunk edits, disables, enables, deletes and re-syncs,
the full-text, CJK and vector tables hold exactly the enabled, non-parent chunks' current index
text — no orphans, no stale rows — and SQLite's and FTS5's integrity checks pass."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.lexical.tokens import cjk_index_text, fts_index_text
from goodbuddy_kb.main_process.maintenance import (
    delete_chunk,
    follow_up,
    update_chunk,
    vectorise_document,
)
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.vectors.build import vectorise

SECTIONS = 4
VARIANTS = [
    "Section {n} variant {v}: the travel rule topic{n}v{v} covers lodging and meals in detail. "
    "出差住宿第{n}条第{v}款规定每晚标准和报销流程。" * 3,
]
EDITS = st.sampled_from(
    ["Edited walrus text 海象规则。", "Another edit: narwhal 独角鲸。", "Short.", "海象 walrus"]
)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("edit"), st.integers(0, 50), EDITS),
        st.tuples(st.just("disable"), st.integers(0, 50), st.none()),
        st.tuples(st.just("enable"), st.integers(0, 50), st.none()),
        st.tuples(st.just("delete"), st.integers(0, 50), st.none()),
        st.tuples(st.just("sync"), st.integers(0, SECTIONS - 1), st.integers(0, 2)),
        st.tuples(st.just("vectorise"), st.none(), st.none()),
    ),
    max_size=14,
)


def write(folder: Path, variants: list[int]) -> None:
    body = "".join(
        f"## Part {n}\n\n" + VARIANTS[0].format(n=n, v=v) + "\n\n" for n, v in enumerate(variants)
    )
    (folder / "doc.md").write_text(f"# Travel\n\n{body}", encoding="utf-8")


def expected(pool: ConnectionPool) -> dict[int, str]:
    return dict(
        pool.get()
        .execute("SELECT seq, index_text FROM chunks WHERE enabled = 1 AND role != 'parent'")
        .fetchall()
    )


def check(pool: ConnectionPool, vectors_complete: bool) -> None:
    conn = pool.get()
    want = expected(pool)
    fts = dict(conn.execute("SELECT rowid, text FROM chunks_fts").fetchall())
    cjk = dict(conn.execute("SELECT rowid, text FROM chunks_cjk").fetchall())
    assert fts == {seq: fts_index_text(text) for seq, text in want.items()}
    assert cjk == {seq: cjk_index_text(text) for seq, text in want.items()}
    live = {
        (r[0], r[1])
        for r in conn.execute("SELECT chunk_seq, checksum FROM vector_rows WHERE alive = 1")
    }
    current = {
        (r[0], r[1])
        for r in conn.execute(
            "SELECT seq, checksum FROM chunks WHERE enabled = 1 AND role != 'parent'"
        )
    }
    assert live <= current, "no live vector of a deleted, disabled, parent or stale chunk"
    if vectors_complete:
        assert live == current
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
    conn.execute("INSERT INTO chunks_cjk (chunks_cjk) VALUES ('integrity-check')")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mode=st.sampled_from(["structure", "parent-child"]), ops=OPS)
def test_indexes_hold_exactly_the_enabled_retrievable_chunks(
    mode: str, ops: list[tuple[str, object, object]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data_dir, folder = root / "data", root / "docs"
        data_dir.mkdir(mode=0o700)
        folder.mkdir()
        pool = open_database(data_dir)
        try:
            run(pool, data_dir, folder, mode, ops)
        finally:
            pool.close_all()


def run(
    pool: ConnectionPool,
    data_dir: Path,
    folder: Path,
    mode: str,
    ops: list[tuple[str, object, object]],
) -> None:
    conn = pool.get()
    provider = DeterministicProvider(32)
    library_id = libraries.create(conn, "P").id
    libraries.update_settings(
        conn,
        library_id,
        None,
        KnowledgeChunkingSettings(
            mode=mode,  # type: ignore[arg-type]
            target_characters=400,
            overlap_characters=0,
            parent_characters=1600,
            child_characters=300,
        ),
    )
    variants = [0] * SECTIONS
    write(folder, variants)
    source = sources.add(conn, library_id, "folder", str(folder), [], [], False)
    sync_source(conn, source, CancelToken())
    vectorise(conn, data_dir, library_id, provider, CancelToken())
    (document_id,) = conn.execute("SELECT id FROM documents").fetchone()
    check(pool, vectors_complete=True)
    for op, a, b in ops:
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY seq")]
        if op == "sync":
            assert isinstance(a, int) and isinstance(b, int)
            variants[a] = b
            write(folder, variants)
            sync_source(conn, sources.get(conn, library_id, source.id), CancelToken())
        elif op == "vectorise":
            vectorise_document(conn, data_dir, library_id, document_id, provider, CancelToken())
        elif ids:
            assert isinstance(a, int)
            chunk_id = ids[a % len(ids)]
            if op == "delete":
                delete_chunk(conn, library_id, document_id, chunk_id)
            else:
                content = b if op == "edit" else None
                enabled = None if op == "edit" else op == "enable"
                assert content is None or isinstance(content, str)
                update_chunk(conn, library_id, document_id, chunk_id, content, enabled)
            follow_up(conn, library_id, document_id, provider)
        check(pool, vectors_complete=False)
    vectorise_document(conn, data_dir, library_id, document_id, provider, CancelToken())
    check(pool, vectors_complete=True)
    status = conn.execute(
        "SELECT fulltext_status, vector_status FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    retrievable = bool(expected(pool))
    assert (status[0] == "done") == retrievable, "never 'done' without retrievable content"
    assert status[1] == "done"
