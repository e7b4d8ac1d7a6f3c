"""Runs datasets through the real product: a temporary data directory, a real backend, the
real sync/chunking/indexing path and `knowledge:retrieve` over the bridge. Reads no user data
and calls no network service unless a provider endpoint is given.

Also measures the FTS5 `unicode61`-only baseline (PRD §3.3) on the same chunks, read from the
temporary database after import.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session
from goodbuddy_kb.cli_sources import wait_for_library
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    RETRIEVE,
    SOURCE_ADD,
)
from goodbuddy_kb.contracts.models import EmbeddingConnection, EmbeddingUpdateRequest
from goodbuddy_kb.evaluation.dataset import Dataset, Query
from goodbuddy_kb.evaluation.metrics import Judged, Summary, fold, summarise

TOP = 10
#: A no-answer query counts as a false positive when its best result is at least this relevant.
NO_ANSWER_THRESHOLD = 0.5
BASELINE = "fts5-unicode61 baseline"


@dataclass(frozen=True)
class Mode:
    name: str
    channels: tuple[r.KnowledgeRetrievalChannel, ...] | None
    rerank: r.RerankMode | None


DEFAULT_MODES = (Mode("hybrid", None, None),)
ABLATION_MODES = (
    Mode("lexical only", ("fts", "cjk"), "off"),
    Mode("vector only", ("vector",), "off"),
    Mode("hybrid", None, "off"),
    Mode("hybrid + local rerank", None, "local"),
)


def judge(
    query: Query,
    ranked: list[tuple[str, str]],
    context: list[tuple[str, str]],
    top_relevance: float,
    latency_ms: float,
) -> Judged:
    """``ranked``: (document path, contributed text) best first; ``context``: (path, text)."""
    ranked = [(p, t) for p, t in ranked if p not in query.exclude][:TOP]
    relevant = {rel.doc: rel for rel in query.relevant}

    def satisfied(path: str, text: str) -> bool:
        rel = relevant.get(path)
        return rel is not None and (
            not rel.answers or any(fold(a) in fold(text) for a in rel.answers)
        )

    hits = [p if satisfied(p, t) else None for p, t in ranked]
    groups = [(p, t) for p, t in context if p not in query.exclude]
    covered = {p for p, t in groups if satisfied(p, t)}
    return Judged(
        hits=hits,
        relevant=len(relevant),
        context_hits=len(covered),
        context_groups=len(groups),
        context_relevant_groups=sum(1 for p, t in groups if satisfied(p, t)),
        answerable=bool(relevant),
        top_relevance=top_relevance,
        latency_ms=latency_ms,
    )


def _retrieve(session: Session, library_id: str, query: Query, mode: Mode) -> Judged:
    if not query.text.strip():
        # The product refuses an empty question; it counts as a query with no results.
        return judge(query, [], [], 0.0, 0.0)
    started = time.perf_counter()
    res = session.client.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=[library_id],
            query=query.text[:MAX_QUERY_CHARACTERS],
            overrides=r.RetrievalOverrides(top_k=TOP),
            channels=list(mode.channels) if mode.channels else None,
            rerank=mode.rerank,
        ),
    )
    latency = (time.perf_counter() - started) * 1000
    group_text = {cid: g.text for g in res.context.groups for cid in g.hit_chunk_ids}
    ranked = [(x.document_path, group_text.get(x.chunk_id, x.snippet)) for x in res.results]
    context = [
        (next((x.document_path for x in res.results if x.document_id == g.document_id), ""), g.text)
        for g in res.context.groups
    ]
    top = res.results[0].relevance if res.results else 0.0
    return judge(query, ranked, context, top, latency)


def _baseline(db_path: Path, queries: Iterable[Query]) -> list[Judged]:
    """FTS5 `unicode61` over NFKC-folded chunk text: whole CJK runs become single tokens."""
    source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    rows = source.execute(
        "SELECT d.relative_path, c.content FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE c.enabled = 1 AND c.role != 'parent' ORDER BY c.seq"
    ).fetchall()
    source.close()
    mem = sqlite3.connect(":memory:")
    mem.execute(
        "CREATE VIRTUAL TABLE b USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2')"
    )
    mem.executemany(
        "INSERT INTO b (rowid, text) VALUES (?, ?)",
        [(i, fold(t)) for i, (_p, t) in enumerate(rows)],
    )
    out = []
    for query in queries:
        started = time.perf_counter()
        terms = re.findall(r"\w+", fold(query.text))
        ranked: list[tuple[str, str]] = []
        if terms:
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
            ids = [
                i
                for (i,) in mem.execute(
                    "SELECT rowid FROM b WHERE b MATCH ? ORDER BY rank LIMIT ?",
                    (match, TOP + len(query.exclude)),
                )
            ]
            ranked = [rows[i] for i in ids]
        latency = (time.perf_counter() - started) * 1000
        out.append(judge(query, ranked, ranked[:6], 1.0 if ranked else 0.0, latency))
    return out


@dataclass
class DatasetResult:
    name: str
    documents: int
    chunks: int
    #: language → mode name → summary
    by_language: dict[str, dict[str, Summary]]
    #: tag → mode name → summary (only for tagged queries)
    by_tag: dict[str, dict[str, Summary]]


def _group(queries: list[Query], judged: list[Judged], key: str) -> dict[str, list[Judged]]:
    groups: dict[str, list[Judged]] = {}
    for q, j in zip(queries, judged, strict=True):
        names = [q.lang] if key == "lang" else list(q.tags)
        for name in names:
            groups.setdefault(name, []).append(j)
    return groups


def evaluate(
    dataset: Dataset, connection: EmbeddingConnection, api_key: str | None, modes: tuple[Mode, ...]
) -> DatasetResult:
    with tempfile.TemporaryDirectory(prefix="goodbuddy-eval-") as tmp:
        data_dir = Path(tmp) / "data"
        backend = BackendProcess.start(data_dir)
        try:
            client = BlockingClient(
                backend.endpoint.server_name, backend.endpoint.secret, "eval"
            ).open()
            session = Session(client, backend.endpoint, None)
            client.call(
                EMBEDDING_UPDATE, EmbeddingUpdateRequest(connection=connection, api_key=api_key)
            )
            library_id = client.call(
                LIBRARY_CREATE, lib.LibraryCreateRequest(name=dataset.name[:100])
            ).library.id
            added = client.call(
                SOURCE_ADD,
                src.SourceAddRequest(
                    library_id=library_id, kind="folder", location=str(dataset.corpus), watch=False
                ),
            )
            wait_for_library(
                session, library_id, [added.task_id] if added.task_id else [], quiet=True
            )
            documents = client.call(
                DOCUMENTS_LIST, src.DocumentListRequest(library_id=library_id, limit=1)
            ).total
            per_mode: dict[str, list[Judged]] = {}
            for mode in modes:
                per_mode[mode.name] = [
                    _retrieve(session, library_id, q, mode) for q in dataset.queries
                ]
            client.close()
        finally:
            backend.stop()
        db_path = data_dir / "goodbuddy-kb.sqlite3"
        per_mode[BASELINE] = _baseline(db_path, dataset.queries)
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
            (chunks,) = conn.execute(
                "SELECT count(*) FROM chunks WHERE role != 'parent'"
            ).fetchone()
    by_language: dict[str, dict[str, Summary]] = {}
    by_tag: dict[str, dict[str, Summary]] = {}
    for mode_name, judged in per_mode.items():
        for lang, items in _group(dataset.queries, judged, "lang").items():
            by_language.setdefault(lang, {})[mode_name] = summarise(items, NO_ANSWER_THRESHOLD)
        for tag, items in _group(dataset.queries, judged, "tags").items():
            by_tag.setdefault(tag, {})[mode_name] = summarise(items, NO_ANSWER_THRESHOLD)
    return DatasetResult(dataset.name, documents, int(chunks), by_language, by_tag)
