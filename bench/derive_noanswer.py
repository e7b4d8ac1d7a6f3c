"""Derives a no-answer development set from a question-answering set, the way
``cmrc2018-trial-noanswer`` was made: ``--remove`` documents (evenly spaced, deterministic) are
taken out of the corpus, one question of each is kept with ``relevant: []`` (the corpus cannot
answer it), plus as many answerable questions over the remaining documents.

    .venv/bin/python bench/derive_noanswer.py ../shared/benchmarks/drcd-dev /tmp/drcd-dev-noanswer
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


def derive(source: Path, target: Path, remove: int) -> None:
    queries = [json.loads(line) for line in (source / "queries.jsonl").open(encoding="utf-8")]
    docs = sorted(
        p.relative_to(source / "corpus").as_posix()
        for p in (source / "corpus").rglob("*")
        if p.is_file()
    )
    asked = {r["doc"] for q in queries for r in q["relevant"]}
    candidates = [d for d in docs if d in asked]
    step = max(1, len(candidates) // remove)
    removed = set(candidates[::step][:remove])
    unanswerable, answerable = [], []
    taken: set[str] = set()
    for q in queries:
        mine = {r["doc"] for r in q["relevant"]}
        if mine and mine <= removed and not (mine & taken):
            taken |= mine
            unanswerable.append({**q, "relevant": [], "id": q["id"] + "-removed"})
        elif mine and not (mine & removed):
            answerable.append(q)
    step = max(1, len(answerable) // len(unanswerable))
    answerable = answerable[::step][: len(unanswerable)]
    if target.exists():
        shutil.rmtree(target)
    (target / "corpus").mkdir(parents=True)
    for d in docs:
        if d not in removed:
            out = target / "corpus" / d
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / "corpus" / d, out)
    with (target / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in unanswerable + answerable:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    meta = json.loads((source / "dataset.json").read_text(encoding="utf-8"))
    meta.update(
        name=f"{meta['name']}-noanswer",
        documents=len(docs) - len(removed),
        queries=len(unanswerable) + len(answerable),
        note=f"{len(unanswerable)} questions whose article was removed (relevant = []) and "
        f"{len(answerable)} answerable ones; derived by bench/derive_noanswer.py",
    )
    (target / "dataset.json").write_text(
        json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    print(
        f"{meta['name']}: {meta['documents']} documents, {len(unanswerable)} + {len(answerable)} questions"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--remove", type=int, default=80)
    args = parser.parse_args()
    derive(args.source, args.target, args.remove)


if __name__ == "__main__":
    main()
