"""OCR speed (pages per second) and character accuracy on generated scans, for the bundled
engine (RapidOCR 3, PP-OCRv6 small models, what the app ships) and an alternative measured in
the same run: rapidocr-onnxruntime 1.4 (PP-OCRv4 mobile models, also bundled in its wheel).

The pages are rendered here with a CJK font (Chinese and English lines, 144 dpi, as the app
renders PDF pages). ``make bench`` installs the alternative without its dependencies (its
opencv-python would replace the headless OpenCV the app uses); it is skipped if missing.
Run: ``.venv/bin/python bench/ocr.py [pages]``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ocrgen import (
    NO_CJK_FONT,
    PAGES,
    character_accuracy,
    cjk_font,
    is_cjk,
    render_page,
)

from goodbuddy_kb.main_process.ocr.engine import get_engine
from goodbuddy_kb.main_process.ocr.layout import line_from_box, paragraphs

EXTRA = [
    "第五条 年度预算由财务部编制，经总经理办公会审议后执行。",
    "Section 5: the annual budget is prepared by Finance and approved by the board.",
    "合同编号 HT-2026-0418，签订日期 2026 年 4 月 18 日。",
    "Contract HT-2026-0418 was signed on 18 April 2026 in Shanghai.",
]


def generated_pages(count: int) -> list[tuple[np.ndarray[Any, Any], str]]:
    font = cjk_font()
    pool = [*PAGES, EXTRA[:2], EXTRA[2:]]
    pages = []
    for i in range(count):
        lines = [line for line in pool[i % len(pool)] if font or not is_cjk(line)]
        pages.append((np.asarray(render_page(lines)), "".join(lines)))
    return pages


Recognise = Callable[[np.ndarray[Any, Any]], list[tuple[str, float, list[list[float]]]]]


def measure(name: str, load: Callable[[], Recognise], pages: list[tuple[Any, str]]) -> float:
    started = time.perf_counter()
    recognise = load()
    loaded = time.perf_counter() - started
    recognise(pages[0][0])  # warm-up: first-run allocations are not page time
    accuracies = []
    started = time.perf_counter()
    for image, expected in pages:
        lines = [line_from_box(t, s, b) for t, s, b in recognise(image)]
        text = "".join(p.text for p in paragraphs(lines))
        accuracies.append(character_accuracy(expected, text))
    elapsed = time.perf_counter() - started
    rate = len(pages) / elapsed
    print(
        f"{name:<44} {rate:6.3f} pages/s  {elapsed / len(pages):6.2f} s/page"
        f"  accuracy {sum(accuracies) / len(accuracies):.4f}  (load {loaded:.1f} s)"
    )
    return rate


def bundled() -> Recognise:
    engine = get_engine()
    return lambda image: [
        (line.text, line.confidence, [[line.left, line.top], [line.right, line.bottom]])
        for line in engine.recognise(image)
    ]


def alternative() -> Recognise:
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()

    def run(image: np.ndarray[Any, Any]) -> list[tuple[str, float, list[list[float]]]]:
        result, _ = engine(image)
        return [(text, float(score), box) for box, text, score in result or []]

    return run


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    pages = generated_pages(count)
    chars = sum(len("".join(e.split())) for _, e in pages)
    print(
        f"{count} generated pages, {chars} characters, {os.cpu_count()} cores"
        + ("" if cjk_font() else f" — {NO_CJK_FONT}")
    )
    reference = measure("rapidocr 3 PP-OCRv6 small (bundled, chosen)", bundled, pages)
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:
        print("rapidocr-onnxruntime is not installed: alternative skipped (make bench installs it)")
        return
    rate = measure("rapidocr-onnxruntime 1.4 PP-OCRv4 mobile", alternative, pages)
    print(f"speed ratio chosen/alternative: {reference / rate:.2f}")


if __name__ == "__main__":
    main()
