"""The paged vector scanner: exact top-K by cosine similarity in bounded memory.

Pages through a version's float32 file by row (a stable cursor), scores each page with one
numpy matrix-vector product, keeps only the best candidates so far, and checks the cancel token
between pages. It also sums every score it computes, so the caller learns the query's background
similarity over the whole library (mean and spread) at no extra pass. Memory is one page plus the running best, whatever the library's size; there is
no candidate ceiling anywhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.cancel import CancelToken

#: Rows scored per page (8,192 × 384 float32 = 12 MiB of page cache touched per step).
PAGE_ROWS = 8_192


@dataclass(frozen=True)
class ScanResult:
    rows: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float32]
    scanned: int
    elapsed_ms: float
    #: Σ score and Σ score² over every live row scored (the library's background for this query).
    score_sum: float = 0.0
    score_sq_sum: float = 0.0
    scored: int = 0


def _top(
    rows: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], k: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The ``k`` best by score, ties broken by the lower row — deterministic even at the cut."""
    if len(scores) <= k:
        return rows, scores
    threshold = np.partition(scores, len(scores) - k)[len(scores) - k]
    candidates = np.flatnonzero(scores >= threshold)
    order = np.lexsort((rows[candidates], -scores[candidates]))[:k]
    keep = candidates[order]
    return rows[keep], scores[keep]


def scan(
    path: Path,
    row_count: int,
    dims: int,
    query: npt.NDArray[np.float32],
    k: int,
    cancel: CancelToken,
    dead: npt.NDArray[np.int64] | None = None,
    page_rows: int = PAGE_ROWS,
) -> ScanResult:
    """The ``k`` best rows (ties by row) of the first ``row_count`` rows in ``path``."""
    start = time.perf_counter()
    empty_rows = np.zeros(0, dtype=np.int64)
    empty_scores = np.zeros(0, dtype=np.float32)
    if row_count == 0 or k <= 0:
        return ScanResult(empty_rows, empty_scores, 0, 0.0)
    if query.shape != (dims,):
        raise ValueError(f"query has {query.shape} dimensions; the index has {dims}")
    matrix = np.memmap(path, dtype=np.float32, mode="r", shape=(row_count, dims))
    q = np.ascontiguousarray(query, dtype=np.float32)
    best_rows, best_scores = empty_rows, empty_scores
    dead = dead if dead is not None else empty_rows
    total = total_sq = 0.0
    scored = 0
    try:
        for first in range(0, row_count, page_rows):
            cancel.check()
            last = min(row_count, first + page_rows)
            scores = np.asarray(matrix[first:last] @ q, dtype=np.float32)
            rows = np.arange(first, last, dtype=np.int64)
            if len(dead):
                lo, hi = np.searchsorted(dead, [first, last])
                if hi > lo:
                    keep = np.ones(last - first, dtype=bool)
                    keep[dead[lo:hi] - first] = False
                    rows, scores = rows[keep], scores[keep]
            total += float(scores.sum(dtype=np.float64))
            total_sq += float(np.dot(scores, scores))
            scored += len(scores)
            page_rows_top, page_scores_top = _top(rows, scores, k)
            best_rows, best_scores = _top(
                np.concatenate([best_rows, page_rows_top]),
                np.concatenate([best_scores, page_scores_top]),
                k,
            )
    finally:
        del matrix
    order = np.lexsort((best_rows, -best_scores))
    return ScanResult(
        best_rows[order],
        best_scores[order],
        row_count,
        (time.perf_counter() - start) * 1000,
        total,
        total_sq,
        scored,
    )
