"""What a chat's first search hands the model for a question that asks about several things,
with and without the searches of the question's parts (`chat/parts.py`), over the real socket
on a library `eval retrieval` built (its work directory).

    .venv/bin/python bench/question_parts.py --data-dir /tmp/ev/work-local/cmrc2018-trial-local/data \
        --dataset ../shared/benchmarks/cmrc2018-trial [--pairs 200] [--seed 7]

The chat's evidence is the whole question's results above the library's floor, and, with
parts, each part's best ``PART_TOP_K`` above the floor (the runtime's rule). Three kinds of
question, from the data set's own:
- *two questions in one message* (two answerable questions of different documents, joined):
  the share of the two relevant documents the evidence holds, and how often it holds both;
- *one question* (each answerable question as it is): how many are split into parts, and the
  evidence's precision (relevant passages / passages) and recall;
- *no answer* (a no-answer set's questions, when given ``--noanswer``): how often any passage
  is handed over.
The reference is the same run's whole-question search alone (its time too: the parts'
searches come before the model's first word).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from goodbuddy_kb.bridge.launcher import open_session
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import LIBRARY_LIST, RETRIEVE
from goodbuddy_kb.evaluation.dataset import Query, load
from goodbuddy_kb.main_process.chat.parts import PART_TOP_K, question_parts, search_parts


def evidence(client: object, library_id: str, text: str, parts: bool) -> list[str]:
    """The documents of the passages the chat's first search hands over (in order)."""

    def search(query: str, top_k: int | None = None) -> r.KnowledgeRetrievalResponse:
        overrides = r.RetrievalOverrides(top_k=top_k) if top_k else None
        return client.call(  # type: ignore[attr-defined,no-any-return]
            RETRIEVE,
            r.RetrieveRequest(
                library_ids=[library_id], query=query[:MAX_QUERY_CHARACTERS], overrides=overrides
            ),
        )

    whole = search(text)
    found = [whole]
    if parts:
        found += search_parts(text, whole, lambda part: search(part, PART_TOP_K)).responses
    seen: dict[str, str] = {}
    for response in found:
        for x in response.results:
            seen.setdefault(x.chunk_id, x.document_path)
    return list(seen.values())


def main_library(client: object) -> str:
    """The library of the product's default chunking (eval also builds a parent-child one)."""
    listed = client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries  # type: ignore[attr-defined]
    return next(x.id for x in listed if "[" not in x.name)


def joined(a: Query, b: Query) -> str:
    first = a.text.strip()
    if first and first[-1] not in "？?。！!.":
        first += "？" if a.lang == "zh" else "?"
    return f"{first}{'' if a.lang == 'zh' else ' '}{b.text.strip()}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--noanswer-data-dir", type=Path)
    ap.add_argument("--noanswer", type=Path)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--singles", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    dataset = load(args.dataset)
    answerable = [q for q in dataset.queries if q.relevant and q.text.strip()]
    session = open_session(args.data_dir, "bench")
    try:
        lid = main_library(session.client)
        print(f"{dataset.name}: {len(answerable)} answerable questions", flush=True)
        # two questions in one message
        cover: dict[bool, list[float]] = {False: [], True: []}
        took: dict[bool, list[float]] = {False: [], True: []}
        both = {False: 0, True: 0}
        split = 0
        for _ in range(args.pairs):
            a, b = rng.sample(answerable, 2)
            docs = {a.relevant[0].doc, b.relevant[0].doc}
            if len(docs) < 2:
                continue
            text = joined(a, b)
            split += bool(question_parts(text))
            for parts in (False, True):
                started = time.perf_counter()
                got = set(evidence(session.client, lid, text, parts))
                took[parts].append(time.perf_counter() - started)
                cover[parts].append(len(docs & got) / 2)
                both[parts] += docs <= got
        n = len(cover[False])
        print(f"two questions in one message ({n}; split into parts: {split})")
        for parts in (False, True):
            label = "whole + parts" if parts else "whole only   "
            print(
                f"  {label}: relevant documents handed over {statistics.mean(cover[parts]):.3f},"
                f" both {both[parts] / n:.3f}, searching took {statistics.median(took[parts]) * 1000:.0f}"
                " ms (median)"
            )
        # one question
        sample = rng.sample(answerable, min(args.singles, len(answerable)))
        stats = {False: [], True: []}
        split = 0
        for q in sample:
            split += bool(question_parts(q.text))
            relevant = {rel.doc for rel in q.relevant}
            for parts in (False, True):
                got = evidence(session.client, lid, q.text, parts)
                precision = sum(d in relevant for d in got) / len(got) if got else 1.0
                stats[parts].append((precision, bool(relevant & set(got)), len(got)))
        print(f"one question ({len(sample)}; split into parts: {split})")
        for parts in (False, True):
            rows = stats[parts]
            label = "whole + parts" if parts else "whole only   "
            print(
                f"  {label}: precision {statistics.mean(p for p, _h, _n in rows):.3f},"
                f" recall {statistics.mean(h for _p, h, _n in rows):.3f},"
                f" passages {statistics.mean(k for _p, _h, k in rows):.2f}"
            )
    finally:
        session.close()
    if args.noanswer and args.noanswer_data_dir:
        noanswer = load(args.noanswer)
        unanswerable = [q for q in noanswer.queries if not q.relevant and q.text.strip()]
        session = open_session(args.noanswer_data_dir, "bench")
        try:
            library_id = main_library(session.client)
            handed = {False: 0, True: 0}
            split = 0
            for q in unanswerable:
                split += bool(question_parts(q.text))
                for parts in (False, True):
                    handed[parts] += bool(evidence(session.client, library_id, q.text, parts))
            n = len(unanswerable)
            print(f"no answer ({n}; split into parts: {split})")
            for parts in (False, True):
                label = "whole + parts" if parts else "whole only   "
                print(f"  {label}: some passage handed over {handed[parts] / n:.3f}")
        finally:
            session.close()


if __name__ == "__main__":
    sys.exit(main())
