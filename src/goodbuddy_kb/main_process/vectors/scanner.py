"""The paged vector scanner: top-K by cosine similarity in bounded memory.

Up to :data:`EXACT_MAX_ROWS` rows it pages through a version's float32 file by row (a stable
cursor), scores each page with one numpy matrix-vector product and keeps only the best so far.
Above that, a first pass over the version's int8 copy (:mod:`.int8_file`, a quarter of the
bytes) picks the :data:`RESCORED` best beyond K by approximate score, and only those rows are
read from the float32 file and rescored exactly: the result carries exact scores, and its top K
is the exact scan's unless a row outside the candidates beats one inside by more than the
int8 error (bench/retrieve.py measures the agreement). Dead rows are skipped in both passes.
The cancel token is checked between pages. Every live row's score (approximate in the first
pass, within ~0.001) is summed, so the caller learns the query's background similarity over the
whole library (mean and spread) at no extra pass. Memory is one page plus the running best,
whatever the library's size (the int8 copy is mapped and its pages dropped as they are read);
there is no candidate ceiling anywhere.
"""

from __future__ import annotations

import mmap
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.vectors import int8_file, int8_kernel, int8_packed

#: Rows scored per page (8,192 × 384 float32 = 12 MiB of page cache touched per step).
PAGE_ROWS = 8_192
#: Largest version scanned exactly in float32; larger ones take the int8 first pass. Measured
#: (bench/vector_scan.py, the same run): the int8 pass was 1.5× faster at 5,000 rows and 4× at
#: 20,000 and above; up to 20,000 rows the exact scan costs a few milliseconds and its ranking
#: is exact by construction, so small libraries keep it.
EXACT_MAX_ROWS = 20_000
#: Candidates beyond K rescored exactly after the int8 first pass.
RESCORED = 300


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


class _Best:
    """The running best ``k`` rows and the score a new row must beat to enter them."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.rows = np.zeros(0, dtype=np.int64)
        self.scores = np.zeros(0, dtype=np.float32)
        self.floor = -np.inf

    def offer(self, rows: npt.NDArray[np.int64], scores: npt.NDArray[np.float32]) -> None:
        if len(self.rows) >= self.k:  # rows come in ascending order: a tie loses to the earlier
            entering = np.flatnonzero(scores > self.floor)
            if not len(entering):
                return
            rows, scores = rows[entering], scores[entering]
        page_rows, page_scores = _top(rows, scores, self.k)
        self.rows, self.scores = _top(
            np.concatenate([self.rows, page_rows]),
            np.concatenate([self.scores, page_scores]),
            self.k,
        )
        if len(self.rows) >= self.k:
            self.floor = float(self.scores.min())


def _live(
    rows: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], dead: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The page's rows and scores without the dead rows (``dead`` sorted)."""
    if len(dead) and len(rows):
        first, last = int(rows[0]), int(rows[-1]) + 1
        lo, hi = np.searchsorted(dead, [first, last])
        if hi > lo:
            keep = np.ones(last - first, dtype=bool)
            keep[dead[lo:hi] - first] = False
            return rows[keep], scores[keep]
    return rows, scores


def _take(
    best: _Best,
    background: _Background,
    dead: npt.NDArray[np.int64],
    first: int,
    scores: npt.NDArray[np.float32],
) -> None:
    """Offer the scores of the consecutive rows from ``first`` (dead rows left out) to the
    running best, and count them in the background."""
    rows, scores = _live(np.arange(first, first + len(scores), dtype=np.int64), scores, dead)
    background.add(scores)
    best.offer(rows, scores)


class _Background:
    """Σ score, Σ score² and the count over every live row scored."""

    def __init__(self) -> None:
        self.total = self.total_sq = 0.0
        self.scored = 0

    def add(self, scores: npt.NDArray[np.float32]) -> None:
        self.total += float(scores.sum(dtype=np.float64))
        self.total_sq += float(np.dot(scores, scores))
        self.scored += len(scores)


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
    if row_count == 0 or k <= 0:
        return ScanResult(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), 0, 0.0)
    if query.shape != (dims,):
        raise ValueError(f"query has {query.shape} dimensions; the index has {dims}")
    q = np.ascontiguousarray(query, dtype=np.float32)
    dead = dead if dead is not None else np.zeros(0, dtype=np.int64)
    background = _Background()
    if row_count <= EXACT_MAX_ROWS or not _int8_ready(path, row_count, dims):
        best = _exact(path, row_count, dims, q, k, cancel, dead, page_rows, background)
    else:
        best = _first_pass(path, row_count, dims, q, k + RESCORED, cancel, dead, background)
        best = _rescored(path, dims, q, k, best)
    order = np.lexsort((best.rows, -best.scores))
    return ScanResult(
        best.rows[order],
        best.scores[order],
        row_count,
        (time.perf_counter() - start) * 1000,
        background.total,
        background.total_sq,
        background.scored,
    )


