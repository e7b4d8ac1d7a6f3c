"""Sources, sync tasks, documents and watching through the real bridge and backend."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    LIBRARY_CREATE,
    NOTIFY_TASK,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
    SOURCE_WATCH,
    TASKS_CANCEL,
    TASKS_LIST,
)

pytestmark = pytest.mark.integration


def wait_task(
    client: BlockingClient, task_id: str, timeout: float = 60
) -> tuple[t.TaskInfo, list[t.TaskInfo]]:
    seen: list[t.TaskInfo] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        method, params = client.next_notification(timeout=timeout)
        if method == NOTIFY_TASK.name and params["id"] == task_id:
            info = t.TaskInfo.model_validate(params)
            seen.append(info)
            if info.state in t.FINISHED_STATES:
                return info, seen
    raise AssertionError("task did not finish")


def make_library(client: BlockingClient, name: str = "Docs") -> str:
    return client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id


def write_files(folder: Path, count: int) -> None:
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"n{i:03d}.md").write_text(f"# Note {i}\n\n笔记 {i} 的内容。\n", encoding="utf-8")


def test_add_folder_syncs_with_progress_and_lists_documents(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = make_library(client)
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


def test_watched_folder_edit_is_reflected_within_five_seconds(
    client: BlockingClient, tmp_path: Path
) -> None:
    library_id = make_library(client)
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
    while time.monotonic() - started < 5:
        docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id)).documents
        if len(docs) == 4:
            break
        time.sleep(0.2)
    assert len(docs) == 4, "the watched change did not arrive within 5 s"
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
    library_id = make_library(client)
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
    mine, other = make_library(client, "Mine"), make_library(client, "Other")
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
        library_id = make_library(client)
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
            assert task.state == "interrupted" and task.error and "run it again" in task.error
    finally:
        again.stop()
