"""Semantic search while a library's first vectors fill, against a real backend over the real
socket: a retrieve during the first build searches the rows already written and says how many
documents the vectors cover; the first build starts while the sync still reads; a rebuild of an
existing version never serves the half-built one."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.cli import retrieve as retrieve_cli
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    LIBRARY_DELETE,
    LIBRARY_RENAME,
    RETRIEVE,
    SOURCE_ADD,
    SOURCE_SYNC,
    TASKS_LIST,
    VECTORS_REBUILD,
    VECTORS_STATUS,
)
from goodbuddy_kb.ui import i18n
from goodbuddy_kb.ui.workbench.report import status_text
from tests.bridge.helpers import (
    chunking,
    create_library,
    finished,
    library_with_docs,
    poll_task,
    session,
    settle,
    use_remote,
    write_doc,
)
from tests.servers.embedserver import Script, openai_server

pytestmark = pytest.mark.integration


def ask(client: BlockingClient, library_id: str, query: str) -> r.KnowledgeRetrievalResponse:
    return client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=query))


def vector_reasons(res: r.KnowledgeRetrievalResponse) -> list[str]:
    return [d.reason for d in res.diagnostics.degraded_channels if d.channel == "vector"]


def tasks_of(client: BlockingClient, library_id: str) -> list[t.TaskInfo]:
    return client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id, limit=200)).tasks


def filling(client: BlockingClient, base: str, folder: Path, name: str) -> str:
    """A library of eight two-chunk documents whose first vectors start filling from the slow
    embedding service at ``base`` (two chunks a request); returns its id at once."""
    use_remote(client, base, batch=2)
    library_id = create_library(client, name)
    chunking(client, library_id, "fixed")  # two chunks a document
    folder.mkdir()
    for d in range(1, 9):
        write_doc(folder, d)
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    return library_id


def importing(client: BlockingClient, base: str, folder: Path, name: str) -> str:
    """A library whose sync of sixty twelve-section documents starts now (the embedding service
    at ``base`` takes four chunks a request); returns its id at once."""
    use_remote(client, base, batch=4)
    library_id = create_library(client, name)
    folder.mkdir()
    for d in range(1, 61):
        write_doc(folder, d, sections=12)
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    return library_id


def test_a_first_version_is_searched_while_it_fills(data_dir: Path, tmp_path: Path) -> None:
    script = Script(delay_s=0.25)
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        library_id = filling(client, base, tmp_path / "docs", "Filling")
        deadline = time.monotonic() + 30
        partial = None
        while partial is None and time.monotonic() < deadline:
            res = ask(client, library_id, "topic1x2")
            cover = res.diagnostics.vector_coverage
            if "vector" in res.diagnostics.used_channels and cover:
                partial = res
            time.sleep(0.05)
        assert partial is not None, "no vector result before the first version was complete"
        cover = partial.diagnostics.vector_coverage[0]
        assert cover.documents_total == 8
        assert 0 < cover.chunks_covered < cover.chunks_total == 16
        assert cover.documents_covered < cover.documents_total
        assert partial.diagnostics.vector_scanned == cover.chunks_covered
        said = f"vectors cover {cover.documents_covered}/8 documents so far"
        assert any(said in x for x in vector_reasons(partial)), vector_reasons(partial)
        hit = partial.results[0]
        assert hit.document_path == "doc1.md" and "vector" in hit.channel_ranks
        assert said in retrieve_cli._vector_line(partial.diagnostics)
        covered = cover.documents_covered
        assert f"ⓘ Vector: vectors cover {covered}/8 documents so far" in status_text(partial)
        i18n.set_language("zh")
        try:
            assert f"ⓘ 向量：向量目前覆盖 {covered}/8 篇文档" in status_text(partial)
        finally:
            i18n.set_language("en")

        tasks = settle(client, library_id)
        assert all(x.state == "completed" for x in tasks), [(x.kind, x.error) for x in tasks]
        vectorised = [x for x in tasks if x.kind == "vectorize"]
        assert len(vectorised) == 1 and vectorised[0].done == 16, "one task fills the version"
        done = ask(client, library_id, "topic8x2")
        assert done.diagnostics.vector_coverage == [] and vector_reasons(done) == []
        assert done.diagnostics.vector_scanned == 16
        assert done.results[0].document_path == "doc8.md"


def test_the_first_vectorisation_starts_while_the_sync_still_reads(
    data_dir: Path, tmp_path: Path
) -> None:
    with openai_server(Script()) as base, session(data_dir) as (_backend, client):
        library_id = importing(client, base, tmp_path / "docs", "Early")
        early = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            tasks = tasks_of(client, library_id)
            sync = next((x for x in tasks if x.kind == "sync"), None)
            if sync is not None and sync.state in t.FINISHED_STATES:
                break
            vectors = [x for x in tasks if x.kind == "vectorize"]
            if sync is not None and vectors and sync.done < sync.total:
                early = True
                break
            time.sleep(0.02)
        assert early, "vectorisation waited for the whole sync"
        tasks = settle(client, library_id)
        assert all(x.state == "completed" for x in tasks), [(x.kind, x.error) for x in tasks]
        assert [x.kind for x in tasks].count("vectorize") == 1, "it followed the sync to its end"
        res = ask(client, library_id, "topic60x5")
        assert vector_reasons(res) == [] and res.diagnostics.vector_coverage == []
        assert res.results[0].document_path == "doc60.md"


def test_a_rebuild_never_serves_its_half_built_version(data_dir: Path, tmp_path: Path) -> None:
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        use_remote(client, base, batch=2)
        library_id = library_with_docs(client, tmp_path / "docs")
        script.delay_s = 0.3
        task_id = client.call(
            VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
        ).task_id
        poll_task(client, task_id, lambda x: x.state == "running" and x.done > 0)
        during = ask(client, library_id, "topic5x2")
        assert during.diagnostics.vector_coverage == [] and vector_reasons(during) == []
        assert during.diagnostics.vector_scanned == 10, "the whole old version serves"
        assert during.results[0].document_path == "doc5.md"
        assert poll_task(client, task_id, finished).state == "completed"
        script.delay_s = 0.0
        after = ask(client, library_id, "topic5x2")
        assert after.diagnostics.vector_scanned == 10 and vector_reasons(after) == []


def poll_task_where(
    client: BlockingClient, found: Callable[[t.TaskInfo], bool], timeout: float = 30
) -> t.TaskInfo:
    """The first listed task ``found`` holds for, waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, t.TaskListRequest(limit=200)).tasks
        info = next((x for x in tasks if found(x)), None)
        if info is not None:
            return info
        time.sleep(0.02)
    raise AssertionError("no such task")


