"""Sources, sync tasks, documents and watching through the real bridge and backend; opening a
stored file or URL; a sync never waiting behind another library's vectorisation."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    NOTIFY_TASK,
    REFERENCE_OPEN,
    RETRIEVE,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
    SOURCE_WATCH,
    TASKS_CANCEL,
    TASKS_LIST,
)
from goodbuddy_kb.contracts.tasks import TaskListRequest
from tests.bridge.helpers import (
    create_library,
    library_with,
    session,
    settle,
    wait_idle,
    wait_task,
)
from tests.servers.embedserver import Script, openai_server_process
from tests.servers.httpserver import Reply, serve

pytestmark = pytest.mark.integration


def write_files(folder: Path, count: int) -> None:
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"n{i:03d}.md").write_text(f"# Note {i}\n\n笔记 {i} 的内容。\n", encoding="utf-8")


def test_add_folder_syncs_with_progress_and_lists_documents(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = create_library(client)
    write_files(tmp_path / "notes", 30)
    (tmp_path / "notes" / "bad.txt").write_bytes(b"\x00\x01binary")
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(tmp_path / "notes")),
    )
    assert added.source.watch is True, "folders are watched by default"
    assert added.task_id is not None
    final, seen = wait_task(client, added.task_id)
    assert (
        final.state == "completed"
        and final.done == final.total == 31
        and final.failed_documents == 1
    )
    assert any(s.state == "running" for s in seen)
    page = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id, limit=10))
    assert page.total == 31 and len(page.documents) == 10
    assert page.summary.fulltext_usable == 30 and page.summary.failed == 1
    failed = client.call(
        DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id, filter="failed")
    )
    assert [d.path for d in failed.documents] == ["bad.txt"] and "binary" in (
        failed.documents[0].error or ""
    )
    listed = client.call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources
    assert listed[0].document_count == 31 and listed[0].state == "ok"


def documents_reach(client: BlockingClient, library_id: str, count: int, within: float) -> bool:
    """Whether the library lists ``count`` documents within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents
        if len(docs) == count or time.monotonic() > deadline:
            return len(docs) == count
        time.sleep(0.2)


def test_watched_folder_edit_is_reflected_within_five_seconds(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = create_library(client)
    write_files(tmp_path / "w", 3)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(tmp_path / "w")),
    )
    assert added.task_id
    wait_task(client, added.task_id)
    started = time.monotonic()
    (tmp_path / "w" / "n001.md").write_text(
        "# Note 1\n\n已经更新：新的报销流程。\n", encoding="utf-8"
    )
    (tmp_path / "w" / "new.md").write_text("# New\n\nA brand new file.\n", encoding="utf-8")
    assert documents_reach(client, library_id, 4, 5), "the watched change did not arrive in 5 s"
    assert time.monotonic() - started < 5
    client.call(
        SOURCE_WATCH,
        c.SourceWatchRequest(library_id=library_id, source_id=added.source.id, watch=False),
    )
    (tmp_path / "w" / "later.md").write_text("later", encoding="utf-8")
    time.sleep(2.5)
    assert (
        len(client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents)
        == 4
    )


def test_cancel_is_distinct_from_failure(client: BlockingClient, tmp_path: Path) -> None:
    library_id = create_library(client)
    write_files(tmp_path / "many", 400)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(
            library_id=library_id, kind="folder", location=str(tmp_path / "many"), watch=False
        ),
    )
    assert added.task_id
    client.call(TASKS_CANCEL, t.TaskCancelRequest(task_id=added.task_id))
    final, _ = wait_task(client, added.task_id)
    assert final.state == "cancelled"
    docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id))
    assert docs.summary.failed == 0 and docs.total < 400
    rerun = client.call(SOURCE_SYNC, c.SourceSyncRequest(library_id=library_id))
    final, _ = wait_task(client, rerun.task_ids[0])
    assert final.state == "completed" and final.done == 400


def test_ids_are_checked_against_their_library(client: BlockingClient, tmp_path: Path) -> None:
    mine, other = create_library(client, "Mine"), create_library(client, "Other")
    write_files(tmp_path / "m", 1)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(
            library_id=mine, kind="folder", location=str(tmp_path / "m"), sync=False
        ),
    )
    with pytest.raises(NotFoundError):
        client.call(
            SOURCE_REMOVE, c.SourceRemoveRequest(library_id=other, source_id=added.source.id)
        )
    with pytest.raises(NotFoundError):
        client.call(SOURCE_SYNC, c.SourceSyncRequest(library_id=other, source_id=added.source.id))
    with pytest.raises(InvalidRequestError, match="absolute"):
        client.call(
            SOURCE_ADD, c.SourceAddRequest(library_id=mine, kind="folder", location="relative/dir")
        )
    with pytest.raises(InvalidRequestError, match="http"):
        client.call(
            SOURCE_ADD,
            c.SourceAddRequest(library_id=mine, kind="web", location="file:///etc/passwd"),
        )
    removed = client.call(
        SOURCE_REMOVE, c.SourceRemoveRequest(library_id=mine, source_id=added.source.id)
    )
    assert removed.removed_documents == 0
    assert (tmp_path / "m" / "n000.md").exists(), "original files are never touched"


