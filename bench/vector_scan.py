"""Vector channel scan: p50 at 10,000, 100,000 and 300,000 chunks × 384 dimensions of the
exact float32 paged scan and of the int8 first pass + exact rescoring (what decides
``scanner.EXACT_MAX_ROWS``; with the share of queries whose top K the two agree on), beside an
in-memory numpy matvec + argpartition and faiss IndexFlatIP on the same data in the same run;
the peak extra memory of one scan (tracemalloc, which sees numpy's buffers); and the bundled
local model's throughput for 200- and 900-character passages.

    .venv/bin/python bench/vector_scan.py [--sizes 10000,100000,300000] [--skip-model]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from _timing import median_ms
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.vectors import int8_file, scanner
from goodbuddy_kb.main_process.vectors.scanner import scan

DIMS = 384
K = 24


def measure(
    n: int, tmp: Path, rng: np.random.Generator, queries: np.ndarray, faiss: object
) -> None:
    matrix = rng.standard_normal((n, DIMS), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    path = tmp / f"{n}.f32"
    path.write_bytes(matrix.tobytes())
    qi = iter(range(10**9))
    int8_file.rebuild(int8_file.path_for(path), path, DIMS, n, CancelToken())

    def paged(threshold: int) -> object:
        scanner.EXACT_MAX_ROWS = threshold
        return scan(path, n, DIMS, queries[next(qi) % 20], K, CancelToken())

    agree = 0
    for q in queries:
        scanner.EXACT_MAX_ROWS = 0
        fast = scan(path, n, DIMS, q, K, CancelToken()).rows.tolist()
        scanner.EXACT_MAX_ROWS = n
        agree += fast == scan(path, n, DIMS, q, K, CancelToken()).rows.tolist()

    def numpy_ref() -> object:
        scores = matrix @ queries[next(qi) % 20]
        top = np.argpartition(-scores, K)[:K]
        return top[np.argsort(-scores[top])]

    paged_ms = median_ms(lambda: paged(n), 15)
    int8_ms = median_ms(lambda: paged(0), 15)
    numpy_ms = median_ms(numpy_ref, 15)
    faiss_ms = float("nan")
    if faiss is not None:
        index = faiss.IndexFlatIP(DIMS)  # type: ignore[attr-defined]
        index.add(matrix)
        faiss_ms = median_ms(lambda: index.search(queries[next(qi) % 20][None, :], K), 15)
    peaks = []
    for threshold in (n, 0):
        scanner.EXACT_MAX_ROWS = threshold
        tracemalloc.start()
        scan(path, n, DIMS, queries[0], K, CancelToken())
        peaks.append(tracemalloc.get_traced_memory()[1] / 1048576)
        tracemalloc.stop()
    print(
        f"{n:>8}{paged_ms:>15.1f}{int8_ms:>10.1f}{agree:>5}/{len(queries)}{numpy_ms:>17.1f}"
        f"{faiss_ms:>10.1f}{paged_ms / numpy_ms:>8.2f}{peaks[0]:>10.1f}{peaks[1]:>9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,10000,20000,50000,100000,300000")
    parser.add_argument("--skip-model", action="store_true")
    args = parser.parse_args()
    try:
        import faiss
    except ImportError:
        faiss = None
    rng = np.random.default_rng(0)
    queries = rng.standard_normal((20, DIMS)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    print(
        f"{'chunks':>8}{'paged scan ms':>15}{'int8 ms':>10}{'agree':>8}{'numpy in-mem ms':>17}"
        f"{'faiss ms':>10}{'ratio':>8}{'peak MiB':>10}{'int8 MiB':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            measure(n, Path(tmp), rng, queries, faiss)
    if not args.skip_model:
        from goodbuddy_kb.main_process.embeddings.local import LocalE5Provider

        provider = LocalE5Provider()
        provider.embed_query("warm up")
        base_zh = "员工因病无法工作的，应在当日上午十点前通知直属主管，并在返岗后三个工作日内补交医院证明。"
        base_en = "The gateway limits each client to a number of requests per minute and answers HTTP 429. "
        for size in (200, 900):
            for name, base in (("zh", base_zh), ("en", base_en)):
                text = (base * 40)[:size]
                count = 16 if size == 200 else 6
                start = time.perf_counter()
                provider.embed_passages([text] * count)
                rate = count / (time.perf_counter() - start)
                print(f"local model, {size}-character {name} passages: {rate:.1f} passages/s")


if __name__ == "__main__":
    main()