def under_way(client: BlockingClient, library_id: str) -> None:
    """Wait until the library's first fill has written a few chunks' vectors."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        builds = [x for x in tasks_of(client, library_id) if x.kind == "vectorize"]
        if builds and builds[0].state == "running" and builds[0].done >= 4:
            return
        time.sleep(0.05)
    raise AssertionError("the first fill did not get going")


def test_a_first_fill_the_app_closed_on_goes_on_at_the_next_start(
    data_dir: Path, tmp_path: Path
) -> None:
    """The app quit while a library's first vectors filled: what was written stays searchable,
    and at the next start the vectorisation goes on by itself from there. (Its documents sat at
    "failed: the app is closing" until a sync, and before that the whole first version was
    thrown away.)"""
    script = Script(delay_s=0.25)
    with openai_server(script) as base:
        with session(data_dir) as (_backend, client):
            library_id = filling(client, base, tmp_path / "docs", "Quit")
            under_way(client, library_id)
        # the backend has shut down cleanly, mid-fill. A command's own backend (gone in a
        # moment) leaves the cut-off work alone: it resumed it and cancelled it a second later,
        # a "Vectorise · cancelled" row for each `tasks` run (a helper's try)
        for _ in range(2):
            with session(data_dir) as (_backend, client):
                listed = [x for x in tasks_of(client, library_id) if x.kind == "vectorize"]
                assert len(listed) == 1 and listed[0].error == "the app is closing", listed
        # the window's (or the MCP server's) goes on with it
        with session(data_dir, catch_up=True) as (_backend, client):
            tasks = settle(client, library_id)
            vectorising = [x for x in tasks if x.kind == "vectorize"]
            assert len(vectorising) == 2, tasks
            resumed, cut = vectorising
            assert cut.state == "cancelled" and cut.error == "the app is closing"
            assert resumed.state == "completed"
            assert 0 < resumed.done < 16, "it went on from what was written, not from 0"
            res = ask(client, library_id, "topic1x2")
            assert "vector" in res.diagnostics.used_channels
            assert res.diagnostics.vector_scanned == 16 and not vector_reasons(res)


def test_a_first_fill_a_crash_cut_short_keeps_what_it_wrote(data_dir: Path, tmp_path: Path) -> None:
    """The backend killed mid-fill (no clean shutdown): at the next start the first version
    serves with the vectors it had committed, and the vectorisation resumed at start embeds
    only the rest (before, the crash recovery threw the whole version away and began at 0)."""
    script = Script(delay_s=0.25)
    with openai_server(script) as base:
        backend = BackendProcess.start(data_dir)
        try:
            with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as cl:
                library_id = filling(cl, base, tmp_path / "docs", "Crash")
                under_way(cl, library_id)
        finally:
            backend.kill()
        with session(data_dir, catch_up=True) as (_backend, client):
            tasks = settle(client, library_id)
            resumed, cut = [x for x in tasks if x.kind == "vectorize"]
            assert cut.state == "interrupted"
            assert resumed.state == "completed"
            assert 0 < resumed.done < 16, "it went on from what was committed, not from 0"
            res = ask(client, library_id, "topic1x2")
            assert res.diagnostics.vector_scanned == 16 and not vector_reasons(res)


def test_a_deleted_library_s_vector_files_go_with_it(data_dir: Path, tmp_path: Path) -> None:
    """Deleting a library removed its rows but left its vector files taking room until the
    next start; another library's files stay."""
    with session(data_dir) as (_backend, client):
        gone = library_with_docs(client, tmp_path / "a")
        client.call(LIBRARY_RENAME, lib.LibraryRenameRequest(library_id=gone, name="Gone"))
        kept = library_with_docs(client, tmp_path / "b")
        folder = data_dir / "vectors"
        files = {p.name for p in folder.iterdir()}
        assert len(files) >= 4, files  # each library's float32 file and its int8 copy
        client.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=gone))
        left = {p.name for p in folder.iterdir()}
        assert left and left < files
        res = ask(client, kept, "topic1x2")
        assert "vector" in res.diagnostics.used_channels and not vector_reasons(res)