def _int8_ready(path: Path, row_count: int, dims: int) -> bool:
    """Whether the int8 copy serves ``row_count`` rows. A missing or stale one (a version built
    before the copy existed, or a copy a crash or a full disk left short) is rebuilt in the
    background; until it is, queries take the exact scan."""
    q8 = int8_file.path_for(path)
    if int8_file.covered(q8, dims) >= row_count:
        return True
    int8_file.rebuild_soon(q8, path, dims, row_count)
    return False


def _exact(
    path: Path,
    row_count: int,
    dims: int,
    q: npt.NDArray[np.float32],
    k: int,
    cancel: CancelToken,
    dead: npt.NDArray[np.int64],
    page_rows: int,
    background: _Background,
) -> _Best:
    matrix = np.memmap(path, dtype=np.float32, mode="r", shape=(row_count, dims))
    best = _Best(k)
    try:
        for first in range(0, row_count, page_rows):
            cancel.check()
            last = min(row_count, first + page_rows)
            _take(best, background, dead, first, np.asarray(matrix[first:last] @ q, np.float32))
    finally:
        del matrix
    return best


#: Blocks of the int8 pass whose scores are gathered before the running best is updated
#: (one selection per ~130,000 rows instead of one per block).
OFFER_BLOCKS = 16


def _first_pass(
    path: Path,
    row_count: int,
    dims: int,
    q: npt.NDArray[np.float32],
    k: int,
    cancel: CancelToken,
    dead: npt.NDArray[np.int64],
    background: _Background,
) -> _Best:
    """The ``k`` best rows by the int8 copy's approximate scores: the packed prefix in one run
    (:mod:`.int8_packed`, once it is packed), then the rest block by block from the file."""
    codes_q, scale_q = int8_kernel.quantize_query(q)
    block_rows = int8_file.BLOCK_ROWS
    size = int8_file.block_bytes(dims)
    best = _Best(k)
    q8 = int8_file.path_for(path)
    packed = int8_packed.serving(q8, dims, row_count)
    done = 0
    if packed is not None:
        cancel.check()
        done = min(packed.rows, row_count)
        _take(best, background, dead, 0, packed.scores(codes_q, scale_q)[:done])
    if done >= row_count:
        return best
    group: list[npt.NDArray[np.float32]] = []  # the scores of the blocks since group_first
    group_first = done
    with open(q8, "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        for first in range(done, row_count, block_rows):
            cancel.check()
            block = first // block_rows
            last = min(row_count, first + block_rows)
            offset = int8_file.block_offset(dims, block)
            scales = np.frombuffer(mapped, np.float32, last - first, offset)
            codes = np.frombuffer(mapped, np.int8, dims * block_rows, offset + block_rows * 4)
            dots = int8_kernel.dots(codes_q, codes.reshape(dims, block_rows))[: last - first]
            group.append(np.multiply(dots, scales * np.float32(scale_q), dtype=np.float32))
            del scales, codes
            mapped.madvise(mmap.MADV_DONTNEED, offset, size)  # keep resident memory flat
            if len(group) == OFFER_BLOCKS or last == row_count:
                _take(best, background, dead, group_first, np.concatenate(group))
                group.clear()
                group_first = last
    finally:
        mapped.close()
    return best


def _rescored(
    path: Path,
    dims: int,
    q: npt.NDArray[np.float32],
    k: int,
    candidates: _Best,
) -> _Best:
    """The ``k`` best of the candidates by their exact float32 scores (each row read on its
    own: mapping the float32 file would leave pages around every candidate resident)."""
    rows = np.sort(candidates.rows)
    row_bytes = dims * 4
    fd = os.open(path, os.O_RDONLY)
    try:
        data = b"".join(os.pread(fd, row_bytes, int(row) * row_bytes) for row in rows)
    finally:
        os.close(fd)
    matrix = np.frombuffer(data, dtype=np.float32).reshape(len(rows), dims)
    scores = np.asarray(matrix @ q, dtype=np.float32)
    best = _Best(k)
    best.offer(rows, scores)
    return best
