"""The diagnostics record and its export over the real socket and the real CLI (PRD §13).

Markers are planted where a careless export would pick them up — a query, a document's text, the
folder's path, an API key, a password inside a rerank URL and a web source's URL — and none of
them may appear in the exported bundle."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import diagnostics as d
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import window as w
from goodbuddy_kb.contracts.methods import (
    DIAGNOSTICS_EXPORT,
    DIAGNOSTICS_SUMMARY,
    LIBRARY_CREATE,
    RERANK_UPDATE,
    RETRIEVE,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    WINDOW_STATE_UPDATE,
)
from tests.cli.runner import run
from tests.servers.httpserver import Reply, serve

pytestmark = pytest.mark.integration

QUERY = "querymarkerqq 报销"
DOC = "docmarkerdd"
PATH = "pathmarkerpp"
KEY = "sk-keymarkerkk0123456789"
PASSWORD = "passmarkerww"
WEB_PASSWORD = "webpassmarkerzz"
DRAFT = "draftmarkerdr 还没发出的问题"
INSTRUCTIONS = "instructionsmarkerii 用中文回答"
MARKERS = (
    "querymarkerqq",
    DOC,
    PATH,
    "keymarkerkk",
    PASSWORD,
    WEB_PASSWORD,
    "draftmarkerdr",
    "instructionsmarkerii",
)


def wait_quiet(client: BlockingClient, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=0))
        kinds = {t.kind: t.count for t in summary.totals}
        if kinds.get("sync", 0) >= 2 and kinds.get("vectorize", 0) >= 1:
            return
        time.sleep(0.2)


@pytest.fixture
def planted(backend: BackendProcess, client: BlockingClient, tmp_path: Path) -> dict[str, Any]:
    folder = tmp_path / PATH
    folder.mkdir()
    (folder / "policy.md").write_text(
        f"# 报销\n\n报销流程需要主管审批 {DOC}。\n\n差旅报销要附发票。\n", encoding="utf-8"
    )
    lib = client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="Diag")).library
    # the assistant's instructions are a person's own words too
    client.call(
        SETTINGS_UPDATE,
        c.SettingsUpdateRequest(library_id=lib.id, assistant_instructions=INSTRUCTIONS),
    )
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=lib.id, kind="folder", location=str(folder), watch=False),
    )
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(
            library_id=lib.id,
            kind="web",
            location=f"http://someone:{WEB_PASSWORD}@127.0.0.1:9/page",
            watch=False,
        ),
    )
    wait_quiet(client)
    with serve({"/v1/rerank": Reply(500, b"boom", "text/plain")}) as base:
        host = base.removeprefix("http://")
        client.call(
            RERANK_UPDATE,
            m.RerankUpdateRequest(
                # (an address holding credentials is refused now: contracts.check_service_url;
                # the web source's address still carries some into the record)
                connection=m.RerankConnection(base_url=f"http://{host}", model="rr", timeout_s=2.0),
                api_key=KEY,
            ),
        )
        plain = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[lib.id], query=QUERY))
        learned = client.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[lib.id], query=QUERY, rerank="learned")
        )
    assert plain.results and learned.diagnostics.rerank.applied == "local"
    # the window keeps the chat's unsent question: a person's words, like the query
    state = w.WindowState(library_id=lib.id, area="chat", draft=DRAFT)
    client.call(WINDOW_STATE_UPDATE, w.WindowStateUpdateRequest(state=state))
    return {"library": lib.id, "plain": plain, "learned": learned}


def test_the_record_holds_counts_and_times_of_each_kind_of_work(
    planted: dict[str, Any], client: BlockingClient
) -> None:
    summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=20))
    kinds = {t.kind: t for t in summary.totals}
    assert kinds["retrieve"].count == 2 and kinds["retrieve"].degraded >= 1
    assert kinds["sync"].count == 2 and kinds["sync"].failed + kinds["sync"].degraded >= 1
    retrieval = next(e for e in summary.recent if e.kind == "retrieve")
    assert retrieval.details["libraries"] == 1
    assert retrieval.details["results"] == len(planted["learned"].results)
    assert retrieval.details["contextCharacters"] == planted["learned"].context.character_count
    assert set(retrieval.details["candidates"]) >= {"fts", "cjk"}
    assert retrieval.details["rerank"]["applied"] == "local"
    assert retrieval.details["rerank"]["fallback"]
    assert "querymarkerqq" not in json.dumps(summary.to_wire())


def test_the_export_holds_no_query_document_key_path_or_url_credentials(
    planted: dict[str, Any], client: BlockingClient, data_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "bundle.json"
    result = run(data_dir, "diagnostics", "export", str(target))
    assert result.returncode == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    for marker in MARKERS:
        assert marker not in text, marker
    bundle = json.loads(text)
    assert bundle["versions"]["app"] and bundle["versions"]["schema"] >= 9
    assert {e["kind"] for e in bundle["diagnostics"]["events"]} >= {"retrieve", "sync"}
    assert any(
        "HTTP" in f["reason"] or "fetched" in f["reason"] for f in bundle["documentFailures"]
    )
    assert bundle["logTail"], "the backend log tail is part of the bundle"
    assert bundle["settings"]["rerank"]["baseUrl"].startswith("http://127.0.0.1")
    assert bundle["counts"]["documents"] >= 1
    assert bundle["settings"]["window"]["area"] == "chat", "the window's state, without the draft"
    (kept,) = bundle["settings"]["libraries"]
    assert kept["settings"]["assistantInstructions"] == f"({len(INSTRUCTIONS)} characters)"
    # The same bundle through the bridge, to a path the GUI's file dialog would give.
    again = client.call(DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(tmp_path / "b2")))
    assert again.events >= 4 and (tmp_path / "b2").stat().st_size == again.bytes


def test_the_record_is_a_bounded_ring(pool: Any) -> None:
    from goodbuddy_kb.main_process import diagnostic_log as diagnostics

    conn = pool.get()
    for i in range(diagnostics.MAX_EVENTS + 25):
        conn.execute(
            "INSERT INTO diagnostic_events (at, kind, outcome, details) VALUES (?, 'sync', 'ok', '{}')",
            (f"t{i}",),
        )
    diagnostics.write_events(conn, [diagnostics.PendingEvent("t", "sync", "ok", 1.0, "{}")])
    (count,) = conn.execute("SELECT count(*) FROM diagnostic_events").fetchone()
    assert count == diagnostics.MAX_EVENTS


def test_export_to_an_unwritable_place_is_a_clear_error(client: BlockingClient) -> None:
    with pytest.raises(Exception) as caught:
        client.call(
            DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path="/proc/no-such-dir/bundle.json")
        )
    assert "cannot be written" in str(caught.value)