def test_the_vectorised_count_never_goes_back_while_the_first_vectors_fill(
    data_dir: Path, tmp_path: Path
) -> None:
    """The end of a sync during a library's first fill recomputed every document's vector
    status against the library's current version, which a first version is not until it is
    complete: the documents it already held whole went back to "pending" (under Xvfb, a
    1,500-file import read "84 vectorised", then "64", its first rows ✓ then … again)."""
    with openai_server(Script(delay_s=0.03)) as base, session(data_dir) as (_backend, client):
        library_id = importing(client, base, tmp_path / "docs", "Counting")
        counts: list[tuple[int, str]] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            tasks = tasks_of(client, library_id)
            listed = client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
            sync = next((x.state for x in tasks if x.kind == "sync"), "none")
            counts.append((listed.summary.vectorised, sync))
            ended = all(x.state in t.FINISHED_STATES for x in tasks) and sync != "none"
            if ended and any(x.kind == "vectorize" for x in tasks):
                break
            time.sleep(0.02)
        assert counts[-1][0] == 60, counts[-1]
        assert any(n > 0 and state != "completed" for n, state in counts), (
            "no document was vectorised before the sync ended: the test proves nothing"
        )
        back = [(a, b) for a, b in itertools.pairwise(counts) if b[0] < a[0]]
        assert back == [], back


def test_documents_added_to_a_vectorised_library_count_as_their_vectors_land(
    data_dir: Path, tmp_path: Path
) -> None:
    """Vectors added to a library's current version are searched as they land: each document
    whose chunks all have theirs is done then, not when the whole batch of new documents is
    (under Xvfb, 1,200 files added to a library of 800 read "800 vectorised" and "⟳ Running"
    on every new row while the chunk count climbed, then all done at once)."""
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        library_id = importing(client, base, tmp_path / "docs", "Growing")
        settle(client, library_id)
        script.delay_s = 0.05
        more = tmp_path / "more"
        more.mkdir()
        for d in range(61, 91):
            write_doc(more, d, sections=12)
        client.call(
            SOURCE_ADD,
            s.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(more), watch=False
            ),
        )
        seen: list[tuple[int, bool]] = []
        said: list[tuple[bool, bool]] = []  # (vectors missing, a vectorisation said to be on)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            tasks = tasks_of(client, library_id)
            listed = client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
            vectorising = any(x.kind == "vectorize" and x.state == "running" for x in tasks)
            seen.append((listed.summary.vectorised, vectorising))
            index = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
            said.append((index.vectors < index.retrievable_chunks, index.vectorising))
            if listed.summary.vectorised == 90:
                break
            time.sleep(0.05)
        assert seen[-1][0] == 90, seen[-1]
        assert any(60 < n < 90 and running for n, running in seen), seen
        # the index says its missing vectors are on the way while they are
        assert (True, True) in said, said
        settle(client, library_id)
        final = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
        assert not final.vectorising and final.vectors == final.retrievable_chunks