def test_interrupted_task_survives_restart_as_history(data_dir: Path, tmp_path: Path) -> None:
    backend = BackendProcess.start(data_dir)
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as client:
        library_id = create_library(client)
        write_files(tmp_path / "big", 1500)
        added = client.call(
            SOURCE_ADD,
            c.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(tmp_path / "big"), watch=False
            ),
        )
        while True:
            method, params = client.next_notification(timeout=30)
            if method == NOTIFY_TASK.name and params["state"] == "running" and params["done"] > 0:
                break
    backend.kill()
    again = BackendProcess.start(data_dir)
    try:
        with BlockingClient(again.endpoint.server_name, again.endpoint.secret).open() as client:
            task = next(
                x
                for x in client.call(TASKS_LIST, t.TaskListRequest()).tasks
                if x.id == added.task_id
            )
            assert task.state == "interrupted"
            assert task.error == "the app stopped before the task finished"
    finally:
        again.stop()


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


def test_a_watched_folder_moved_away_and_back_is_noticed_by_itself(
    client: BlockingClient, tmp_path: Path
) -> None:
    """A helper's try: a watched folder renamed away still read "OK" until a manual sync, and
    "unavailable" for eight minutes after it was renamed back. Both are noticed within seconds,
    the documents serving throughout."""
    library_id = create_library(client)
    folder = tmp_path / "w"
    write_files(folder, 3)
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder)),
    )
    wait_task(client, added.task_id)

    def state() -> str:
        return client.call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources[0].state

    def becomes(wanted: str) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if state() == wanted:
                return True
            time.sleep(0.2)
        return False

    folder.rename(tmp_path / "away")
    assert becomes("unavailable"), "the folder's going was not noticed"
    docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents
    assert len(docs) == 3, "nothing is deleted while it is away"
    (tmp_path / "away" / "n001.md").write_text("# Note 1\n\nchanged while away\n", "utf-8")
    (tmp_path / "away").rename(folder)
    assert becomes("ok"), "the folder's return was not noticed"
    # and it is read again, then watched again
    (folder / "new.md").write_text("# New\n\nA brand new file.\n", encoding="utf-8")
    assert documents_reach(client, library_id, 4, 10), "the folder is not watched again"


def test_two_libraries_watching_one_folder_each_keep_watching_and_can_be_deleted(
    client: BlockingClient, tmp_path: Path
) -> None:
    """Two libraries with the same folder as a source share its watch: removing one source
    stopped the other library's watching too, and deleting that library then failed with an
    internal error, leaving it in the list (a helper's try)."""
    folder = tmp_path / "shared"
    write_files(folder, 2)
    first, second = create_library(client, "First"), create_library(client, "Second")
    added = {}
    for library_id in (first, second):
        added[library_id] = client.call(
            SOURCE_ADD,
            c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder)),
        )
        assert added[library_id].task_id
        wait_task(client, added[library_id].task_id)
    client.call(
        SOURCE_REMOVE,
        c.SourceRemoveRequest(library_id=first, source_id=added[first].source.id),
    )
    (folder / "new.md").write_text("# New\n\nA file added after the removal.\n", encoding="utf-8")
    deadline = time.monotonic() + 10
    docs: list[c.Document] = []
    while time.monotonic() < deadline:
        docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=second)).documents
        if len(docs) == 3:
            break
        time.sleep(0.2)
    assert len(docs) == 3, "the other library still watches the folder"
    client.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=second))
    listed = client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries
    assert [x.id for x in listed] == [first]


def test_a_watched_folder_changed_while_the_app_was_closed_is_caught_up_at_start(
    data_dir: Path, tmp_path: Path
) -> None:
    """The watcher only hears changes while the backend runs: a file edited, added or deleted
    while the app was closed stayed as it was (old text found, new file missing) until some
    later change in the folder. An unchanged folder is not synced again at start."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kept.md").write_text("# Kept\n\n不变的笔记。\n", encoding="utf-8")
    (folder / "edited.md").write_text("# Edited\n\n报销上限是五百元。\n", encoding="utf-8")
    (folder / "gone.md").write_text("# Gone\n\n将被删除的笔记。\n", encoding="utf-8")
    an_hour_ago = time.time() - 3600  # written long before the sync (not within its clock slack)
    for path in folder.iterdir():
        os.utime(path, (an_hour_ago, an_hour_ago))
    with session(data_dir) as (_, cl):
        library_id = create_library(cl)
        added = cl.call(
            SOURCE_ADD,
            c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder)),
        )
        assert added.task_id
        wait_task(cl, added.task_id)
    with session(data_dir, catch_up=True) as (_, cl):  # nothing changed: no sync at start
        time.sleep(1.5)
        tasks = cl.call(TASKS_LIST, TaskListRequest(library_id=library_id)).tasks
        assert [x.kind for x in tasks].count("sync") == 1
    (folder / "edited.md").write_text("# Edited\n\n报销上限改为八百元。\n", encoding="utf-8")
    (folder / "gone.md").unlink()
    (folder / "new.md").write_text("# New\n\n关闭期间新增的笔记。\n", encoding="utf-8")
    with session(data_dir) as (_, cl):  # a command's own backend: gone in a moment, no sync
        time.sleep(1.5)
        tasks = cl.call(TASKS_LIST, TaskListRequest(library_id=library_id)).tasks
        assert [x.kind for x in tasks].count("sync") == 1
    with session(data_dir, catch_up=True) as (_, cl):
        deadline = time.monotonic() + 20
        paths: list[str] = []
        while time.monotonic() < deadline:
            docs = cl.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents
            paths = sorted(d.path for d in docs)
            if paths == ["edited.md", "kept.md", "new.md"]:
                break
            time.sleep(0.2)
        assert paths == ["edited.md", "kept.md", "new.md"]
        settle(cl, library_id)
        found = cl.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="八百元", channels=["cjk"])
        ).results
        assert found and found[0].document_path == "edited.md"
