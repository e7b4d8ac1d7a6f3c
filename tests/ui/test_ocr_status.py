"""What the document table and the task list say about OCR, in both languages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.ui.documents.columns import ocr_detail, ocr_status
from goodbuddy_kb.ui.i18n import STRINGS, language, set_language
from goodbuddy_kb.ui.tasks.progress import progress, summary


@pytest.fixture(autouse=True)
def in_english() -> Iterator[None]:
    before = language()
    set_language("en")
    yield
    set_language(before)


def document(ocr: c.DocumentOcr | None) -> c.Document:
    return c.Document(
        id="d" * 32,
        library_id="b" * 32,
        source_id="c" * 32,
        path="scan.pdf",
        title="scan",
        media_type="application/pdf",
        size_bytes=10,
        status=c.DocumentStatus(parse="done", fulltext="done", vector="disabled", graph="disabled"),
        error=None,
        chunk_count=1,
        updated_at="2026-11-30T12:00:00",
        ocr=ocr,
    )


def test_document_ocr_column_and_its_note() -> None:
    assert ocr_status(document(None)) == "" and ocr_detail(document(None)) == ""
    done = c.DocumentOcr(
        status="done",
        pages=3,
        mean_confidence=0.934,
        low_confidence_lines=2,
        skipped_pages=1,
        skip_reason=english("ocr.time_budget", {"minutes": "20", "page": "3"}),
    )
    assert ocr_status(document(done)) == "✓ OCR 0.93 ⚠2 · pages left out: 1"
    assert ocr_detail(document(done)) == (
        "Text from OCR: 3 pages, mean confidence 0.93, 2 low-confidence lines;"
        " 1 page not recognised: the OCR time budget (20 min) ran out after page 3"
    )
    capped = done.model_copy(
        update={
            "skipped_pages": 40,
            "skip_reason": None,
            "skip_reason_code": "ocr.page_cap",
            "skip_reason_params": {"limit": "200"},
        }
    )
    assert ocr_detail(document(capped)).endswith(
        "; 40 pages not recognised: only the first 200 scanned pages are recognised (the page cap)"
    )
    off = c.DocumentOcr(status="off", reason=CATALOGUE["ocr.off"])
    assert ocr_status(document(off)) == "– Off"
    assert "turn it on in Settings" in ocr_detail(document(off))
    failed = c.DocumentOcr(
        status="failed",
        reason=english("ocr.page_unrenderable", {"page": 2, "error": "PdfiumError"}),
    )
    assert ocr_status(document(failed)) == "✗ Failed"
    assert ocr_detail(document(failed)) == (
        "page 2 could not be rendered (the file is damaged or not in the expected format)"
        "\nTechnical name: PdfiumError"
    )
    unavailable = c.DocumentOcr(
        status="failed", reason=english("ocr.unavailable_models", {"files": "rec.onnx"})
    )
    set_language("zh")
    assert ocr_status(document(off)) == "– 已关闭"
    assert "文字来自 OCR：3 页" in ocr_detail(document(done))
    assert ocr_detail(document(done)).endswith("1 页未识别：OCR 时间预算（20 分钟）在第 3 页后用完")
    assert ocr_detail(document(capped)).endswith("只识别前 200 个扫描页（页数上限）")
    assert ocr_detail(document(failed)) == (
        "第 2 页无法渲染（文件已损坏或不是预期的格式）\n技术名称：PdfiumError"
    )
    assert ocr_detail(document(unavailable)) == "OCR 不可用：缺少 OCR 模型（rec.onnx）"


def test_a_running_ocr_task_counts_pages() -> None:
    info = t.TaskInfo(
        id="e" * 32,
        library_id="b" * 32,
        source_id=None,
        kind="ocr",
        state="running",
        done=3,
        total=42,
        failed_documents=0,
        current="scans/notice.pdf",
        error=None,
        created_at="2026-11-30T12:00:00",
        finished_at=None,
    )
    assert progress(info) == "OCR 3/42 pages · notice.pdf"
    set_language("zh")
    assert progress(info) == "OCR 3/42 页 · notice.pdf"
    finished = info.model_copy(update={"state": "completed", "done": 2, "total": 2})
    assert progress(finished) == "2/2（100%）"


def test_every_ocr_string_has_both_languages() -> None:
    keys = [k for k in STRINGS if k.startswith(("ocr.", "task.ocr", "task.kind.ocr", "field.ocr"))]
    assert len(keys) >= 10
    assert all(all(text.strip() for text in STRINGS[k]) for k in keys)


def test_a_sync_says_how_many_scans_wait_for_ocr() -> None:
    info = t.TaskInfo(
        id="e" * 32,
        library_id="b" * 32,
        source_id="c" * 32,
        kind="sync",
        state="completed",
        done=3,
        total=3,
        failed_documents=0,
        current=None,
        error=None,
        created_at="2026-11-30T12:00:00",
        finished_at="2026-11-30T12:00:01",
        summary=t.TaskSummary(succeeded=1, ocr_pending=2),
    )
    assert summary(info) == "1 written · 2 waiting for OCR"
    set_language("zh")
    assert summary(info) == "1 个已写入 · 2 个等待 OCR"


def test_a_workbench_hit_names_its_page_range_and_that_it_came_from_ocr() -> None:
    from goodbuddy_kb.contracts import retrieval as r
    from goodbuddy_kb.ui.workbench.results import locator_text

    hit = r.RetrievalResult(
        rank=1,
        chunk_id="a" * 32,
        document_id="d" * 32,
        library_id="b" * 32,
        source_id="c" * 32,
        document_title="notice",
        document_path="notice.pdf",
        heading_path=[],
        locator={"page": 1, "pageEnd": 2, "ocr": True},
        snippet="差旅费用",
        channel_ranks={"cjk": 1},
        vector_similarity=None,
        rrf_score=0.5,
        pre_rerank_rank=1,
        relevance=0.5,
        features={},
    )
    assert locator_text(hit) == "p. 1–2 · OCR"
    assert locator_text(hit.model_copy(update={"locator": {"page": 3}})) == "p. 3"
