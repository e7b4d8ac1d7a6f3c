"""Local OCR over real files, a migrated database and the bundled recogniser: scanned PDFs
and images become searchable with page locators; cancel, corrupt files, OCR off, rebuild.

The fixtures are rendered at test time (``tests/ocrgen.py``); a page takes a few seconds.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import onnxruntime
import pytest

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.ocr import engine
from goodbuddy_kb.main_process.ocr.layout import Line, paragraphs
from goodbuddy_kb.main_process.ocr.run import run_ocr
from goodbuddy_kb.main_process.ocr.stage import OcrLimits
from goodbuddy_kb.main_process.onnx_options import NO_SPINNING
from goodbuddy_kb.main_process.parsing.office import usable_text
from goodbuddy_kb.main_process.rebuild import rebuild_document
from goodbuddy_kb.main_process.storage import documents, libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.ocrgen import (
    NO_CJK_FONT,
    character_accuracy,
    cjk_font,
    image_only_pdf,
    page_lines,
    png,
)

Progress = list[tuple[int, int, str | None, int]]


def recorder(calls: Progress) -> object:
    return lambda done, total, current, failed: calls.append((done, total, current, failed))


@pytest.fixture
def kb(pool: ConnectionPool, tmp_path: Path) -> tuple[str, Path, sources.SourceRow]:
    folder = tmp_path / "scans"
    folder.mkdir()
    conn = pool.get()
    library_id = libraries.create(conn, "Scans").id
    source = sources.add(conn, library_id, "folder", str(folder), [], [], False)
    return library_id, folder, source


def doc(pool: ConnectionPool, library_id: str, path: str) -> documents.Document:
    docs, _ = documents.page(pool.get(), library_id, 0, 100, "all")
    return next(d for d in docs if d.path == path)


def chunks_of(pool: ConnectionPool, path: str) -> list[tuple[str, dict[str, object]]]:
    rows = pool.get().execute(
        "SELECT c.content, c.locator FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE d.relative_path = ? AND c.role != 'parent' ORDER BY c.ordinal",
        (path,),
    )
    return [(r[0], json.loads(r[1])) for r in rows]


def hit_pages(pool: ConnectionPool, library_id: str, phrase: str) -> list[range | None]:
    """The page range each hit's locator names (chunks may span pages: ``p.1–2``)."""
    channel = "cjk" if any("\u4e00" <= ch <= "\u9fff" for ch in phrase) else "fts"
    hits = search(pool.get(), channel, [library_id], build_query(phrase), 5)
    pages: list[range | None] = []
    for hit in hits:
        row = pool.get().execute("SELECT locator FROM chunks WHERE seq = ?", (hit.seq,)).fetchone()
        locator = json.loads(row[0])
        first = locator.get("page")
        pages.append(None if first is None else range(first, locator.get("pageEnd", first) + 1))
    return pages


def test_lines_become_rows_and_paragraphs_in_reading_order() -> None:
    h = 30.0
    lines = [
        Line("second half", 0.9, 400, 100, 700, 100 + h),  # same row, to the right
        Line("First row", 0.9, 50, 102, 350, 102 + h),
        Line("continues here", 0.95, 50, 140, 400, 140 + h),  # next row, small gap
        Line("新的段落", 0.6, 50, 260, 200, 260 + h),  # large gap: a new paragraph
        Line("继续", 0.7, 50, 298, 120, 298 + h),
    ]
    result = paragraphs(lines)
    assert [p.text for p in result] == [
        "First row second half continues here",
        "新的段落继续",  # no space between CJK characters
    ]


def test_text_layers_that_are_garbage_are_treated_as_absent() -> None:
    assert usable_text("Expense claims must be filed within thirty days.")
    assert usable_text("差旅费用须在三十日内提交。报销")
    assert not usable_text("")
    assert not usable_text("  3  ")
    assert not usable_text("(cid:12)(cid:44)(cid:3)(cid:99)(cid:7)(cid:8)(cid:1)(cid:2)(cid:5) ab")
    assert not usable_text("\ue000\ue001\ue002\ue003\ue004\ue005 abcdefgh \ufffd\ufffd\ufffd\ufffd")


