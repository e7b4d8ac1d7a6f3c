"""A task that loses its source to a concurrent removal ends with a reason a person can read, not
"internal error (IntegrityError)"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, NOTIFY_TASK, SOURCE_ADD, SOURCE_REMOVE

pytestmark = pytest.mark.integration


def test_removing_a_source_mid_sync_says_so(client: BlockingClient, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(600):
        (folder / f"n{i:04d}.md").write_text(f"# Note {i}\n\n" + f"内容 {i}。" * 200, "utf-8")
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Busy")).library.id
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    assert added.task_id is not None
    final: t.TaskInfo | None = None
    removed = False
    deadline = time.monotonic() + 120
    while final is None and time.monotonic() < deadline:
        method, params = client.next_notification(timeout=60)
        if method != NOTIFY_TASK.name or params["id"] != added.task_id:
            continue
        info = t.TaskInfo.model_validate(params)
        if info.state in t.FINISHED_STATES:
            final = info
        elif not removed and info.done >= 5:
            client.call(
                SOURCE_REMOVE,
                c.SourceRemoveRequest(library_id=library_id, source_id=added.source.id),
            )
            removed = True
    assert removed and final is not None
    assert "internal" not in (final.error or ""), final.error
    if final.state == "failed":
        assert final.error == "the library or source was removed while the task ran"
