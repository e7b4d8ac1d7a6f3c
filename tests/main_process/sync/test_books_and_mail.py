"""EPUB books and saved e-mail (EML, MBOX) through a real sync (issue 35): files written part by
part (EPUB) and by the ``email`` package, Chinese and English, empty, corrupt and hostile ones, each
failing alone with a coded reason while the rest of the folder syncs."""

from __future__ import annotations

import io
import time
import zipfile
from email.base64mime import header_encode
from pathlib import Path

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.parsing import parse
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.bookgen import epub_bomb, make_eml, make_epub
from tests.docgen import make_docx

HANDBOOK = [
    ("入职须知", "<p>新员工第一天到前台领取工牌，口令是玉兰花开。</p>"),
    (
        "Expenses",
        "<h2>Travel</h2><p>The hotel limit is 600 yuan per night, codeword marmalade.</p>",
    ),
]


def hits(pool: ConnectionPool, library_id: str, text: str) -> int:
    """Hits of the full-text channel, or the CJK channel for Chinese words."""
    channel = "cjk" if any("\u4e00" <= char <= "\u9fff" for char in text) else "fts"
    return len(search(pool.get(), channel, [library_id], build_query(text), 10))


def by_status(pool: ConnectionPool, library_id: str, status: str) -> dict[str, str]:
    rows = pool.get().execute(
        "SELECT relative_path, parse_error FROM documents WHERE library_id = ? AND parse_status = ?",
        (library_id, status),
    )
    return {path: error or "" for path, error in rows}


def code_of(reason: str) -> str:
    coded = classify(reason)
    assert coded is not None, reason
    return coded.code


def test_an_epub_reads_its_chapters_in_spine_order_with_the_chapter_as_locator() -> None:
    document = parse(make_epub("员工手册", HANDBOOK), "handbook.epub")
    assert document.title == "员工手册"
    body = [s for s in document.sections if s.block_type != "heading"]
    assert [s.locator.chapter for s in body] == ["入职须知", "Expenses"]
    assert body[1].heading_path == ("Expenses", "Travel")
    assert body[1].locator.to_dict() == {"chapter": "Expenses"}


