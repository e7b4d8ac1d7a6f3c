"""`goodbuddy-kb retrieve LIB… "question" [--top-k N] [--rerank off|local|learned]
[--fusion adaptive|rrf]`: ranked evidence with each result's channel ranks, the settings the
search ran with (every one), the diagnostics (channels used and degraded, the vector scan and
its similarity filter, rerank fallback, fusion, channel confidence, relevance floor), the results
the floor held back (listed as the workbench lists them greyed: not evidence) and the assembled
context."""

from __future__ import annotations

import argparse
import json
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import plural
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS, MAX_TOP_K
from goodbuddy_kb.contracts.methods import RETRIEVE
from goodbuddy_kb.contracts.paths import readable_path


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "retrieve", parents=[common], help="ask a question; show ranked evidence"
    )
    p.add_argument("libraries", metavar="LIB", nargs="*", help="one or more libraries")
    p.add_argument("query", metavar="QUESTION", type=question)
    # as `chat ask` names them (`retrieve --library L "…"` was refused; a helper's try)
    p.add_argument(
        "--library",
        dest="named_libraries",
        action="append",
        default=[],
        metavar="LIB",
        help="a library to search (repeat for more), as an alternative to naming them first",
    )
    p.add_argument(
        "--top-k",
        type=int,
        default=None,
        metavar="N",
        help=f"how many results, 1–{MAX_TOP_K} (default: each library's setting)",
    )
    p.add_argument(
        "--rerank",
        choices=["off", "local", "learned"],
        default=None,
        help="reorder the fused results: off, local (on this computer), learned (the rerank"
        " service set up with `goodbuddy-kb model rerank`); default: each library's setting",
    )
    p.add_argument(
        "--fusion",
        choices=["adaptive", "rrf"],
        default=None,
        help="this query's fusion (default: each library's setting; adaptive is recommended)",
    )


def question(text: str) -> str:
    """A retrieval question within the product's one query limit (refused before any call)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the question is empty")
    if len(text) > MAX_QUERY_CHARACTERS:
        raise argparse.ArgumentTypeError(
            f"a question has at most {MAX_QUERY_CHARACTERS:,} characters (this one has {len(text):,})"
        )
    return text


def cmd_retrieve(args: argparse.Namespace, session: Session, library_ids: list[str]) -> int:
    overrides = r.RetrievalOverrides(top_k=args.top_k) if args.top_k is not None else None
    res = session.client.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=library_ids,
            query=args.query,
            overrides=overrides,
            rerank=args.rerank,
            fusion=args.fusion,
        ),
    )
    if getattr(args, "json", False):
        print(json.dumps(res.to_wire(), ensure_ascii=False, indent=2))
        return 0
    d = res.diagnostics
    print(
        f"{plural(len(res.results), 'result')} in {res.duration_ms:.0f} ms;"
        f" channels used: {', '.join(d.used_channels) or 'none'}"
    )
    print(_settings_line(res))
    print(_vector_line(d))
    for degraded in d.degraded_channels:
        # a question naming no entity of the graph, or a graph switched off, is no fault (the
        # window says "not used"): "degraded" on most questions read as something broken
        said = "not used" if degraded.reason_code in r.GRAPH_NOTES else "degraded"
        print(f"  {degraded.channel} {said}: {degraded.reason}")
    if d.graph_step:
        print(
            f"  graph step from the best result: {d.graph_step} (the passage stating it moved up)"
        )
    if d.rerank.fallback_reason:
        print(f"  rerank fell back to {d.rerank.applied}: {d.rerank.fallback_reason}")
    # the channels that ran, each with its confidence (one with no hit has none: 0); a channel
    # that was not used is not listed (it listed the graph while saying it was not used)
    confidence = (
        ", ".join(f"{k} {d.channel_confidence.get(k, 0.0):.2f}" for k in d.used_channels) or "none"
    )
    best = r.relevance_figure(d.best_relevance) if d.best_relevance is not None else "none"
    print(
        f"  fusion {d.fusion}; channel confidence: {confidence}; minimum relevance"
        f" {d.minimum_relevance:g}, best {best}"
        + (f", {d.below_minimum_relevance} withheld" if d.below_minimum_relevance else "")
    )
    if d.arbitration_passed:
        print(
            f"  the full text's first pick moved above {d.arbitration_passed} result(s) holding"
            " clearly fewer of the question's words"
        )
    for x in res.results:
        ranks = " ".join(f"{k}#{v}" for k, v in sorted(x.channel_ranks.items()))
        sim = f" sim {x.vector_similarity:.3f}" if x.vector_similarity is not None else ""
        print(
            f"{x.rank:>2}. {r.relevance_figure(x.relevance, 3)}  [{ranks}{sim}; before rerank #{x.pre_rerank_rank}]  {readable_path(x.document_path)}"
        )
        print(f"    {x.snippet}")
        if x.same_text:
            names = ", ".join(readable_path(d.document_path) for d in x.same_text)
            print(f"    the same text is also in: {names}")
    if res.below_floor:
        # as the window's workbench lists them, greyed: what the floor held back, never evidence
        print(
            f"below the minimum relevance of {d.minimum_relevance:g} (listed, not evidence,"
            " not in the context):"
        )
        for x in res.below_floor:
            print(
                f"{x.rank:>2}. {r.relevance_figure(x.relevance, 3)}  {readable_path(x.document_path)}"
            )
    if res.zero_result:
        print(
            f"No results ({res.zero_result.reason}): {res.zero_result.message}\nNext: {res.zero_result.next_step}"
        )
    c = res.context
    print(
        f"\ncontext: {c.character_count}/{c.budget} characters{' (truncated)' if c.truncated else ''}"
    )
    for g in c.groups:
        print(
            f"--- {g.document_title} ({len(g.chunk_ids)} chunks{', truncated' if g.truncated else ''})"
        )
        print(g.text)
    return 0


def _settings_line(res: r.KnowledgeRetrievalResponse) -> str:
    """Every setting the search ran with (the libraries' own with this query's overrides)."""
    s = res.settings
    return (
        f"  settings: top K {s.top_k}; weights full text {s.fts_weight:g}, vector"
        f" {s.vector_weight:g}, graph {s.graph_weight:g}; candidate multiplier"
        f" {s.candidate_multiplier}; minimum vector similarity {s.minimum_vector_similarity:g};"
        f" minimum relevance {s.minimum_relevance:g}; rerank {res.diagnostics.rerank.requested};"
        f" fusion {s.fusion}; adjacent chunks {s.adjacent_chunk_count}; context budget"
        f" {s.context_max_characters:,} characters"
    )


def _vector_line(d: r.Diagnostics) -> str:
    """The vector scan: rows scanned, its time, what the similarity floor filtered, and how
    much of each partly covered library the vectors cover (a first version filling)."""
    ms = d.timings_ms.get("vector")
    took = f" in {ms:.0f} ms" if ms is not None else ""
    covers = "".join(
        f"; vectors cover {c.documents_covered:,}/{c.documents_total:,} documents so far"
        for c in d.vector_coverage
    )
    return (
        f"  vector: {d.vector_scanned:,} vectors scanned{took};"
        f" {d.filtered_by_similarity} filtered by the minimum vector similarity{covers}"
    )
