"""E-mail attachments through a real backend, the `goodbuddy-kb` command and the real socket
(issue 35): `documents` lists a message's attachments with the message they came with, a
question only an attachment answers returns the attachment with its locator back to the
message, and "Open source" on it opens the message file."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from openpyxl import Workbook

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.methods import REFERENCE_OPEN
from goodbuddy_kb.contracts.retrieval import ReferenceRequest
from tests.bookgen import make_eml
from tests.cli.runner import cli_json, run
from tests.docgen import make_docx

pytestmark = pytest.mark.integration


def phone_book() -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Contacts"
    sheet.append(["Name", "Extension"])
    sheet.append(["Quentin Okapi", 4411])
    sheet.append(["王小明", 5523])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_attachments_are_listed_found_and_opened_through_their_message(
    opened_log: Path, data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs" / "mails"
    docs.mkdir(parents=True)
    policy = make_docx([("h1", "Parking"), ("p", "Visitors park in lot C behind the warehouse.")])
    message = make_eml(
        "Office handbook",
        "Both files are attached.",
        attachments=[("parking.docx", policy), ("phones.xlsx", phone_book())],
    )
    (docs / "handbook.eml").write_bytes(message)
    assert run(data_dir, "library", "create", "L").returncode == 0
    added = run(data_dir, "source", "add", "L", str(tmp_path / "docs"), "--no-watch")
    assert added.returncode == 0, added.stderr
    assert run(data_dir, "sync", "L").returncode == 0

    listing = run(data_dir, "documents", "L")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].startswith("3 documents: 3 usable for full-text")
    rows = {line.split()[-1] if "attachment" not in line else line for line in lines[2:]}
    assert "mails/handbook.eml" in rows
    assert any(
        "mails/handbook.eml//phones.xlsx  (attachment of mails/handbook.eml)" in row for row in rows
    )
    assert any("mails/handbook.eml//parking.docx" in row for row in rows)

    found = cli_json(data_dir, "retrieve", "L", "What is Quentin Okapi's extension?")["results"]
    top = found[0]
    assert top["documentPath"] == "mails/handbook.eml//phones.xlsx"
    assert top["documentTitle"] == "phones.xlsx"
    assert top["locator"]["message"] == "Office handbook"
    assert top["locator"]["sheet"] == "Contacts"

    endpoint = backend.endpoint
    with BlockingClient(endpoint.server_name, endpoint.secret, "t").open() as client:
        ref = ReferenceRequest(
            library_id=top["libraryId"], document_id=top["documentId"], chunk_id=top["chunkId"]
        )
        assert client.call(REFERENCE_OPEN, ref).target_kind == "file"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not opened_log.exists():
        time.sleep(0.05)
    assert opened_log.read_text(encoding="utf-8").splitlines() == [
        os.path.realpath(docs / "handbook.eml")
    ]