@pytest.mark.slow
def test_scanned_pdf_and_png_become_searchable_with_page_locators(
    pool: ConnectionPool,
    kb: tuple[str, Path, sources.SourceRow],
    capsys: pytest.CaptureFixture[str],
) -> None:
    library_id, folder, source = kb
    (folder / "notice.pdf").write_bytes(image_only_pdf([page_lines(1), page_lines(2)]))
    (folder / "slide.png").write_bytes(png(["Board meeting approves the new travel policy."]))
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 50)
    (folder / "plain.md").write_text("# Plain\n\nA text note about parking permits.\n")
    conn = pool.get()

    report = sync_source(conn, source, CancelToken())
    assert (report.processed, report.ocr_pending, report.failed) == (1, 2, 1)
    # the text document is searchable before any OCR ran; scans wait, never look ready
    assert hit_pages(pool, library_id, "parking permits") == [None]
    assert doc(pool, library_id, "notice.pdf").ocr is not None
    assert doc(pool, library_id, "notice.pdf").ocr.status == "pending"  # type: ignore[union-attr]
    assert doc(pool, library_id, "notice.pdf").status.parse == "pending"
    broken = doc(pool, library_id, "broken.png")
    assert broken.status.parse == "failed" and "image could not be read" in (broken.error or "")
    assert broken.error_code == "ocr.image_unreadable"  # a per-file failure, with its code
    assert [w.relative_path for w in documents.ocr_waiting(conn, library_id)] == [
        "notice.pdf",
        "slide.png",
    ]
    assert documents.summary(conn, library_id).pending >= 2  # scans never count as ready

    calls: Progress = []
    ocr = run_ocr(conn, library_id, CancelToken(), recorder(calls))  # type: ignore[arg-type]
    assert (ocr.documents, ocr.succeeded, ocr.failed) == (2, 2, 0)
    assert (1, 2, "notice.pdf", 0) in calls and (2, 2, "notice.pdf", 0) in calls  # pages

    notice = doc(pool, library_id, "notice.pdf")
    assert notice.status.parse == "done" and notice.status.fulltext == "done"
    assert notice.ocr is not None and notice.ocr.status == "done" and notice.ocr.pages == 2
    assert notice.ocr.mean_confidence is not None and notice.ocr.mean_confidence > 0.8
    # the two short pages share one chunk: its locator spans them (p.1–2)
    assert 2 in hit_pages(pool, library_id, "quarterly budget review")[0]  # type: ignore[operator]
    assert 1 in hit_pages(pool, library_id, "filed within thirty days")[0]  # type: ignore[operator]
    assert hit_pages(pool, library_id, "travel policy") == [range(1, 2)]
    pieces = chunks_of(pool, "notice.pdf")
    assert pieces and all(loc.get("ocr") is True for _, loc in pieces)
    assert pieces[0][1]["page"] == 1 and pieces[-1][1].get("pageEnd", pieces[-1][1]["page"]) == 2
    expected = "".join(page_lines(1) + page_lines(2))
    accuracy = character_accuracy(expected, "".join(c for c, _ in pieces))
    if cjk_font() is not None:
        assert 1 in hit_pages(pool, library_id, "差旅费用")[0]  # type: ignore[operator]
        assert 2 in hit_pages(pool, library_id, "秘书处统一归档")[0]  # type: ignore[operator]
    with capsys.disabled():
        note = "" if cjk_font() else f" ({NO_CJK_FONT})"
        print(
            f"\nOCR character accuracy on the generated notice ({len(expected)} characters):"
            f" {accuracy:.3f}; mean confidence {notice.ocr.mean_confidence}{note}"
        )
    assert accuracy >= 0.9
    assert documents.ocr_waiting(conn, library_id) == []
    # No CPU burnt after the pages: the engine's ONNX Runtime sessions do not spin.
    sessions = [s for s in gc.get_objects() if isinstance(s, onnxruntime.InferenceSession)]
    assert sessions and all(
        s.get_session_options().get_session_config_entry(key) == "0"
        for s in sessions
        for key in NO_SPINNING
    )


