"""E-mail attachments as documents of their own through a real sync into a real SQLite file
(issue 35): a message with a DOCX and an XLSX attachment becomes three documents; the
attachments' chunks say which message they came with; an unchanged message leaves them alone,
a rewritten one without an attachment drops its document, a deleted one takes them all; a
corrupt attachment fails alone; a mailbox's attachments name their own messages; a rebuild and
"Open source" of an attachment go through its message."""

from __future__ import annotations

import functools
import io
import json
import os
import time
from pathlib import Path

import pytest
from openpyxl import Workbook

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.retrieval import ReferenceRequest
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.parsing.limits import MAX_ATTACHMENTS
from goodbuddy_kb.main_process.rebuild.document import rebuild_document
from goodbuddy_kb.main_process.references import open_target
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.bookgen import make_eml
from tests.docgen import make_docx

SUBJECT = "差旅报销规定 / Expense rules"


def rates_book() -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "差旅标准"
    sheet.append(["城市", "住宿标准（元/晚）"])
    sheet.append(["Zhuhai", 777])
    sheet.append(["深圳", 650])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def policy_doc() -> bytes:
    return make_docx([("h1", "报销时限"), ("p", "The claim deadline is 45 days, codeword quokka.")])


@functools.cache
def attachment(name: str) -> bytes:
    """Each attachment's bytes, made once: DOCX and XLSX files carry the time they were written,
    so making one again a second later gives another file (and another checksum)."""
    return {"制度.docx": policy_doc, "标准.xlsx": rates_book}[name]()


def message(*names: str, corrupt: bool = False) -> bytes:
    attachments = [(name, attachment(name)) for name in names]
    if corrupt:
        attachments.append(("broken.xlsx", b"PK\x03\x04" + b"\x00" * 200))
    return make_eml(SUBJECT, "Please see the attached rules.", attachments=attachments)


def documents(pool: ConnectionPool, library_id: str) -> dict[str, tuple[str, str, str]]:
    rows = pool.get().execute(
        "SELECT relative_path, title, parse_status, id FROM documents WHERE library_id = ?",
        (library_id,),
    )
    return {r["relative_path"]: (r["title"], r["parse_status"], r["id"]) for r in rows}


def hit(pool: ConnectionPool, library_id: str, text: str) -> tuple[str, dict[str, object]]:
    """The document path and chunk locator of the best full-text hit for ``text``."""
    channel = "cjk" if any("\u4e00" <= char <= "\u9fff" for char in text) else "fts"
    found = search(pool.get(), channel, [library_id], build_query(text), 5)
    assert found, text
    row = (
        pool.get()
        .execute(
            "SELECT d.relative_path, c.locator FROM chunks c JOIN documents d"
            " ON d.id = c.document_id WHERE c.id = ?",
            (found[0].chunk_id,),
        )
        .fetchone()
    )
    return row[0], json.loads(row[1])


def test_a_message_with_two_attachments_syncs_into_three_documents(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "mails").mkdir()
    (folder / "mails" / "a.eml").write_bytes(message("制度.docx", "标准.xlsx"))
    report = sync_source(pool.get(), folder_source, CancelToken())
    library = folder_source.library_id
    docs = documents(pool, library)
    assert {path: doc[:2] for path, doc in docs.items()} == {
        "mails/a.eml": (SUBJECT, "done"),
        "mails/a.eml//制度.docx": ("制度.docx", "done"),
        "mails/a.eml//标准.xlsx": ("标准.xlsx", "done"),
    }
    assert report.processed == 3 and report.failed == 0
    # A question only the attachment answers finds the attachment, located in its message.
    path, locator = hit(pool, library, "quokka")
    assert path == "mails/a.eml//制度.docx" and locator["message"] == SUBJECT
    path, locator = hit(pool, library, "Zhuhai")
    assert path == "mails/a.eml//标准.xlsx"
    assert locator["message"] == SUBJECT and locator["sheet"] == "差旅标准"
    # The message itself no longer holds the attachments' text.
    assert hit(pool, library, "attached rules")[0] == "mails/a.eml"

    again = sync_source(pool.get(), folder_source, CancelToken())
    assert again.unchanged == 1 and again.processed == 0 and again.removed == 0
    assert documents(pool, library) == docs


def test_a_dropped_attachment_leaves_and_a_deleted_message_takes_all(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "a.eml").write_bytes(message("制度.docx", "标准.xlsx"))
    (folder / "notes.md").write_text("# Notes\n\nThe kettle is blue.\n", encoding="utf-8")
    sync_source(pool.get(), folder_source, CancelToken())
    library = folder_source.library_id
    before = documents(pool, library)
    (folder / "a.eml").write_bytes(message("制度.docx"))
    report = sync_source(pool.get(), folder_source, CancelToken())
    after = documents(pool, library)
    assert set(after) == {"a.eml", "a.eml//制度.docx", "notes.md"}
    assert report.removed == 1 and report.processed == 1, "the kept attachment is unchanged"
    assert after["a.eml//制度.docx"] == before["a.eml//制度.docx"]
    assert not search(pool.get(), "fts", [library], build_query("Zhuhai"), 5)
    (folder / "a.eml").unlink()
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert set(documents(pool, library)) == {"notes.md"} and report.removed == 2
    assert not search(pool.get(), "fts", [library], build_query("quokka"), 5)


