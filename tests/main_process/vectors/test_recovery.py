"""Recovery after a crash mid-build, and vector statuses derived from what serves (issue 19)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import Matrix
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.vectors import build, store

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "chunking"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "BACKOFF_S", (0.0, 0.0, 0.0))


def make_library(pool: ConnectionPool, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("policy_zh.md", "manual_en.md"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    conn = pool.get()
    library_id = libraries.create(conn, "R").id
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    return library_id


def statuses(pool: ConnectionPool) -> dict[str, str]:
    rows = pool.get().execute("SELECT relative_path, vector_status FROM documents")
    return dict(rows.fetchall())


CRASH = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from goodbuddy_kb.main_process.app import open_database
    from goodbuddy_kb.main_process.cancel import CancelToken
    from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
    from goodbuddy_kb.main_process.vectors import build

    class DiesMidBuild(DeterministicProvider):
        batch_size = 2
        calls = 0
        def embed_passages(self, texts):
            DiesMidBuild.calls += 1
            if DiesMidBuild.calls == 2:
                os._exit(9)  # like kill -9: no cleanup of any kind
            return super().embed_passages(texts)

    data_dir = Path(sys.argv[1])
    pool = open_database(data_dir)
    build.vectorise(pool.get(), data_dir, sys.argv[2], DiesMidBuild(), CancelToken())
    """
)


@pytest.mark.integration
def test_a_first_build_killed_midway_is_recovered_at_start(data_dir: Path, tmp_path: Path) -> None:
    pool = open_database(data_dir)
    library_id = make_library(pool, tmp_path)
    pool.close_all()
    died = subprocess.run(
        [sys.executable, "-c", CRASH, str(data_dir), library_id],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert died.returncode == 9, died.stderr.decode()
    pool = open_database(data_dir)
    conn = pool.get()
    building = conn.execute("SELECT id FROM vector_versions WHERE state = 'building'").fetchall()
    assert len(building) == 1 and store.path_of(data_dir, building[0][0]).exists()
    assert set(statuses(pool).values()) == {"running"}

    services = Services.start(pool, data_dir, lambda _m, _p: None)  # a restart
    try:
        left = conn.execute("SELECT state, error FROM vector_versions").fetchall()
        assert [r[0] for r in left] == ["failed"] and "interrupted" in left[0][1]
        assert not store.path_of(data_dir, building[0][0]).exists()
        assert set(statuses(pool).values()) == {"pending"}
    finally:
        services.stop()
        pool.close_all()


class FailsEveryBatch(DeterministicProvider):
    """The same fingerprint as the deterministic provider, but the service is down."""

    def embed_passages(self, texts: list[str]) -> Matrix:
        raise UnavailableError("the embedding service cannot be reached (ConnectError)")


def test_documents_still_served_are_not_called_failed_after_a_failed_rebuild(
    pool: ConnectionPool, data_dir: Path, tmp_path: Path
) -> None:
    library_id = make_library(pool, tmp_path)
    build.vectorise(pool.get(), data_dir, library_id, DeterministicProvider(), CancelToken())
    assert set(statuses(pool).values()) == {"done"}
    report = build.vectorise(
        pool.get(), data_dir, library_id, FailsEveryBatch(), CancelToken(), rebuild=True
    )
    assert report.error and not report.failed_documents, "the build failed as a whole"
    assert store.current(pool.get(), library_id) is not None, "the old version keeps serving"
    assert set(statuses(pool).values()) == {"done"}