@pytest.mark.slow
def test_cancel_between_pages_keeps_the_document_pending(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    (folder / "two.pdf").write_bytes(image_only_pdf([["Page one of two."], ["Page two of two."]]))
    conn = pool.get()
    sync_source(conn, source, CancelToken())
    token = CancelToken()
    calls: Progress = []

    def progress(done: int, total: int, current: str | None, failed: int) -> None:
        calls.append((done, total, current, failed))
        if done == 1:
            token.cancel()  # the user presses Cancel while page 2 waits

    with pytest.raises(CancelledError):
        run_ocr(conn, library_id, token, progress)
    assert (1, 2, "two.pdf", 0) in calls and (2, 2, "two.pdf", 0) not in calls
    assert calls[-1] == (0, 1, None, 0)  # the cancelled task ends counted in documents
    two = doc(pool, library_id, "two.pdf")
    assert two.ocr is not None and two.ocr.status == "pending" and two.chunk_count == 0
    # the next sync leaves it to the OCR task again (it is not "unchanged and done")
    assert sync_source(conn, source, CancelToken()).ocr_pending == 1


def test_ocr_off_says_so_and_switching_it_on_queues_the_scans(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    conn = pool.get()
    libraries.update_settings(conn, library_id, None, None, ocr_enabled=False)
    assert libraries.get_settings(conn, library_id).ocr_enabled is False
    (folder / "scan.png").write_bytes(png(["Scanned words"]))
    report = sync_source(conn, source, CancelToken())
    assert (report.ocr_pending, report.failed) == (0, 1)
    scan = doc(pool, library_id, "scan.png")
    assert scan.ocr is not None and scan.ocr.status == "off"
    assert scan.status.parse == "failed" and "OCR, which is off" in (scan.error or "")
    # the reason travels as a code (worded in zh-CN and en by the GUI)
    assert scan.error_code == "ocr.off" and scan.ocr.reason_code == "ocr.off"
    assert documents.summary(conn, library_id).pending == 0  # it never looks like it waits
    failed, _ = documents.page(conn, library_id, 0, 10, "failed")
    assert [d.path for d in failed] == ["scan.png"]
    libraries.update_settings(conn, library_id, None, None, ocr_enabled=True)
    assert [w.relative_path for w in documents.ocr_waiting(conn, library_id)] == ["scan.png"]
    scan = doc(pool, library_id, "scan.png")
    assert scan.ocr is not None and scan.ocr.status == "pending"
    # it waits again: no stale "OCR is off" failure beside the running OCR
    assert (scan.status.parse, scan.status.fulltext, scan.error) == ("pending", "pending", None)
    assert documents.summary(conn, library_id).failed == 0


@pytest.mark.slow
def test_a_failed_ocr_document_is_retried_by_a_rebuild(
    pool: ConnectionPool, data_dir: Path, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    conn = pool.get()
    (folder / "memo.png").write_bytes(png(["Retry the recognition please."]))
    sync_source(conn, source, CancelToken())
    memo = doc(pool, library_id, "memo.png")
    # what an OCR failure leaves (the engine's failure reasons are tested by hand: the
    # bundled models cannot be removed from a test)
    documents.store_failed(
        conn, library_id, source.id, "memo.png", "memo", "", 0, "OCR failed (RuntimeError)"
    )
    documents.set_ocr_status(conn, memo.id, "failed", "OCR failed (RuntimeError)")
    failed = doc(pool, library_id, "memo.png")
    assert failed.ocr is not None and failed.ocr.status == "failed"
    assert documents.summary(conn, library_id).failed == 1
    outcome = rebuild_document(conn, data_dir, library_id, memo.id, None, CancelToken())
    assert outcome.ok, outcome.error
    memo = doc(pool, library_id, "memo.png")
    assert memo.ocr is not None and memo.ocr.status == "done" and memo.ocr.reason is None
    assert hit_pages(pool, library_id, "recognition") == [range(1, 2)]


def test_chunks_from_ocr_pages_are_marked_with_their_low_confidence_lines() -> None:
    from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
    from goodbuddy_kb.main_process.chunking import chunk_document
    from goodbuddy_kb.main_process.ocr.stage import OcrNote, mark_drafts
    from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, Section

    body = "Paragraph text that repeats to fill a page of the document. " * 30
    parsed = ParsedDocument(
        "scan",
        "application/pdf",
        [
            Section(body + "A text-layer line.", "paragraph", (), Locator(page=1)),
            Section(body + "Smudged 1O0 totaI", "paragraph", (), Locator(page=2)),
            Section(body + "Clear final words.", "paragraph", (), Locator(page=3)),
        ],
        ocr_pages=(2, 3),
        page_count=3,
    )
    note = OcrNote(
        low_confidence=[{"page": 2, "text": "Smudged 1O0 totaI", "confidence": 0.41}],
        low_confidence_count=1,
    )
    drafts = chunk_document(parsed, "0" * 32, KnowledgeChunkingSettings(), contextual=False)
    marked = mark_drafts(drafts, parsed.ocr_pages, note)
    by_page = {d.locator["page"]: d.locator for d in marked}
    assert "ocr" not in by_page[1]  # a text-layer page is not OCR text
    assert by_page[2]["ocr"] is True and by_page[2]["lowConfidence"] == ["Smudged 1O0 totaI"]
    assert by_page[3]["ocr"] is True and "lowConfidence" not in by_page[3]
    assert [d.content for d in marked] == [d.content for d in drafts]  # text unchanged


@pytest.mark.slow
def test_a_document_over_the_page_cap_is_recognised_up_to_the_cap_and_says_so(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    pages = [["Alpha page mentions harbour cranes."], ["Beta page mentions wind turbines."]]
    pages.append(["Gamma page mentions copper mines."])
    (folder / "long.pdf").write_bytes(image_only_pdf(pages))
    conn = pool.get()
    sync_source(conn, source, CancelToken())
    calls: Progress = []
    report = run_ocr(conn, library_id, CancelToken(), recorder(calls), OcrLimits(max_pages=2))
    assert (report.succeeded, report.failed) == (1, 0)
    assert (2, 2, "long.pdf", 0) in calls and not any(total == 3 for _, total, _, _ in calls)
    long = doc(pool, library_id, "long.pdf")
    assert long.ocr is not None and long.ocr.status == "done"
    assert (long.ocr.pages, long.ocr.skipped_pages) == (2, 1)
    assert long.ocr.skip_reason_code == "ocr.page_cap"
    assert long.ocr.skip_reason_params == {"limit": "2"}
    assert hit_pages(pool, library_id, "harbour cranes")
    assert hit_pages(pool, library_id, "wind turbines")
    assert hit_pages(pool, library_id, "copper mines") == []  # past the cap: not read
    assert documents.ocr_waiting(conn, library_id) == []  # done, not retried forever


@pytest.mark.slow
def test_a_time_budget_overrun_stops_between_pages_with_a_clear_status(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    pages = [["First page about orchard irrigation."], ["Second page about glacier melt."]]
    (folder / "slow.pdf").write_bytes(image_only_pdf(pages))
    conn = pool.get()
    sync_source(conn, source, CancelToken())
    calls: Progress = []
    # a budget already spent when page 1 ends: the page being read finishes, page 2 is not begun
    report = run_ocr(conn, library_id, CancelToken(), recorder(calls), OcrLimits(budget_s=0.0))
    assert (report.succeeded, report.failed) == (1, 0)
    assert (1, 2, "slow.pdf", 0) in calls and (2, 2, "slow.pdf", 0) not in calls
    slow = doc(pool, library_id, "slow.pdf")
    assert slow.ocr is not None and slow.ocr.status == "done"
    assert (slow.ocr.pages, slow.ocr.skipped_pages) == (1, 1)
    assert slow.ocr.skip_reason_code == "ocr.time_budget"
    assert slow.ocr.skip_reason_params["page"] == "1"
    assert slow.ocr.skip_reason == "the OCR time budget (0 min) ran out after page 1"
    assert hit_pages(pool, library_id, "orchard irrigation") == [range(1, 2)]
    assert hit_pages(pool, library_id, "glacier melt") == []


@pytest.mark.slow
def test_a_file_corrupted_before_its_ocr_fails_alone(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    library_id, folder, source = kb
    (folder / "a-good.png").write_bytes(png(["Lighthouse keepers log the weather."]))
    (folder / "b-torn.png").write_bytes(png(["This scan will be torn."]))
    conn = pool.get()
    assert sync_source(conn, source, CancelToken()).ocr_pending == 2
    # the file is damaged after the sync saw it and before the OCR task reads it
    (folder / "b-torn.png").write_bytes((folder / "b-torn.png").read_bytes()[:200])
    report = run_ocr(conn, library_id, CancelToken(), recorder([]))
    assert (report.documents, report.succeeded, report.failed) == (2, 1, 1)
    torn = doc(pool, library_id, "b-torn.png")
    assert torn.ocr is not None and torn.ocr.status == "failed"
    assert torn.ocr.reason_code == "ocr.image_unreadable"
    assert torn.status.parse == "failed" and torn.error_code == "ocr.image_unreadable"
    assert hit_pages(pool, library_id, "lighthouse keepers") == [range(1, 2)]
    # the task's error names the first failure, as a code with its nested reason
    error = report.error()
    assert error is not None and error.startswith("OCR failed for documents: 1 (first: b-torn.png")
    from goodbuddy_kb.contracts.messages import classify

    coded = classify(error)
    assert coded is not None and coded.code == "ocr.task_failed"
    assert classify(coded.params["reason"]).code == "ocr.image_unreadable"  # type: ignore[union-attr]


@pytest.mark.slow
def test_ocr_unavailable_is_a_visible_state_that_a_rebuild_retries(
    pool: ConnectionPool,
    data_dir: Path,
    kb: tuple[str, Path, sources.SourceRow],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library_id, folder, source = kb
    (folder / "memo.png").write_bytes(png(["Unavailable for now."]))
    conn = pool.get()
    sync_source(conn, source, CancelToken())
    # an installation whose recognition model is missing (the engine is not loaded yet)
    monkeypatch.setattr(engine, "_engine", [])
    monkeypatch.setitem(engine.MODEL_FILES, "Rec.model_path", "missing-rec.onnx")
    report = run_ocr(conn, library_id, CancelToken(), recorder([]))
    assert (report.succeeded, report.failed) == (0, 1)
    memo = doc(pool, library_id, "memo.png")
    assert memo.ocr is not None and memo.ocr.status == "failed"
    assert memo.ocr.reason_code == "ocr.unavailable_models"
    assert memo.ocr.reason_params == {"files": "missing-rec.onnx"}
    assert documents.summary(conn, library_id).failed == 1
    failed, _ = documents.page(conn, library_id, 0, 10, "failed")
    assert [d.path for d in failed] == ["memo.png"]
    monkeypatch.undo()  # the models are back
    outcome = rebuild_document(conn, data_dir, library_id, memo.id, None, CancelToken())
    assert outcome.ok, outcome.error
    assert doc(pool, library_id, "memo.png").ocr.status == "done"  # type: ignore[union-attr]
    assert hit_pages(pool, library_id, "unavailable") == [range(1, 2)]


def test_a_scanned_attachment_is_read_by_ocr_with_its_locator_back_to_the_message(
    pool: ConnectionPool, kb: tuple[str, Path, sources.SourceRow]
) -> None:
    from tests.bookgen import make_eml

    library_id, folder, source = kb
    scan = png(["Board meeting approves the new travel policy."])
    (folder / "minutes.eml").write_bytes(
        make_eml("Board minutes", "The scan is attached.", attachments=[("scan.png", scan)])
    )
    conn = pool.get()
    report = sync_source(conn, source, CancelToken())
    assert (report.processed, report.ocr_pending) == (1, 1)
    assert [w.relative_path for w in documents.ocr_waiting(conn, library_id)] == [
        "minutes.eml//scan.png"
    ]
    ocr = run_ocr(conn, library_id, CancelToken(), lambda *_: None)
    assert (ocr.succeeded, ocr.failed) == (1, 0)
    (content, locator), *_ = chunks_of(pool, "minutes.eml//scan.png")
    assert "travel policy" in content.lower()
    assert locator["message"] == "Board minutes" and locator["ocr"] is True
