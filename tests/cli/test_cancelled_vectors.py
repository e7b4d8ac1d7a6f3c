"""`goodbuddy-kb documents` after a person cancelled a vectorisation: the documents it had not
reached are counted as cancelled, not failed (nothing failed; the next sync continues them)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, SOURCE_ADD, TASKS_CANCEL, TASKS_LIST
from tests.cli.runner import run
from tests.servers.embedserver import Script, openai_server_process

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]
TEXT = "Paragraph {n} of note {d} is about topic{d}x{n}. " * 40


def running_build(client: BlockingClient) -> t.TaskInfo | None:
    listed = client.call(TASKS_LIST, t.TaskListRequest())
    return next(
        (x for x in listed.tasks if x.kind == "vectorize" and x.state == "running" and x.done),
        None,
    )


def test_a_cancelled_vectorisation_is_not_counted_as_failed(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for d in range(1, 7):
        body = "\n\n".join(TEXT.format(n=n, d=d) for n in range(6))
        (folder / f"note{d}.md").write_text(f"# Note {d}\n\n{body}\n", "utf-8")
    made_library = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Notes"))
    with openai_server_process(Script(delay_s=0.5)) as base:
        made = run(
            data_dir,
            *("model", "embedding", "--provider", "openai-compatible", "--url", base),
            *("--model", "embed-small"),
        )
        assert made.returncode == 0, made.stderr
        # added from the bridge, which does not wait for the sync and its vectors as the
        # command does
        add = c.SourceAddRequest(
            library_id=made_library.library.id, kind="folder", location=str(folder)
        )
        client.call(SOURCE_ADD, add)
        deadline = time.monotonic() + 30
        build = running_build(client)
        while build is None and time.monotonic() < deadline:
            time.sleep(0.1)
            build = running_build(client)
        assert build is not None, "the vectorisation ran"
        client.call(TASKS_CANCEL, t.TaskCancelRequest(task_id=build.id))
        while time.monotonic() < deadline:
            listed = client.call(TASKS_LIST, t.TaskListRequest()).tasks
            if next(x for x in listed if x.id == build.id).state == "cancelled":
                break
            time.sleep(0.1)
        shown = run(data_dir, "documents", "Notes")
    assert shown.returncode == 0, shown.stderr
    header = shown.stdout.splitlines()[0]
    assert " 0 failed," in header and "not vectorised: cancelled (sync continues)" in header, header
    failed = run(data_dir, "documents", "Notes", "--filter", "failed")
    assert "no failed documents" in failed.stdout, failed.stdout
