"""Defects a new user met in the real window, reproduced through the real bridge and backend."""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    CHAT_SEND,
    CONVERSATION_CREATE,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    REFERENCE_OPEN,
    RETRIEVE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_SYNC,
    TASKS_LIST,
    VECTORS_STATUS,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.contracts.tasks import TaskListRequest
from goodbuddy_kb.main_process.opener import ENV_OPENER
from tests.servers.embedserver import Script, openai_server_process
from tests.servers.httpserver import Reply, serve

pytestmark = pytest.mark.integration

POLICY = (
    "# 差旅制度\n\n出差住宿标准：一线城市每晚不超过 600 元。\n\nHotel limit: 600 CNY per night.\n"
)


@pytest.fixture
def opened_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform opener replaced at the process boundary by a command that records its argument."""
    log = tmp_path / "opened.log"
    script = tmp_path / "record-opener"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(script))
    return log


@pytest.fixture
def live(opened_log: Path, data_dir: Path) -> Iterator[BlockingClient]:
    process = BackendProcess.start(data_dir)
    try:
        with BlockingClient(process.endpoint.server_name, process.endpoint.secret, "t").open() as c:
            yield c
    finally:
        process.stop()


def wait_idle(client: BlockingClient, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, TaskListRequest()).tasks
        if all(t.state not in ("queued", "running") for t in tasks):
            return
        time.sleep(0.1)
    raise AssertionError("tasks did not finish")


def library_with(client: BlockingClient, folder: Path, name: str = "Rules") -> str:
    folder.mkdir(exist_ok=True)
    (folder / "travel.md").write_text(POLICY, encoding="utf-8")
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    wait_idle(client)
    return library_id


def unreachable_embedding(client: BlockingClient) -> None:
    client.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(
            connection=m.EmbeddingConnection(
                kind="openai-compatible", base_url="http://127.0.0.1:9", model="any", timeout_s=2
            )
        ),
    )


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


def test_open_source_opens_a_stored_file_and_a_stored_url(
    live: BlockingClient, tmp_path: Path, opened_log: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
    hit = live.call(
        RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="出差住宿标准")
    ).results[0]
    ref = r.ReferenceRequest(
        library_id=library_id, document_id=hit.document_id, chunk_id=hit.chunk_id
    )
    opened = live.call(REFERENCE_OPEN, ref)
    assert opened.opened and opened.target_kind == "file"
    page = "<html><head><title>Leave</title></head><body><p>Annual leave: 15 days 年假十五天</p></body></html>"
    with serve({"/leave": Reply(200, page.encode())}) as base:
        web_lib = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Web")).library.id
        live.call(
            SOURCE_ADD,
            s.SourceAddRequest(library_id=web_lib, kind="web", location=f"{base}/leave"),
        )
        wait_idle(live)
        web_hit = live.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[web_lib], query="annual leave")
        ).results[0]
        web_ref = r.ReferenceRequest(
            library_id=web_lib, document_id=web_hit.document_id, chunk_id=web_hit.chunk_id
        )
        assert live.call(REFERENCE_OPEN, web_ref).target_kind == "url"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(_lines(opened_log)) < 2:
        time.sleep(0.05)
    lines = _lines(opened_log)
    assert lines[0] == os.path.realpath(tmp_path / "kb" / "travel.md")
    assert lines[1] == f"{base}/leave"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


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
    assert res.settings.top_k == 10 and len(res.results) == 10, "the largest top K applies"
    for hit in res.results:
        ranks = hit.channel_ranks
        if hit.library_id == first:
            # library A searches by vectors only: its full-text ranks add nothing
            assert hit.rrf_score == pytest.approx(1.0 / (60 + ranks["vector"]))
        else:
            # library B has no vector weight: a Chinese query's full-text weight is all cjk
            assert hit.rrf_score == pytest.approx(1.0 / (60 + ranks["cjk"]))
    assert any(h.library_id == first for h in res.results)


def test_settings_where_no_channel_can_run_are_refused(
    live: BlockingClient, tmp_path: Path
) -> None:
    library_id = library_with(live, tmp_path / "kb")
    with pytest.raises(InvalidRequestError) as refused:
        live.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id,
                retrieval=KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=0.0),
            ),
        )
    assert {f["field"] for f in refused.value.details["fields"]} == {
        "retrieval.ftsWeight",
        "retrieval.vectorWeight",
    }
    live.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="none")),
    )
    with pytest.raises(InvalidRequestError):
        live.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id,
                retrieval=KnowledgeRetrievalSettings(fts_weight=0.0, vector_weight=1.0),
            ),
        )
    kept = live.call(SETTINGS_GET, lib.SettingsGetRequest(library_id=library_id))
    assert kept.retrieval.fts_weight == 1.0, "nothing was saved"


def test_a_sync_never_waits_behind_another_librarys_vectorisation(
    live: BlockingClient, tmp_path: Path
) -> None:
    with openai_server_process(Script(delay_s=1.5)) as base:
        live.call(
            EMBEDDING_UPDATE,
            m.EmbeddingUpdateRequest(
                connection=m.EmbeddingConnection(
                    kind="openai-compatible",
                    base_url=base,
                    model="slow",
                    dimensions=384,
                    batch_size=1,
                    timeout_s=10,
                )
            ),
        )
        slow = tmp_path / "slow"
        slow.mkdir()
        for i in range(8):
            (slow / f"n{i}.md").write_text(f"# 第{i}条\n\n慢速向量化 {i}。\n", encoding="utf-8")
        first = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Slow")).library.id
        live.call(
            SOURCE_ADD,
            s.SourceAddRequest(library_id=first, kind="folder", location=str(slow), watch=False),
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            tasks = live.call(TASKS_LIST, TaskListRequest(library_id=first)).tasks
            if any(t.kind == "vectorize" and t.state == "running" for t in tasks):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the vectorisation did not start")
        other = tmp_path / "other"
        other.mkdir()
        (other / "leave.md").write_text("# 年假\n\n年假十五天。\n", encoding="utf-8")
        second = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Other")).library.id
        started = time.monotonic()
        live.call(
            SOURCE_ADD,
            s.SourceAddRequest(library_id=second, kind="folder", location=str(other), watch=False),
        )
        found = []
        while time.monotonic() - started < 8 and not found:
            found = live.call(
                RETRIEVE,
                r.RetrieveRequest(library_ids=[second], query="年假", channels=["cjk"]),
            ).results
            time.sleep(0.1)
        assert found, "the other library's text was not searchable within seconds"
        still = live.call(TASKS_LIST, TaskListRequest(library_id=first)).tasks
        assert any(t.kind == "vectorize" and t.state == "running" for t in still)