def test_an_epub_2_book_takes_its_titles_from_the_ncx_and_resolves_no_entity(
    tmp_path: Path,
) -> None:
    """An EPUB 2 book (an NCX, no navigation document) names its chapters in the NCX; a package
    declaring an external entity (a local file) gets it neither read nor expanded."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE", encoding="utf-8")
    book = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(make_epub("Handbook", HANDBOOK))) as source,
        zipfile.ZipFile(book, "w") as target,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "EPUB/content.opf":
                text = data.decode()
                text = text.replace(' properties="nav"', "").replace(
                    "<dc:title>Handbook</dc:title>", "<dc:title>&leak;</dc:title>"
                )
                head, rest = text.split("\n", 1)
                doctype = f'<!DOCTYPE package [<!ENTITY leak SYSTEM "file://{secret}">]>'
                data = f"{head}\n{doctype}\n{rest}".encode()
            elif info.filename == "EPUB/toc.ncx":
                data = data.replace("入职须知".encode(), "第一章 入职".encode())
            target.writestr(info, data)
    document = parse(book.getvalue(), "book.epub")
    assert document.title == "book", "the title named only the entity: the file's name instead"
    body = [s for s in document.sections if s.block_type != "heading"]
    assert [s.locator.chapter for s in body] == ["第一章 入职", "Expenses"]
    assert all("TOP-SECRET" not in s.text for s in document.sections)


def test_books_sync_and_bad_ones_fail_alone(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "handbook.epub").write_bytes(make_epub("员工手册", HANDBOOK))
    (folder / "empty.epub").write_bytes(b"")
    (folder / "corrupt.epub").write_bytes(b"PK\x03\x04" + b"\x00" * 300)
    (folder / "no-package.epub").write_bytes(make_docx([("p", "not a book")]))
    (folder / "bomb.epub").write_bytes(epub_bomb(60))
    (folder / "notes.md").write_text("# Notes\n\nThe kettle is blue.\n", encoding="utf-8")
    started = time.monotonic()
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert time.monotonic() - started < 60
    library = folder_source.library_id
    assert set(by_status(pool, library, "done")) == {"handbook.epub", "notes.md"}
    failed = by_status(pool, library, "failed")
    assert report.failed == 4 and set(failed) == {
        "empty.epub",
        "corrupt.epub",
        "no-package.epub",
        "bomb.epub",
    }
    assert code_of(failed["empty.epub"]) == "parse.empty_file"
    assert code_of(failed["corrupt.epub"]) in {"parse.epub_unreadable", "parse.archive_damaged"}
    assert code_of(failed["no-package.epub"]) == "parse.epub_unreadable"
    assert code_of(failed["bomb.epub"]) in {"parse.archive_member", "parse.archive_ratio"}
    assert hits(pool, library, "玉兰花开") == 1 and hits(pool, library, "marmalade") == 1
    assert hits(pool, library, "kettle") == 1


def gb2312_message() -> bytes:
    """A GB2312 message whose subject is a GB2312 encoded word (as Chinese mail clients send)."""
    raw = make_eml("placeholder", "差旅住宿标准每晚不超过六百元，暗号是青花瓷。", charset="gb2312")
    subject = header_encode("报销规定更新".encode("gb2312"), charset="gb2312").encode("ascii")
    head, body = raw.split(b"\n\n", 1)
    lines = [b"Subject: " + subject if x.startswith(b"Subject:") else x for x in head.split(b"\n")]
    return b"\n".join(lines) + b"\n\n" + body


def test_a_chinese_message_reads_its_subject_headers_and_body() -> None:
    raw = gb2312_message()
    assert b"=?gb2312?" in raw and "青花瓷".encode("gb2312") in raw
    document = parse(raw, "mail.eml")
    assert document.title == "报销规定更新"
    texts = [s.text for s in document.sections]
    assert texts[0].startswith("From: 张三 <zhang.san@example.com> · To: Team")
    assert "Date: Tue, 01 Dec 2026 09:30:00 +0800" in texts[0]
    assert texts[1] == "差旅住宿标准每晚不超过六百元，暗号是青花瓷。"


def test_an_html_only_message_reads_through_the_html_parser() -> None:
    html = (
        "<html><body><h2>Agenda</h2><p>Budget review, codeword <b>pineapple</b>.</p></body></html>"
    )
    document = parse(make_eml("Meeting", None, html=html), "meeting.eml")
    body = [(s.text, s.heading_path) for s in document.sections][1:]
    assert body == [("Agenda", ("Agenda",)), ("Budget review, codeword pineapple.", ("Agenda",))]


def test_attachments_of_read_types_come_back_beside_the_message_not_inside_it() -> None:
    attachments = [
        ("制度.docx", make_docx([("h1", "附件制度"), ("p", "报销需在三十天内提交。")])),
        ("notes.md", b"# Notes\n\nThe attic key is under the mat.\n"),
        ("tool.exe", b"MZ\x00\x01binary"),
        ("nested.eml", make_eml("Inner", "An inner message.")),
        ("../../etc/notes.md", b"# Other\n\nA name with separators.\n"),
    ]
    document = parse(make_eml("附件", "见附件。", attachments=attachments), "a.eml")
    assert all("三十天" not in s.text and "attic" not in s.text for s in document.sections)
    assert [(a.name, a.message) for a in document.attachments] == [
        ("制度.docx", "附件"),
        ("notes.md", "附件"),
        (".._.._etc_notes.md", "附件"),
    ]
    assert document.attachments[1].data.startswith(b"# Notes")


def test_a_mailbox_reads_each_message_as_a_section() -> None:
    first = make_eml("Lunch", "Lunch is at noon, codeword walnut.")
    second = make_eml("周报", "本周完成了知识库的同步功能。")
    mbox = b"".join(
        b"From sender@example.com Tue Dec  1 09:30:00 2026\n" + m.replace(b"\nFrom ", b"\n>From ")
        for m in (first, second)
    )
    document = parse(mbox, "box.mbox")
    headings = [s.text for s in document.sections if s.block_type == "heading"]
    assert headings == ["Lunch", "周报"]
    bodies = {s.text: s.heading_path for s in document.sections if s.block_type == "paragraph"}
    assert bodies["本周完成了知识库的同步功能。"] == ("周报",)


def test_mail_syncs_and_bad_messages_fail_alone(
    pool: ConnectionPool, folder_source: SourceRow, folder: Path
) -> None:
    (folder / "rules.eml").write_bytes(gb2312_message())
    (folder / "empty.eml").write_bytes(b"")
    (folder / "corrupt.eml").write_bytes(b"\x00\x01\x02 garbage \xff\xfe" * 40)
    (folder / "corrupt.mbox").write_bytes(b"no separator line here\n" * 10)
    (folder / "notes.md").write_text("# Notes\n\nThe kettle is blue.\n", encoding="utf-8")
    report = sync_source(pool.get(), folder_source, CancelToken())
    library = folder_source.library_id
    assert set(by_status(pool, library, "done")) == {"rules.eml", "notes.md"}
    failed = by_status(pool, library, "failed")
    assert report.failed == 3, failed
    assert code_of(failed["empty.eml"]) == "parse.empty_file"
    assert code_of(failed["corrupt.eml"]) == "parse.email_unreadable"
    assert code_of(failed["corrupt.mbox"]) == "parse.email_unreadable"
    assert hits(pool, library, "青花瓷") == 1
