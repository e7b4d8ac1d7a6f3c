"""The closest piece of the first results (``retrieval/closeness.py``) for the bundled model's
dumps (``tune_retrieval.py dump --provider local``): reads each question's first
``closeness.MAX_RESULTS`` results, in the shipped order, from the library ``eval --work-dir``
imported, embeds their pieces with the product's own function and writes each one's best
similarity into the dump (``candidates[id]["closest"]``), where ``tune_relevance.py`` reads it.
Then prints how well the first result's closest piece separates the questions whose first result
answers from those the library cannot answer (AUC), beside the whole passage's margin, and how
long the reading took per question (p50, one core, nothing cached).

    .venv/bin/python bench/closeness.py /tmp/dumps-local/cmrc2018-trial-noanswer.pickle \
        --dataset ../shared/benchmarks/cmrc2018-trial-noanswer --work-dir .eval-work

Every unanswerable question and at most ``--answerable`` answerable ones (a fixed sample) are
read; the others keep no reading (the relevance then reads the whole passage's margin).
"""

from __future__ import annotations

import argparse
import pickle
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from goodbuddy_kb.evaluation.dataset import load
from goodbuddy_kb.evaluation.runner import data_dir_for
from goodbuddy_kb.main_process.embeddings.local import LocalE5Provider
from goodbuddy_kb.main_process.retrieval import closeness
from tune_relevance import ranked_rows  # type: ignore[import-not-found]


def auc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return float("nan")
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def read(dump: Path, folder: Path, work_dir: Path, answerable: int) -> None:
    dataset = load(folder)
    with dump.open("rb") as fh:
        data: dict[str, Any] = pickle.load(fh)
    texts = {q.id: q.text[:4000] for q in dataset.queries}
    db = data_dir_for(work_dir, dataset, "local") / "data" / "goodbuddy-kb.sqlite3"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    provider = LocalE5Provider(lanes=1)
    records = data["records"]
    some = [r for r in records if r["relevant"]]
    random.Random(7).shuffle(some)
    chosen = [r for r in records if not r["relevant"]] + some[:answerable]
    took: list[float] = []
    top: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for rec in chosen:
        rows = ranked_rows(rec, "bundled", True)[: closeness.MAX_RESULTS]
        if not rows:
            continue
        contents = [
            conn.execute("SELECT content FROM chunks WHERE id = ?", (r["id"],)).fetchone()[0]
            for r in rows
        ]
        question = provider.embed_query(texts[rec["id"]])
        closeness._cache.clear()
        started = time.perf_counter()
        found = closeness.closest(provider, question, contents)
        took.append((time.perf_counter() - started) * 1000)
        for row, value in zip(rows, found, strict=True):
            rec["candidates"][row["id"]]["closest"] = value
        first, mean = rows[0], rec["background"][0]
        answers = not rec["relevant"] or first["cand"]["label"]
        if found[0] is not None and first["margin"] is not None and answers:
            top[bool(rec["relevant"])].append((found[0] - mean, first["margin"]))
    with dump.open("wb") as fh:
        pickle.dump(data, fh)
    yes, no = top[True], top[False]
    print(
        f"{data['name']}: {len(chosen)} questions read, p50 {statistics.median(took):.0f} ms;"
        f" first result answers ({len(yes)}) against unanswerable ({len(no)}): AUC closest piece"
        f" {auc([a for a, _ in yes], [a for a, _ in no]):.3f}, whole passage"
        f" {auc([b for _, b in yes], [b for _, b in no]):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--dataset", type=Path, action="append", required=True)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--answerable", type=int, default=300)
    args = parser.parse_args()
    folders = {load(f).name: f for f in args.dataset}
    for dump in args.dumps:
        with dump.open("rb") as fh:
            name = pickle.load(fh)["name"]
        if name not in folders:
            print(f"skip {dump}: no --dataset named {name}", file=sys.stderr)
            continue
        read(dump, folders[name], args.work_dir, args.answerable)


if __name__ == "__main__":
    main()