def test_deleting_a_library_while_it_vectorises_ends_its_task(
    data_dir: Path, tmp_path: Path
) -> None:
    """A helper's try: a library deleted while its vectors filled vanished, but the task ran on
    into the rows the deletion took, crashed (TypeError in the vector store) and never said it
    ended: the window showed "Vectorise · 86/1293" for good and `source add` waited on. Its
    last word now is "cancelled: the library was deleted", and nothing crashed."""
    with openai_server(Script(delay_s=0.25)) as base, session(data_dir) as (_backend, client):
        library_id = filling(client, base, tmp_path / "docs", "Doomed")
        under_way(client, library_id)
        running = next(x for x in tasks_of(client, library_id) if x.kind == "vectorize")
        client.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=library_id))
        deadline = time.monotonic() + 20
        final = None
        while final is None and time.monotonic() < deadline:
            method, params = client.next_notification(timeout=deadline - time.monotonic())
            if method == "notify:task" and params["id"] == running.id:
                info = t.TaskInfo.model_validate(params)
                final = info if info.state not in ("queued", "running") else None
        assert final is not None, "the task never said it ended"
        assert final.state == "cancelled" and final.error == "the library was deleted"
        assert final.error_code == "task.library_deleted"
    log = (data_dir / "backend.log").read_text("utf-8")
    assert "crashed" not in log and "Traceback" not in log, log[-3000:]


def test_a_model_switch_sends_no_text_until_the_vectors_are_rebuilt(
    data_dir: Path, tmp_path: Path
) -> None:
    """A helper's try: after switching to a remote embedding service, a restart re-embedded a
    library whose index was built by the earlier model, sending its text to the service,
    though the model settings say indexes read incompatible until rebuilt and the app never
    switches by itself (PRD §12: 等待重建). Neither a sync nor a start does that now."""
    script = Script()
    folder = tmp_path / "docs"
    with openai_server(script) as base:
        with session(data_dir) as (_backend, client):
            library_id = library_with_docs(client, folder)
            use_remote(client, base)
            before = script.calls
            vectorised = len([x for x in tasks_of(client, library_id) if x.kind == "vectorize"])
            write_doc(folder, 9)
            client.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=library_id))
            settle(client, library_id)
            after = [x for x in tasks_of(client, library_id) if x.kind == "vectorize"]
            assert len(after) == vectorised, "a sync started a vectorisation with the new model"
        with session(data_dir, catch_up=True) as (_backend, client):
            settle(client, library_id)
            status = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
        assert script.calls == before, "text was sent to the new model without a rebuild"
        assert not status.compatible and status.reason_code == "vector.incompatible", status


@pytest.mark.parametrize("stop", ["close", "kill"])
def test_a_rebuild_for_a_new_model_the_app_stopped_on_goes_on_at_the_next_start(
    data_dir: Path, tmp_path: Path, stop: str
) -> None:
    """ "Rebuild vectors" after a switch to another model, cut off by the app's closing or a
    crash: at the next start the window's backend builds it again by itself, as it does a first
    fill. (It read incompatible until the person pressed "Rebuild vectors" a second time: a start
    could not tell the rebuild they asked for from a model switch no one rebuilt for, which
    must send no text.)"""
    script = Script()
    with openai_server(script) as base:
        backend = BackendProcess.start(data_dir)
        try:
            with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as cl:
                library_id = library_with_docs(cl, tmp_path / "docs")
                use_remote(cl, base, batch=2)
                script.delay_s = 0.3
                task_id = cl.call(
                    VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
                ).task_id
                poll_task(cl, task_id, lambda x: x.state == "running" and x.done > 0)
        finally:
            backend.stop() if stop == "close" else backend.kill()
        with session(data_dir, catch_up=True) as (_backend, client):
            # its progress says it started again by itself (a helper saw it begin at 0/40 with
            # nothing saying why, beside a row that read "Interrupted — run again")
            again = poll_task_where(
                client,
                lambda x: x.kind == "vectorize" and x.state == "running" and x.done > 0,
            )
            assert again.current == t.STEP_RESUMED, again
            script.delay_s = 0.0
            tasks = settle(client, library_id)
            status = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
            res = ask(client, library_id, "topic5x2")
        resumed = next(x for x in tasks if x.kind == "vectorize")
        assert resumed.state == "completed" and resumed.done == 10, resumed
        assert status.compatible, status
        assert res.diagnostics.vector_scanned == 10 and not vector_reasons(res)


def test_rebuild_vectors_pressed_again_while_it_runs_gets_the_same_task(
    data_dir: Path, tmp_path: Path
) -> None:
    """A helper pressed "Rebuild vectors" during a rebuild: a second full rebuild was queued and
    sent every chunk to the service again, against an index already correct."""
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        library_id = library_with_docs(client, tmp_path / "docs")
        use_remote(client, base, batch=2)
        before = len([x for x in tasks_of(client, library_id) if x.kind == "vectorize"])
        script.delay_s = 0.3
        first = client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
        poll_task(client, first.task_id, lambda x: x.state == "running" and x.done > 0)
        again = client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
        assert again.task_id == first.task_id
        script.delay_s = 0.0
        tasks = settle(client, library_id)
        calls = script.calls
        assert len([x for x in tasks if x.kind == "vectorize"]) == before + 1, tasks
        # once it has finished, a rebuild is a new one
        later = client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
        assert later.task_id != first.task_id
        settle(client, library_id)
        assert script.calls > calls
