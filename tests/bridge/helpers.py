"""Helpers for the bridge tests (plain functions): a backend session, libraries made over the
socket (one policy document; ``count`` fixed-mode documents), waiting for tasks (by notification,
by polling, until the library is idle), a data directory a newer build has stamped and the
fingerprint of every file in a folder, and embedding settings (a remote loopback server, or an
address where nothing answers)."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    NOTIFY_TASK,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    TASKS_LIST,
)
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.contracts.tasks import TaskListRequest
from goodbuddy_kb.datadir import DATABASE_FILE

POLICY = (
    "# 差旅制度\n\n出差住宿标准：一线城市每晚不超过 600 元。\n\nHotel limit: 600 CNY per night.\n"
)


def wait_idle(client: BlockingClient, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, TaskListRequest()).tasks
        if all(t.state not in ("queued", "running") for t in tasks):
            return
        time.sleep(0.1)
    raise AssertionError("tasks did not finish")


def graph_off(client: BlockingClient, library_id: str) -> None:
    """A new library's graph is local; tests about what runs without it turn it off."""
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    client.call(
        GRAPH_UPDATE,
        g.GraphUpdateRequest(
            library_id=library_id, settings=info.settings.model_copy(update={"strategy": "off"})
        ),
    )


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


def create_library(client: BlockingClient, name: str = "Docs") -> str:
    return client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id


SECTION = (
    "## Section {n}\n\n" + "Paragraph {n} of document {d} talks about topic{d}x{n}. " * 6 + "\n\n"
)


def write_doc(folder: Path, d: int, sections: int = 6, name: str | None = None) -> Path:
    path = folder / (name or f"doc{d}.md")
    body = "".join(SECTION.format(n=n, d=d) for n in range(1, sections + 1))
    path.write_text(f"# Document {d}\n\n{body}", encoding="utf-8")
    return path


@contextmanager
def session(
    data_dir: Path, catch_up: bool = False
) -> Iterator[tuple[BackendProcess, BlockingClient]]:
    backend = BackendProcess.start(data_dir, catch_up=catch_up)
    try:
        with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as cl:
            yield backend, cl
    finally:
        backend.stop()


def settle(client: BlockingClient, library_id: str, timeout: float = 120) -> list[t.TaskInfo]:
    """Wait until no task of the library is queued or running; the tasks, newest first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id)).tasks
        if not any(x.state in ("queued", "running") for x in tasks):
            return tasks
        time.sleep(0.05)
    raise AssertionError("tasks did not settle")


def poll_task(
    client: BlockingClient, task_id: str, until: Callable[[t.TaskInfo], bool], timeout: float = 60
) -> t.TaskInfo:
    """Poll the task list (never block on a notification: the loopback embedding servers of
    these tests run on threads of this process, and a blocking socket wait would starve them)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.call(TASKS_LIST, t.TaskListRequest(limit=200)).tasks
        info = next((x for x in tasks if x.id == task_id), None)
        if info is not None and until(info):
            return info
        time.sleep(0.02)
    raise AssertionError("the task did not get there in time")


def finished(info: t.TaskInfo) -> bool:
    return info.state in t.FINISHED_STATES


def chunking(client: BlockingClient, library_id: str, mode: str, **sizes: int) -> None:
    """The library's chunking settings: ``mode``, and ``sizes`` (``target_characters``,
    ``overlap_characters``) where given."""
    client.call(
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(
            library_id=library_id,
            chunking=KnowledgeChunkingSettings(mode=mode, **sizes),  # type: ignore[arg-type]
        ),
    )


def library_with_docs(client: BlockingClient, folder: Path, count: int = 5) -> str:
    """A library in fixed mode (two chunks per document) holding ``count`` synced documents."""
    library_id = create_library(client, "Rebuild")
    chunking(client, library_id, "fixed")
    folder.mkdir(exist_ok=True)
    for d in range(1, count + 1):
        write_doc(folder, d)
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    settle(client, library_id)
    return library_id


def use_remote(client: BlockingClient, base: str, batch: int = 8) -> None:
    client.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(
            connection=m.EmbeddingConnection(
                kind="openai-compatible",
                base_url=base,
                model="embed-small",
                dimensions=384,
                batch_size=batch,
                timeout_s=10.0,
            ),
            api_key="sk-test-0000000000",
        ),
    )


def stamp_newer(data_dir: Path) -> None:
    """A data directory a later build has used: a real database, one migration beyond ours."""
    BackendProcess.start(data_dir).stop()
    conn = sqlite3.connect(data_dir / DATABASE_FILE)
    with conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)"
            " VALUES (9999, 'from_the_future', 'x', '2030-01-01T00:00:00+00:00')"
        )
    conn.close()


def fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
