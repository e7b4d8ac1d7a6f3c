"""Two-hop retrieval with and without the graph channel, scored as a graph dataset's README
defines it (company-graph-dev): hit@5 and MRR@10 of the answer document by tag, "both hops in
top 5" for two-hop questions, and what unanswerable questions returned.

    PYTHONPATH=src .venv/bin/python bench/graph_hops.py ../shared/benchmarks/company-graph-dev \\
        --graph gold --keep /tmp/hops

The corpus is imported into a library through the real backend over the bridge, with default
settings and the bundled embedding model. ``--graph gold`` fills the graph from
``graph_gold.jsonl``/``entities.jsonl`` through the product's manual graph editing (the library's
ontology gains the dataset's missing types, then entities with aliases and relations, whose
evidence is the chunks that mention both ends); ``--graph local`` runs the product's local
extraction. Every mode searches the same library: "without graph" asks the hybrid channels
alone (the graph off), "with graph" every channel, "graph alone" the graph channel only (what
the channel ranks before the fusion). ``--keep DIR`` keeps the imported library (and its graph)
for the next run; ``--verbose`` prints each question's ranks and the answer's graph reasons.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITY_CREATE,
    GRAPH_GET,
    GRAPH_RELATION_CREATE,
    GRAPH_UPDATE,
    RETRIEVE,
)
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.contracts.settings import DEFAULT_MINIMUM_RELEVANCE
from goodbuddy_kb.evaluation.corpus_library import extract_graph, import_corpus, source_prefixes
from goodbuddy_kb.evaluation.dataset import load
from goodbuddy_kb.evaluation.metrics import fold
from goodbuddy_kb.evaluation.runner import HYBRID

TOP = 10
GRAPH_MARK = "graph.ok"


@dataclass
class Scored:
    """One question in one mode."""

    rank: int | None  # of the first relevant result (doc and answer), 1-based, within TOP
    both_hops: bool
    top_relevance: float
    top_doc: str
    path: list[str] = field(default_factory=list)


def _gold_graph(session: Session, library_id: str, root: Path) -> None:
    """The dataset's gold graph through the product's manual editing."""
    client = session.client
    entities = [json.loads(x) for x in (root / "entities.jsonl").read_text("utf-8").splitlines()]
    gold = [json.loads(x) for x in (root / "graph_gold.jsonl").read_text("utf-8").splitlines()]
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    ontology = info.ontology
    known = {t.key for t in ontology.entity_types}
    extra_types = [
        g.EntityType(key=k, name_zh=k, name_en=k)
        for k in dict.fromkeys(e["type"] for e in entities)
        if k not in known
    ]
    rel_known = {t.key for t in ontology.relation_types}
    extra_relations = [
        g.RelationType(key=k, name_zh=k.replace("_", " "), name_en=k.replace("_", " "))
        for k in dict.fromkeys(x["relation"] for x in gold)
        if k not in rel_known
    ]
    # the starter's endpoint rules do not cover every dataset pair: the relation types it
    # shares keep their names and cues and allow any endpoints
    relations = [
        t.model_copy(update={"head_types": [], "tail_types": []}) for t in ontology.relation_types
    ]
    ontology = ontology.model_copy(
        update={
            "entity_types": [*ontology.entity_types, *extra_types],
            "relation_types": [*relations, *extra_relations],
        }
    )
    settings = info.settings.model_copy(update={"strategy": "model"})
    client.call(
        GRAPH_UPDATE,
        g.GraphUpdateRequest(library_id=library_id, settings=settings, ontology=ontology),
    )
    ids: dict[str, str] = {}
    for e in entities:
        made = client.call(
            GRAPH_ENTITY_CREATE,
            g.EntityCreateRequest(
                library_id=library_id,
                type_key=e["type"],
                name=e["name"],
                aliases=[a for a in e.get("aliases", []) if fold(a) != fold(e["name"])],
            ),
        )
        ids[e["name"]] = made.entity.id
    seen: set[tuple[str, str, str]] = set()
    for x in gold:
        key = (x["head"], x["relation"], x["tail"])
        if key in seen or x["head"] not in ids or x["tail"] not in ids:
            continue
        seen.add(key)
        client.call(
            GRAPH_RELATION_CREATE,
            g.RelationCreateRequest(
                library_id=library_id,
                type_key=x["relation"],
                head_id=ids[x["head"]],
                tail_id=ids[x["tail"]],
            ),
        )


def _score(
    session: Session,
    library_id: str,
    prefixes: dict[str, str],
    raw: dict[str, Any],
    channels: tuple[r.KnowledgeRetrievalChannel, ...] | None,
) -> Scored:
    res = session.client.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=[library_id],
            query=raw["query"],
            overrides=r.RetrievalOverrides(top_k=TOP, minimum_relevance=0.0),
            channels=list(channels) if channels else None,
        ),
    )
    group_text = {cid: grp.text for grp in res.context.groups for cid in grp.hit_chunk_ids}
    ranked = [
        (prefixes.get(x.source_id, "") + x.document_path, group_text.get(x.chunk_id, x.snippet), x)
        for x in res.results
    ][:TOP]
    relevant = {rel["doc"]: rel.get("answers", []) for rel in raw["relevant"]}
    rank = None
    path: list[str] = []
    for i, (doc, text, x) in enumerate(ranked, start=1):
        answers = relevant.get(doc)
        if answers is not None and (not answers or any(fold(a) in fold(text) for a in answers)):
            rank, path = i, list(x.graph_reasons)
            break
    top5 = {doc for doc, _t, _x in ranked[:5]}
    both = rank is not None and rank <= 5 and any(b in top5 for b in raw.get("bridge", []))
    return Scored(
        rank=rank,
        both_hops=both,
        top_relevance=max((x.relevance for x in res.results), default=0.0),
        top_doc=ranked[0][0] if ranked else "",
        path=path,
    )


def _summary(items: list[Scored], tag: str) -> str:
    if tag == "unanswerable":
        below = sum(1 for s in items if s.top_relevance < DEFAULT_MINIMUM_RELEVANCE)
        best = statistics.mean(s.top_relevance for s in items)
        return f"below floor {below}/{len(items)}  mean top relevance {best:.3f}"
    hit5 = statistics.mean(1.0 if s.rank is not None and s.rank <= 5 else 0.0 for s in items)
    mrr = statistics.mean(1.0 / s.rank if s.rank is not None else 0.0 for s in items)
    text = f"hit@5 {hit5:.3f}  MRR@10 {mrr:.3f}"
    if tag == "two-hop":
        both = statistics.mean(1.0 if s.both_hops else 0.0 for s in items)
        text += f"  both hops@5 {both:.3f}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--graph", choices=["gold", "local"], default="gold")
    parser.add_argument("--keep", type=Path, help="keep the imported library here for later runs")
    parser.add_argument("--verbose", action="store_true", help="one line per question")
    args = parser.parse_args()
    dataset = load(args.dataset)
    queries = [
        json.loads(x) for x in (dataset.root / "queries.jsonl").read_text("utf-8").splitlines()
    ]
    tmp = None
    if args.keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="goodbuddy-hops-")
        root = Path(tmp.name)
    else:
        root = args.keep / f"{dataset.root.name}-{args.graph}"
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    backend = BackendProcess.start(root / "data")
    try:
        client = BlockingClient(
            backend.endpoint.server_name, backend.endpoint.secret, "graph-hops"
        ).open()
        session = Session(client, backend.endpoint, None)
        library_id = import_corpus(session, dataset, EmbeddingConnection(kind="local"), None)
        if not (root / GRAPH_MARK).is_file():
            if args.graph == "gold":
                _gold_graph(session, library_id, dataset.root)
            else:
                extract_graph(session, library_id)
            (root / GRAPH_MARK).write_text(args.graph + "\n", encoding="utf-8")
        info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
        prefixes = source_prefixes(session, dataset, library_id)
        print(
            f"{dataset.name}: graph {args.graph} ({info.entities} entities,"
            f" {info.relations} relations), ready in {time.perf_counter() - started:.0f} s"
        )
        modes: dict[str, tuple[r.KnowledgeRetrievalChannel, ...] | None] = {
            "without graph": HYBRID,
            "with graph": None,
            "graph alone": ("graph",),
        }
        scored = {
            name: [_score(session, library_id, prefixes, q, ch) for q in queries]
            for name, ch in modes.items()
        }
        client.close()
    finally:
        backend.stop()
        if tmp is not None:
            tmp.cleanup()
    tags = list(dict.fromkeys(t for q in queries for t in q.get("tags", [])))
    width = max(len(t) for t in tags) + 6
    print(f"{'tag':<{width}}" + "".join(f"{name:<48}" for name in modes))
    for tag in tags:
        picked = [i for i, q in enumerate(queries) if tag in q.get("tags", [])]
        label = f"{tag} ({len(picked)})"
        print(
            f"{label:<{width}}"
            + "".join(f"{_summary([scored[m][i] for i in picked], tag):<48}" for m in modes)
        )
    if args.verbose:
        for i, q in enumerate(queries):
            a, b = scored["without graph"][i], scored["with graph"][i]
            alone = scored["graph alone"][i]
            print(
                f"{q['id']} {','.join(q.get('tags', []))}: rank {a.rank} -> {b.rank}"
                f" (graph alone {alone.rank})"
                f" both {int(a.both_hops)}->{int(b.both_hops)} top {b.top_doc}"
                f" rel {b.top_relevance:.2f} | {q['query']} | {' ; '.join(b.path)}"
            )


if __name__ == "__main__":
    sys.exit(main())
