"""Derives the retrieval constants (fusion, local rerank, relevance calibration) from the
development sets, so none of them is set by hand.

Step 1, ``dump``: for every dataset already imported by ``goodbuddy-kb eval retrieval
--work-dir DIR``, run each channel once per query in-process (the product's own channel code)
and store what fusion, rerank and calibration see: channel ranks and scores, the vector
background, every candidate's rerank features and whether it is relevant.

Step 2, ``fit``: search the fusion and rerank parameters that maximise the worst per-set gain
over each set's better baseline — the best single channel or plain RRF (never a single query) —
and print the constants to paste into ``retrieval/`` with the figures. ``loso`` fits on all
sets but one and measures on the one left out, for each set in turn, beside the shipped
constants: the figure that predicts sets the constants were not fitted on. The relevance calibration is fitted on the same dumps by
``tune_relevance.py``.

    .venv/bin/python bench/tune_retrieval.py dump --work-dir /tmp/eval-work --provider local \\
        --dataset fixtures/eval --dataset ../shared/benchmarks/cmrc2018-trial --out /tmp/dumps
    .venv/bin/python bench/tune_retrieval.py fit /tmp/dumps/*.pickle /tmp/dumps-det/*.pickle
    .venv/bin/python bench/tune_retrieval.py fit --bundled /tmp/dumps/*.pickle
    .venv/bin/python bench/tune_retrieval.py loso --bundled /tmp/dumps/*.pickle
    GOODBUDDY_LOCAL_ENCODER=float32 .venv/bin/python bench/tune_retrieval.py dump \\
        --work-dir /tmp/eval-f32 ... --out /tmp/dumps-f32
    .venv/bin/python bench/tune_retrieval.py paired /tmp/dumps/*.pickle \\
        --with /tmp/dumps-f32/*.pickle

The first fits ``fusion.DEFAULT`` (every embedding model but the bundled one) on the dumps of
both providers; the second fits ``fusion.BUNDLED_MODEL`` on the bundled model's dumps alone;
``paired`` fits it on the same sets dumped from libraries each of the model's encoders (int8,
float32) built, so that the constants hold for both and a change of encoder does not reorder
the results.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.evaluation.dataset import load
from goodbuddy_kb.evaluation.metrics import fold
from goodbuddy_kb.evaluation.runner import IMPORTED_MARK, data_dir_for
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.credentials import CredentialStore
from goodbuddy_kb.main_process.embeddings import make_provider
from goodbuddy_kb.main_process.lexical import build_query, vocab
from goodbuddy_kb.main_process.lexical import search as lexical_search
from goodbuddy_kb.main_process.retrieval import candidate as candidates_mod
from goodbuddy_kb.main_process.retrieval import rerank, scripts
from goodbuddy_kb.main_process.vectors import channel as vector_channel

#: The product's pool with top_k 10 and the default candidate multiplier 4.
POOL = 40


def dump(args: argparse.Namespace) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    for folder in args.dataset:
        dataset = load(folder)
        root = data_dir_for(args.work_dir, dataset, args.provider)
        if not (root / IMPORTED_MARK).is_file():
            print(f"skip {dataset.name}: not imported in {root}", file=sys.stderr)
            continue
        data_dir = root / "data"
        pool = open_database(data_dir)
        conn = pool.get()
        (library_id,) = conn.execute(
            "SELECT id FROM libraries WHERE name = ?", (dataset.name[:100],)
        ).fetchone()
        corpus = dataset.corpus.resolve()
        prefix = {}
        for source_id, location in conn.execute("SELECT id, location FROM sources"):
            where = Path(location).resolve()
            try:
                inner = where.relative_to(corpus).as_posix()
            except ValueError:  # imported from another copy of the dataset: same layout
                inner = where.name if where.name != "corpus" else "."
            prefix[source_id] = "" if inner == "." else inner + "/"
        provider = make_provider(EmbeddingConnection(kind=args.provider), CredentialStore(data_dir))
        if args.sample and len(dataset.queries) > args.sample:  # evenly spaced, deterministic
            step = len(dataset.queries) / args.sample
            dataset.queries[:] = [dataset.queries[int(i * step)] for i in range(args.sample)]
        records: list[dict[str, Any]] = []
        started = time.perf_counter()
        if provider.kind == "local":  # the bundled model: embed the questions in batches up front
            # with the encoder the product embeds questions with (GOODBUDDY_LOCAL_ENCODER)
            encoder = provider._encoder()  # type: ignore[attr-defined]
            texts = [q.text[:4000] for q in dataset.queries]
            vectors: dict[str, Any] = {}
            for first in range(0, len(texts), 64):
                part = texts[first : first + 64]
                out = encoder.encode(part, is_query=True)
                vectors.update(zip(part, out, strict=True))
                print(f"{dataset.name}: embedded {first + len(part)} questions", file=sys.stderr)
            provider.embed_query = vectors.__getitem__  # type: ignore[union-attr,method-assign]
        for n, q in enumerate(dataset.queries):
            query = build_query(q.text[:4000])
            cancel = CancelToken()
            fts = lexical_search(conn, "fts", [library_id], query, POOL)
            cjk = lexical_search(conn, "cjk", [library_id], query, POOL)
            found = vector_channel.search(
                conn, data_dir, [library_id], provider, q.text[:4000], POOL, cancel
            )
            ids = list(
                dict.fromkeys(
                    [h.chunk_id for h in fts]
                    + [h.chunk_id for h in cjk]
                    + [h.chunk_id for h in found.hits]
                )
            )
            loaded = candidates_mod.load(conn, [candidates_mod.Candidate(cid) for cid in ids])
            idf = vocab.term_weights(conn, query)
            sims = {h.chunk_id: h.similarity for h in found.hits}
            relevant = {rel.doc: rel for rel in q.relevant}
            cands = {}
            for c in loaded:
                c.vector_similarity = sims.get(c.chunk_id)
                path = prefix.get(c.source_id, "") + c.document_path
                rel = relevant.get(path)
                label = rel is not None and (
                    not rel.answers or any(fold(a) in fold(c.content) for a in rel.answers)
                )
                feats = rerank.features(c, query, 1.0, idf)
                feats.pop("rrf", None)
                cands[c.chunk_id] = {
                    "doc": path,
                    "label": label,
                    "features": feats,
                    # how far the full text could see it (the arbitration never passes a
                    # passage it could not wholly see: ``ArbitrationStage``)
                    "visible": scripts.visible(query, c.content),
                }
            # the fusion's ``observable``, as the pipeline passes it (the bundled model only)
            matched = {h.chunk_id for h in [*fts, *cjk]}
            observable = (
                {cid: c["visible"] for cid, c in cands.items() if cid not in matched}
                if args.provider == "local"
                else {}
            )
            records.append(
                {
                    "id": q.id,
                    "lang": q.lang,
                    "exclude": set(q.exclude),
                    "relevant": len(relevant),
                    "weights": query.channel_weights(1.0),
                    "fts": [(h.chunk_id, h.score, h.bm25, h.features.coverage) for h in fts],
                    "cjk": [(h.chunk_id, h.score, h.bm25, h.features.coverage) for h in cjk],
                    "vector": [(h.chunk_id, h.similarity) for h in found.hits],
                    "background": (found.background_mean, found.background_std),
                    "candidates": cands,
                    "observable": {k: v for k, v in observable.items() if v < 1.0},
                }
            )
            if n % 200 == 0:
                print(
                    f"{dataset.name}: {n}/{len(dataset.queries)} {time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                )
        pool.close_all()
        target = args.out / f"{dataset.name}.pickle"
        with target.open("wb") as fh:
            pickle.dump({"name": dataset.name, "records": records}, fh)
        print(f"{dataset.name}: {len(records)} queries → {target}")


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("dump")
    d.add_argument("--work-dir", type=Path, required=True)
    d.add_argument("--provider", default="local")
    d.add_argument("--dataset", type=Path, action="append", required=True)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--sample", type=int, default=0, help="at most N questions per dataset")
    for command in ("fit", "loso", "paired"):
        f = commands.add_parser(command)
        f.add_argument("dumps", type=Path, nargs="+")
        if command == "paired":
            f.add_argument(
                "--with",
                dest="other",
                type=Path,
                nargs="+",
                required=True,
                help="the same sets dumped from libraries the other encoder built",
            )
        f.add_argument(
            "--bundled",
            action="store_true",
            help="fit fusion.BUNDLED_MODEL (give only the bundled model's dumps)",
        )
        f.add_argument(
            "--exclude-after-search",
            action="store_true",
            help="keep each question's exclude documents in the channels' lists and drop them"
            " only from the ranking judged (by default they leave before the fusion: tune_fit)",
        )
    args = parser.parse_args()
    if getattr(args, "exclude_after_search", False):
        import tune_fit  # type: ignore[import-not-found]

        tune_fit.EXCLUDE_IN_SEARCH = False
    if args.command == "dump":
        dump(args)
    elif args.command == "paired":
        from tune_fit import fit_paired  # type: ignore[import-not-found]

        fit_paired(args.dumps, args.other)
    elif args.command == "loso":
        from tune_fit import loso  # type: ignore[import-not-found]

        loso(args.dumps, args.bundled)
    else:
        from tune_fit import fit  # type: ignore[import-not-found]

        fit(args.dumps, args.bundled)


if __name__ == "__main__":
    main()