def test_a_corrupt_attachment_fails_alone_and_the_message_stays_indexed(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "a.eml").write_bytes(message("制度.docx", corrupt=True))
    report = sync_source(pool.get(), folder_source, CancelToken())
    docs = documents(pool, folder_source.library_id)
    assert docs["a.eml"][1] == docs["a.eml//制度.docx"][1] == "done"
    assert docs["a.eml//broken.xlsx"][1] == "failed" and report.failed == 1
    assert hit(pool, folder_source.library_id, "attached rules")[0] == "a.eml"


def test_a_mailboxs_attachments_name_their_own_messages(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    first = make_eml(
        "Lunch", "Lunch is at noon.", attachments=[("menu.md", b"# Menu\n\nWalnut soup.\n")]
    )
    second = message("标准.xlsx")
    mbox = b"".join(
        b"From sender@example.com Tue Dec  1 09:30:00 2026\n" + m.replace(b"\nFrom ", b"\n>From ")
        for m in (first, second)
    )
    (folder / "box.mbox").write_bytes(mbox)
    sync_source(pool.get(), folder_source, CancelToken())
    library = folder_source.library_id
    assert set(documents(pool, library)) == {"box.mbox", "box.mbox//menu.md", "box.mbox//标准.xlsx"}
    path, locator = hit(pool, library, "walnut")
    assert path == "box.mbox//menu.md" and locator["message"] == "Lunch"
    assert hit(pool, library, "Zhuhai")[1]["message"] == SUBJECT


def test_an_attachment_rebuilds_and_opens_through_its_message(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path, tmp_path: Path
) -> None:
    (folder / "a.eml").write_bytes(message("制度.docx"))
    sync_source(pool.get(), folder_source, CancelToken())
    library = folder_source.library_id
    doc_id = documents(pool, library)["a.eml//制度.docx"][2]
    outcome = rebuild_document(pool.get(), tmp_path, library, doc_id, None, CancelToken())
    assert outcome.ok, outcome.error
    assert hit(pool, library, "quokka")[1]["message"] == SUBJECT
    (chunk_id,) = (
        pool.get()
        .execute("SELECT id FROM chunks WHERE document_id = ? LIMIT 1", (doc_id,))
        .fetchone()
    )
    ref = ReferenceRequest(library_id=library, document_id=doc_id, chunk_id=chunk_id)
    assert open_target(pool.get(), ref) == ("file", os.path.realpath(folder / "a.eml"))
    # Once the message no longer carries it, a rebuild says so and the old text keeps serving.
    (folder / "a.eml").write_bytes(message())
    outcome = rebuild_document(pool.get(), tmp_path, library, doc_id, None, CancelToken())
    assert not outcome.ok and outcome.error == "the message no longer carries this attachment"


class CutAfterFirstAttachment(CancelToken):
    """Cancels the sync once one attachment's document is stored."""

    def __init__(self, pool: ConnectionPool) -> None:
        super().__init__()
        self.pool = pool

    def check(self) -> None:
        # (stored: read and done — a document being read is listed "running" meanwhile)
        sql = (
            "SELECT count(*) FROM documents WHERE relative_path LIKE '%//%'"
            " AND parse_status = 'done'"
        )
        if self.pool.get().execute(sql).fetchone()[0]:
            self.cancel()
        super().check()


def test_a_sync_cut_off_among_the_attachments_finishes_them_next_time(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "a.eml").write_bytes(message("制度.docx", "标准.xlsx"))
    with pytest.raises(CancelledError):
        sync_source(pool.get(), folder_source, CutAfterFirstAttachment(pool))
    library = folder_source.library_id
    assert set(documents(pool, library)) == {"a.eml//制度.docx"}, "the message waits"
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert set(documents(pool, library)) == {"a.eml", "a.eml//制度.docx", "a.eml//标准.xlsx"}
    assert report.processed == 2 and report.unchanged == 1


def test_a_message_replaced_by_a_link_takes_its_attachments_out_of_the_index(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path, tmp_path: Path
) -> None:
    (folder / "a.eml").write_bytes(message("制度.docx"))
    sync_source(pool.get(), folder_source, CancelToken())
    outside = tmp_path / "outside.eml"
    outside.write_bytes(message("制度.docx"))
    (folder / "a.eml").unlink()
    (folder / "a.eml").symlink_to(outside)
    sync_source(pool.get(), folder_source, CancelToken())
    docs = documents(pool, folder_source.library_id)
    assert set(docs) == {"a.eml"} and docs["a.eml"][1] == "failed"
    assert not search(pool.get(), "fts", [folder_source.library_id], build_query("quokka"), 5)


def test_a_message_of_many_attachments_indexes_up_to_the_limit_and_says_so(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    notes = [(f"note{i:03d}.md", f"# Note {i}\n\nItem {i}.\n".encode()) for i in range(260)]
    (folder / "many.eml").write_bytes(make_eml("Many", "All attached.", attachments=notes))
    started = time.monotonic()
    sync_source(pool.get(), folder_source, CancelToken())
    assert time.monotonic() - started < 60
    docs = documents(pool, folder_source.library_id)
    assert len(docs) == 1 + MAX_ATTACHMENTS and "many.eml//note199.md" in docs
    (note,) = (
        pool.get()
        .execute("SELECT parse_note FROM documents WHERE relative_path = 'many.eml'")
        .fetchone()
    )
    assert note == f"60 attachments past the limit of {MAX_ATTACHMENTS} a file were not indexed"
