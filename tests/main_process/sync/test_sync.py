"""Incremental sync over real folders and files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.storage import documents, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync import engine
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.docgen import make_docx, make_pdf


def write_corpus(folder: Path, count: int) -> None:
    for i in range(count):
        sub = folder / f"part{i // 500}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{i:04d}.md").write_text(
            f"# 文档 {i}\n\n第 {i} 号文件的内容。Document number {i} covers topic T{i % 37}.\n",
            encoding="utf-8",
        )


def rows(pool: ConnectionPool, sql: str, *args: object) -> list[tuple[object, ...]]:
    return [tuple(r) for r in pool.get().execute(sql, args).fetchall()]


@pytest.mark.slow
def test_two_thousand_files_resync_exactly_what_changed(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    write_corpus(folder, 2000)
    first = sync_source(pool.get(), folder_source, CancelToken())
    assert (first.total, first.processed, first.failed) == (2000, 2000, 0)
    changed = set()
    for i in range(500, 2000):
        path = folder / f"part{i // 500}" / f"doc{i:04d}.md"
        if i % 97 == 0:
            path.unlink()
            continue
        path.write_text(f"# 文档 {i}\n\n修改后的内容 {i}。\n", encoding="utf-8")
        changed.add(path.relative_to(folder).as_posix())
    deleted = {f"part{i // 500}/doc{i:04d}.md" for i in range(500, 2000) if i % 97 == 0}
    second = sync_source(pool.get(), folder_source, CancelToken())
    assert set(second.parsed_paths) == changed
    assert second.removed == len(deleted) and second.unchanged == 500
    remaining = {r[0] for r in rows(pool, "SELECT relative_path FROM documents")}
    assert remaining.isdisjoint(deleted) and len(remaining) == 2000 - len(deleted)
    orphans = rows(
        pool, "SELECT count(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)"
    )
    assert orphans == [(0,)]
    fts = rows(pool, "SELECT count(*) FROM chunks_fts")[0][0]
    assert (
        fts
        == rows(pool, "SELECT count(*) FROM chunks WHERE role != 'parent' AND enabled = 1")[0][0]
    )
    third = sync_source(pool.get(), folder_source, CancelToken())
    assert third.parsed_paths == [] and third.unchanged == 2000 - len(deleted)
    hits = search(
        pool.get(), "fts", [folder_source.library_id], build_query("修改后的内容 1999"), 5
    )
    assert (
        hits
        and documents.known(pool.get(), folder_source.id)["part3/doc1999.md"].id
        == hits[0].document_id
    )


def test_a_web_page_keeps_its_words_together_and_its_text_outside_paragraphs(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    """Bold labels and links read as written ("绝密 ：" was stored and shown), and text held in
    divisions beside a paragraph is kept and found (it was dropped)."""
    (folder / "security.html").write_text(
        "<html><body><h1>数据分级</h1><ul><li><strong>绝密</strong>：只有总经理可见。</li>"
        "<li><b>Confidential</b>: managers, <em>not</em> staff.</li></ul>"
        "<p>请联系<a href='x'>IT 服务台</a>（分机 <code>8001</code>）。</p>"
        "<div class='note'>笔记本电脑丢失后须在两小时内报告信息安全部。<br>"
        "<span>Lost laptops are reported within two hours.</span></div></body></html>",
        encoding="utf-8",
    )
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 0
    text = "|".join(str(row[0]) for row in rows(pool, "SELECT content FROM chunks"))
    assert "绝密：只有总经理可见。" in text and "Confidential: managers, not staff." in text
    assert "请联系IT 服务台（分机 8001）。" in text
    assert "笔记本电脑丢失后须在两小时内报告信息安全部。" in text
    assert "Lost laptops are reported within two hours." in text
    hits = search(pool.get(), "fts", [folder_source.library_id], build_query("laptops hours"), 5)
    assert hits, "the division's text is found"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4\n1 0 obj <</Type /Catalog", "PDF"),
        ("empty.md", b"", "empty file"),
        ("blank.txt", b"   \n\n  ", "empty file"),
        ("binary.txt", bytes(range(256)) * 40, "binary"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "Word document"),
    ],
)
def test_bad_files_fail_alone_with_a_reason(
    pool: ConnectionPool,
    folder: Path,
    folder_source: SourceRow,
    name: str,
    content: bytes,
    reason: str,
) -> None:
    (folder / "good.md").write_text("# Good\n\nThis one is fine.\n", encoding="utf-8")
    (folder / name).write_bytes(content)
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert (report.processed, report.failed) == (1, 1)
    docs, _ = documents.page(pool.get(), folder_source.library_id, 0, 10, "failed")
    assert [d.path for d in docs] == [name]
    assert reason.lower() in (docs[0].error or "").lower()
    assert docs[0].status.parse == "failed"
    summary = documents.summary(pool.get(), folder_source.library_id)
    assert (summary.documents, summary.fulltext_usable, summary.failed) == (2, 1, 1)


def test_oversized_file_fails_without_being_read(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    with open(folder / "huge.txt", "wb") as fh:
        fh.truncate(60 * 1024 * 1024)  # sparse: 60 MB on paper
    (folder / "ok.txt").write_text("fine", encoding="utf-8")
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 1 and report.processed == 1
    docs, _ = documents.page(pool.get(), folder_source.library_id, 0, 10, "failed")
    assert "too large (60.0 MB" in (docs[0].error or "")


#: Without the capabilities that let root read any file, as a person's account is.
AS_A_PERSON = [
    "setpriv",
    "--inh-caps=-dac_override,-dac_read_search",
    "--bounding-set=-dac_override,-dac_read_search",
]


def reads_any_file(folder: Path) -> bool:
    """Whether this process reads a file whose permissions forbid it (root does)."""
    probe = folder / ".probe"
    probe.write_text("x", encoding="utf-8")
    probe.chmod(0)
    try:
        probe.read_bytes()
    except PermissionError:
        return False
    finally:
        probe.unlink()
    return True


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unreadable_file_fails_alone(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, request: pytest.FixtureRequest
) -> None:
    if reads_any_file(folder):
        # the tests run as root here (root reads any file, and this test was always skipped):
        # run it again without root's power to read anything, as a person's account is
        probe = [*AS_A_PERSON, "true"]
        if shutil.which("setpriv") is None or subprocess.run(probe, check=False).returncode:
            pytest.skip("root reads any file, and setpriv cannot take that power away here")
        test = f"{Path(__file__)}::{request.node.name}"
        ran = subprocess.run(
            [*AS_A_PERSON, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout[-2000:]
        return
    locked = folder / "locked.md"
    locked.write_text("secret", encoding="utf-8")
    locked.chmod(0)
    (folder / "ok.md").write_text("fine", encoding="utf-8")
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 1 and report.processed == 1
    docs, _ = documents.page(pool.get(), folder_source.library_id, 0, 10, "failed")
    assert docs[0].path == "locked.md"
    assert docs[0].error == "the file cannot be read (permission denied)"


def test_every_format_parses_with_locators(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("# 标题\n\n## 小节\n\n正文内容在这里。\n", encoding="utf-8")
    (folder / "b.txt").write_bytes("国标编码的文本：请假制度。".encode("gb18030"))
    (folder / "c.txt").write_bytes("UTF-16 文本，带 BOM。".encode("utf-16"))
    (folder / "d.html").write_text(
        "<html><head><title>Page</title><script>var x=1</script></head><body><nav>menu</nav>"
        "<main><h1>Guide</h1><p>Main text of the page.</p></main></body></html>",
        encoding="utf-8",
    )
    (folder / "e.pdf").write_bytes(make_pdf([["Page one text."], ["Page two text."]]))
    (folder / "f.docx").write_bytes(
        make_docx([("h1", "Handbook"), ("p", "Docx body."), ("table", [["k", "v"], ["a", "1"]])])
    )
    (folder / ".hidden.md").write_text("hidden", encoding="utf-8")
    (folder / "archive.zip").write_bytes(b"PK\x03\x04")  # an unsupported type is not read
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 0 and sorted(report.parsed_paths) == [
        "a.md",
        "b.txt",
        "c.txt",
        "d.html",
        "e.pdf",
        "f.docx",
    ]
    chunks = dict(
        rows(
            pool,
            "SELECT d.relative_path, group_concat(c.content, '|') FROM chunks c JOIN documents d ON d.id = c.document_id GROUP BY d.relative_path",
        )
    )
    assert "请假制度" in str(chunks["b.txt"]) and "BOM" in str(chunks["c.txt"])
    assert (
        "Main text" in str(chunks["d.html"])
        and "menu" not in str(chunks["d.html"])
        and "var x" not in str(chunks["d.html"])
    )
    assert "| k | v |" in str(chunks["f.docx"])
    locators = rows(
        pool,
        "SELECT locator FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.relative_path = 'e.pdf'",
    )
    assert [json.loads(str(loc[0])) for loc in locators] == [{"page": 1, "pageEnd": 2}]
    heading = rows(
        pool,
        "SELECT heading_path FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.relative_path = 'a.md'",
    )
    assert heading == [('["标题", "小节"]',)]


def test_include_exclude_and_symlinks_outside(
    pool: ConnectionPool, library_id: str, folder: Path, tmp_path: Path
) -> None:
    (folder / "keep.md").write_text("keep", encoding="utf-8")
    (folder / "drafts").mkdir()
    (folder / "drafts" / "skip.md").write_text("skip", encoding="utf-8")
    (folder / "notes.txt").write_text("notes", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("outside", encoding="utf-8")
    (folder / "link.md").symlink_to(outside)
    (folder / "inner-link.md").symlink_to(folder / "keep.md")
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.md")  # reading it would block the sync forever
    src = sources.add(pool.get(), library_id, "folder", str(folder), ["*.md"], ["drafts/*"], False)
    report = sync_source(pool.get(), src, CancelToken())
    # Links are never followed, not even ones that stay inside (the target is indexed itself).
    assert sorted(report.parsed_paths) == ["keep.md"]


def test_missing_folder_marks_source_unavailable_and_keeps_documents(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("alpha", encoding="utf-8")
    sync_source(pool.get(), folder_source, CancelToken())
    moved = folder.with_name("moved")
    folder.rename(moved)
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.unavailable and "moved or deleted" in report.unavailable
    described = sources.describe(pool.get(), folder_source.library_id)[0]
    assert described.state == "unavailable" and described.document_count == 1
    moved.rename(folder)
    assert sync_source(pool.get(), folder_source, CancelToken()).unavailable is None
    assert sources.describe(pool.get(), folder_source.library_id)[0].state == "ok"


def test_overflow_is_shown_and_nothing_is_truncated_silently(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "MAX_FILES_PER_SOURCE", 5)
    for i in range(8):
        (folder / f"f{i}.md").write_text(f"file {i}", encoding="utf-8")
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert (report.total, report.overflow) == (5, 3)
    described = sources.describe(pool.get(), folder_source.library_id)[0]
    assert described.state == "overflow" and "3 files past the 5-file limit" in (
        described.state_reason or ""
    )
    assert described.file_count == 8
    assert sources.not_imported(pool.get(), folder_source.library_id) == 3
    # two files that sort first push two imported ones past the limit: those stay in the
    # library (they are on disk), so 2 more documents and still 3 files not imported — of 10
    # (it said 5 not imported beside 7 documents; a helper's try with 2,709 files)
    for name in ("a0.md", "a1.md"):
        (folder / name).write_text(name, encoding="utf-8")
    again = sync_source(pool.get(), folder_source, CancelToken())
    held = rows(pool, "SELECT count(*) FROM documents")[0][0]
    assert (held, again.overflow) == (7, 3)
    assert sources.not_imported(pool.get(), folder_source.library_id) == 3
    described = sources.describe(pool.get(), folder_source.library_id)[0]
    assert "3 files past the 5-file limit" in (described.state_reason or "")


def test_cancel_stops_between_documents_leaving_each_whole(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    write_corpus(folder, 40)
    token = CancelToken()

    def progress(done: int, total: int, current: str | None, failed: int) -> None:
        if done == 10:
            token.cancel()

    with pytest.raises(CancelledError):
        sync_source(pool.get(), folder_source, token, progress)
    docs = rows(pool, "SELECT id, parse_status FROM documents")
    assert len(docs) == 10 and all(status == "done" for _id, status in docs)
    for doc_id, _s in docs:
        assert rows(pool, "SELECT count(*) FROM chunks WHERE document_id = ?", doc_id)[0][0] >= 1


def test_chunk_ids_stay_stable_across_resync_of_an_edited_file(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    path = folder / "policy.md"
    path.write_text("# P\n\n## A\n\nSection A text.\n\n## B\n\nSection B text.\n", encoding="utf-8")
    sync_source(pool.get(), folder_source, CancelToken())
    before = dict(rows(pool, "SELECT content, id FROM chunks"))
    path.write_text(
        "# P\n\n## A\n\nSection A text.\n\n## B\n\nSection B changed.\n", encoding="utf-8"
    )
    sync_source(pool.get(), folder_source, CancelToken())
    after = dict(rows(pool, "SELECT content, id FROM chunks"))
    assert after["Section A text."] == before["Section A text."]
    assert "Section B text." not in after
