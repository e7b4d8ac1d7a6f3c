"""A search writes nothing: its diagnostics event waits in memory and is written with the others
— before the record is shown or exported, so nothing a person looks at is missing, and at a
clean shutdown, so nothing is lost. Real backend, real socket, the database file read beside it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import diagnostics as d
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT, DIAGNOSTICS_SUMMARY, RETRIEVE
from goodbuddy_kb.datadir import DATABASE_FILE
from tests.bridge.helpers import library_with, wait_idle

pytestmark = pytest.mark.integration


def stored_searches(data_dir: Path) -> int:
    """Search events in the database file itself (what survives the process)."""
    conn = sqlite3.connect(f"file:{data_dir / DATABASE_FILE}?mode=ro", uri=True)
    try:
        (n,) = conn.execute(
            "SELECT count(*) FROM diagnostic_events WHERE kind = 'retrieve'"
        ).fetchone()
        return int(n)
    finally:
        conn.close()


def database_files(data_dir: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of the database and its write-ahead log (the shared-memory
    index is left out: readers mark their place in it)."""
    paths = [data_dir / DATABASE_FILE, data_dir / f"{DATABASE_FILE}-wal"]
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in paths if p.exists()}


def search(client: BlockingClient, library_id: str, times: int) -> None:
    for _ in range(times):
        request = r.RetrieveRequest(library_ids=[library_id], query="出差住宿标准")
        client.call(RETRIEVE, request)


@pytest.fixture
def library_id(client: BlockingClient, tmp_path: Path) -> str:
    library_id = library_with(client, tmp_path / "rules")
    wait_idle(client)
    return library_id


def test_searches_write_nothing_until_the_record_is_read_and_none_is_lost(
    backend: BackendProcess, client: BlockingClient, library_id: str, data_dir: Path, tmp_path: Path
) -> None:
    client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=0))  # the import's
    before, files = stored_searches(data_dir), database_files(data_dir)
    search(client, library_id, 3)
    assert stored_searches(data_dir) == before, "a search wrote its diagnostics row at once"
    assert database_files(data_dir) == files, "a search wrote to the database"
    # Shown: every search is there, written first.
    summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=10))
    assert {t.kind: t.count for t in summary.totals}["retrieve"] == before + 3
    assert [e.kind for e in summary.recent[:3]] == ["retrieve"] * 3
    assert stored_searches(data_dir) == before + 3
    # Exported: the searches still in memory are in the bundle.
    search(client, library_id, 2)
    target = tmp_path / "bundle.json"
    client.call(DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target)))
    bundle = json.loads(target.read_text(encoding="utf-8"))
    kinds = [e["kind"] for e in bundle["diagnostics"]["events"]]
    assert kinds.count("retrieve") == before + 5
    assert bundle["diagnostics"]["summary"]["events"] == len(kinds)
    # A clean shutdown writes what waits.
    search(client, library_id, 4)
    client.close()
    assert backend.stop() == 0
    assert stored_searches(data_dir) == before + 9
