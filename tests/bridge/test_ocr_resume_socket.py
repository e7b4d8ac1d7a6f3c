"""A backend killed (kill -9) while it recognises a scan resumes that OCR at its next start, with
no sync: the document ends recognised and searchable, never stuck "running"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    LIBRARY_CREATE,
    NOTIFY_TASK,
    SOURCE_ADD,
    TASKS_LIST,
)
from tests.ocrgen import image_only_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _client(backend: BackendProcess) -> BlockingClient:
    return BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()


def test_ocr_cut_off_by_a_crash_resumes_at_the_next_start(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    pages = [[f"Scanned page {n} of the archive.", f"Reference number A{n}7."] for n in range(8)]
    (folder / "archive.pdf").write_bytes(image_only_pdf(pages))
    first = BackendProcess.start(data_dir)
    try:
        client = _client(first)
        library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Scans")).library.id
        client.call(
            SOURCE_ADD,
            c.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(folder), watch=False
            ),
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait until the OCR task is on its pages
            method, params = client.next_notification(timeout=60)
            if method == NOTIFY_TASK.name and params["kind"] == "ocr" and params["done"] >= 1:
                break
        else:
            pytest.fail("the OCR task never started")
        client.close()
    finally:
        first.kill()
        first.stop()

    second = BackendProcess.start(
        data_dir, catch_up=True
    )  # the window's (a command's resumes nothing)
    try:
        client = _client(second)
        deadline = time.monotonic() + 180
        done = False
        while time.monotonic() < deadline and not done:
            listed = client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id))
            done = any(
                x.kind == "ocr" and x.state == "completed" and x.created_at >= ""
                for x in listed.tasks
            ) and all(x.state in t.FINISHED_STATES for x in listed.tasks)
            time.sleep(0.5)
        docs = client.call(DOCUMENTS_LIST, c.DocumentListRequest(library_id=library_id))
        archive = next(d for d in docs.documents if d.path == "archive.pdf")
        assert archive.ocr is not None and archive.ocr.status == "done", archive.ocr
        assert archive.chunk_count >= 1
        client.close()
    finally:
        second.stop()
