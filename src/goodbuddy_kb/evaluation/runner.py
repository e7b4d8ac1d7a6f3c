"""Runs datasets through the real product: a temporary data directory, a real backend, the
real sync/chunking/indexing path and `knowledge:retrieve` over the bridge. Reads no user data
and calls no network service unless a provider endpoint is given.

Also measures two plain FTS5 baselines on the same chunks, read from the database after import:
`unicode61` (PRD §3.3) and `porter` (English stemming over unicode61).

A corpus larger than one source's file limit is imported one source per top-level subfolder.
With a work directory the imported, vectorised library is kept and reused by later runs.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.limits import MAX_EXCLUDED_DOCUMENTS, MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    RETRIEVE,
)
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.contracts.settings import (
    DEFAULT_MINIMUM_RELEVANCE,
    ChunkingMode,
    FusionMethod,
)
from goodbuddy_kb.evaluation.chunk_texts import ChunkTexts
from goodbuddy_kb.evaluation.corpus_library import (
    drop_others,
    extract_graph,
    import_corpus,
    source_prefixes,
)
from goodbuddy_kb.evaluation.dataset import Dataset, Query
from goodbuddy_kb.evaluation.metrics import Judged, Summary, fold, summarise

TOP = 10
#: A no-answer query is a false positive when its best result reaches the default minimum
#: relevance (the product would show it); an answerable one is withheld when it does not.
NO_ANSWER_THRESHOLD = DEFAULT_MINIMUM_RELEVANCE
BASELINE = "fts5-unicode61 baseline"
PORTER_BASELINE = "fts5-porter baseline"
#: Written once a work directory's library is fully imported and vectorised; it names the
#: corpus it holds (``corpus_fingerprint``).
IMPORTED_MARK = "imported.ok"


@dataclass(frozen=True)
class Mode:
    name: str
    channels: tuple[r.KnowledgeRetrievalChannel, ...] | None
    rerank: r.RerankMode | None
    fusion: FusionMethod | None = None
    #: The chunking of the library it searches: the product's default (structure) unless
    #: named; another chunking is a second library of the same corpus.
    chunking: ChunkingMode = "structure"


#: Hybrid without the knowledge graph: what the product does for a library whose graph is off.
HYBRID: tuple[r.KnowledgeRetrievalChannel, ...] = ("fts", "cjk", "vector")
GRAPH_MODE = "hybrid + graph"
HYBRID_MODE = "hybrid"
LEXICAL_MODE = "lexical only"
VECTOR_MODE = "vector only"
RRF_MODE = "hybrid, RRF fusion"
DEFAULT_MODES = (Mode(HYBRID_MODE, HYBRID, None), Mode(GRAPH_MODE, None, None))
ABLATION_MODES = (
    Mode(LEXICAL_MODE, ("fts", "cjk"), "off"),
    Mode(VECTOR_MODE, ("vector",), "off"),
    Mode(RRF_MODE, HYBRID, "off", "rrf"),
    Mode(HYBRID_MODE, HYBRID, "off"),
    Mode("hybrid, parent-child chunks", HYBRID, "off", chunking="parent-child"),
    Mode(GRAPH_MODE, None, "off"),
    Mode("hybrid + local rerank", HYBRID, "local"),
)


def judge(
    query: Query,
    ranked: list[tuple[str, str]],
    context: list[tuple[str, str]],
    top_relevance: float,
    latency_ms: float,
    relevances: list[float] | None = None,
) -> Judged:
    """``ranked``: (document path, contributed text) best first; ``context``: (path, text);
    ``relevances``: each ranked result's relevance, when the product gave one."""
    shown = [
        (p, t, v)
        for (p, t), v in zip(ranked, relevances or [0.0] * len(ranked), strict=True)
        if p not in query.exclude
    ][:TOP]
    ranked = [(p, t) for p, t, _v in shown]
    relevant = {rel.doc: rel for rel in query.relevant}
    documents = list(dict.fromkeys(p for p, _t in ranked))

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
        documents=[p in relevant for p in documents],
        relevant=len(relevant),
        context_hits=len(covered),
        context_groups=len(groups),
        context_relevant_groups=sum(1 for p, t in groups if satisfied(p, t)),
        answerable=bool(relevant),
        # the floor is judged on what is left once the excluded documents are out (a query that
        # is itself a corpus document would otherwise reach it with its own text)
        top_relevance=max((v for *_pt, v in shown), default=0.0)
        if relevances is not None
        else top_relevance,
        latency_ms=latency_ms,
        relevances=[v for _p, _t, v in shown] if relevances is not None else [],
    )


#: Called with each query, the product's response and how it was judged (``bench/``).
Record = Callable[[Query, r.KnowledgeRetrievalResponse, Judged], None]


def _retrieve(
    session: Session,
    library_id: str,
    prefixes: dict[str, str],
    query: Query,
    mode: Mode,
    texts: ChunkTexts,
    record: Record | None = None,
    documents: dict[str, str] | None = None,
) -> Judged:
    """``documents``: the searched library's document ids by corpus path; the query's excluded
    documents are left out of the search itself, so that neither their places nor the relevance
    of what remains is read against them (the benchmark's "drop before scoring")."""
    if not query.text.strip():
        # The product refuses an empty question; it counts as a query with no results.
        return judge(query, [], [], 0.0, 0.0)
    started = time.perf_counter()
    res = session.client.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=[library_id],
            query=query.text[:MAX_QUERY_CHARACTERS],
            # excluded documents (the query's own text) must not take a place in the top ten
            overrides=r.RetrievalOverrides(
                top_k=min(20, TOP + len(query.exclude)),
                # ranking quality is measured on the whole list; the floor is applied to the
                # best result's relevance afterwards (NoAnsFP, Withheld), as the product does
                minimum_relevance=0.0,
            ),
            channels=list(mode.channels) if mode.channels else None,
            rerank=mode.rerank,
            fusion=mode.fusion,
            exclude_document_ids=[
                documents[p] for p in sorted(query.exclude) if documents and p in documents
            ][:MAX_EXCLUDED_DOCUMENTS],
        ),
    )
    latency = (time.perf_counter() - started) * 1000
    group_text = {cid: g.text for g in res.context.groups for cid in g.hit_chunk_ids}
    own = texts.of([x.chunk_id for x in res.results])
    path = {x.document_id: prefixes.get(x.source_id, "") + x.document_path for x in res.results}
    ranked: list[tuple[str, str]] = []
    relevances: list[float] = []
    for x in res.results:
        text = own.get(x.chunk_id) or group_text.get(x.chunk_id, x.snippet)
        # a passage folded into a result for having the same text is the same answer: judged
        # where it stood, right after that result
        for p in [path[x.document_id]] + [
            prefixes.get(d.source_id, "") + d.document_path for d in x.same_text
        ]:
            ranked.append((p, text))
            relevances.append(x.relevance)
    context = [(path.get(g.document_id, ""), g.text) for g in res.context.groups]
    top = max((x.relevance for x in res.results), default=0.0)
    judged = judge(query, ranked, context, top, latency, relevances)
    if record is not None:
        record(query, res, judged)
    return judged


def _baseline(
    db_path: Path,
    library_id: str,
    prefixes: dict[str, str],
    queries: Iterable[Query],
    tokenizer: str,
) -> list[Judged]:
    """Plain FTS5 (``tokenizer``) over NFKC-folded chunk text: whole CJK runs become single
    tokens."""
    source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    rows = [
        (prefixes.get(source_id, "") + path, content)
        for source_id, path, content in source.execute(
            "SELECT d.source_id, d.relative_path, c.content FROM chunks c"
            " JOIN documents d ON d.id = c.document_id"
            " WHERE c.enabled = 1 AND c.role != 'parent' AND c.library_id = ? ORDER BY c.seq",
            (library_id,),
        )
    ]
    source.close()
    mem = sqlite3.connect(":memory:")
    mem.execute(f"CREATE VIRTUAL TABLE b USING fts5 (text, tokenize = '{tokenizer}')")
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


def data_dir_for(work_dir: Path, dataset: Dataset, provider: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", dataset.name)[:60] or "dataset"
    return work_dir / f"{slug}-{provider}"


def evaluate(
    dataset: Dataset,
    connection: EmbeddingConnection,
    api_key: str | None,
    modes: tuple[Mode, ...],
    work_dir: Path | None = None,
    record: Record | None = None,
    exclude_in_search: bool = True,
) -> DatasetResult:
    """Import (or, with ``work_dir``, reuse a finished import of) the dataset and run every
    mode over every query (``record`` sees each response). ``exclude_in_search``: a query's
    excluded documents are left out of the search itself (``RetrieveRequest.exclude_document_ids``),
    as if the corpus did not hold them; False: only out of the ranking judged."""
    if work_dir is None:
        with tempfile.TemporaryDirectory(prefix="goodbuddy-eval-") as tmp:
            return _evaluate_in(
                Path(tmp) / "data",
                dataset,
                connection,
                api_key,
                modes,
                None,
                record,
                exclude_in_search,
            )
    root = data_dir_for(work_dir, dataset, connection.kind)
    mark = root / IMPORTED_MARK
    wanted = f"imported {corpus_fingerprint(dataset)}\n"
    if root.exists() and (not mark.is_file() or mark.read_text(encoding="utf-8") != wanted):
        # an import that did not finish, or of another corpus under the same name (two
        # no-answer sets derived from one set with different counts): start over
        shutil.rmtree(root)
    return _evaluate_in(
        root / "data",
        dataset,
        connection,
        api_key,
        modes,
        (mark, wanted),
        record,
        exclude_in_search,
    )


def corpus_fingerprint(dataset: Dataset) -> str:
    """Every corpus file's path and content, hashed: what a work directory's import was of."""
    digest = hashlib.sha256()
    corpus = dataset.corpus
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        digest.update(path.relative_to(corpus).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _search_in(
    data_dir: Path,
    dataset: Dataset,
    connection: EmbeddingConnection,
    api_key: str | None,
    modes: tuple[Mode, ...],
    chunking: ChunkingMode,
    record: Record | None,
    exclude_in_search: bool,
) -> tuple[str, dict[str, str], int, dict[str, list[Judged]]]:
    """Import (or reuse) the ``chunking`` library of the corpus in ``data_dir`` and run ``modes``
    over every query: its id, its sources' prefixes, its document count and each mode's judged
    results."""
    backend = BackendProcess.start(data_dir)
    try:
        client = BlockingClient(
            backend.endpoint.server_name, backend.endpoint.secret, "eval"
        ).open()
        session = Session(client, backend.endpoint, None)
        library_id = import_corpus(session, dataset, connection, api_key, chunking)
        drop_others(session, library_id)
        if any(mode.name == GRAPH_MODE for mode in modes):
            extract_graph(session, library_id)
        prefixes = source_prefixes(session, dataset, library_id)
        documents = client.call(
            DOCUMENTS_LIST, src.DocumentListRequest(library_id=library_id, limit=1)
        ).total
        judged: dict[str, list[Judged]] = {}
        texts = ChunkTexts(data_dir / "goodbuddy-kb.sqlite3")
        try:
            by_path = texts.documents(library_id, prefixes) if exclude_in_search else None
            for mode in modes:
                judged[mode.name] = [
                    _retrieve(session, library_id, prefixes, q, mode, texts, record, by_path)
                    for q in dataset.queries
                ]
        finally:
            texts.close()
        client.close()
    finally:
        backend.stop()
    return library_id, prefixes, documents, judged


def _evaluate_in(
    data_dir: Path,
    dataset: Dataset,
    connection: EmbeddingConnection,
    api_key: str | None,
    modes: tuple[Mode, ...],
    mark: tuple[Path, str] | None = None,
    record: Record | None = None,
    exclude_in_search: bool = True,
) -> DatasetResult:
    """``mark``: where to write what, once the libraries are imported (a work directory's). A
    chunking other than the default gets a data directory of its own beside ``data_dir``: in the
    same database its copy of the corpus would move the term statistics (idf, BM25's lengths) the
    default library is ranked and judged by, and ``--ablation``'s hybrid would differ from the
    plain run's."""

    def of(chunking: ChunkingMode) -> tuple[Mode, ...]:
        return tuple(m for m in modes if m.chunking == chunking)

    library_id, prefixes, documents, ranked = _search_in(
        data_dir,
        dataset,
        connection,
        api_key,
        of("structure"),
        "structure",
        record,
        exclude_in_search,
    )
    for chunking in dict.fromkeys(m.chunking for m in modes if m.chunking != "structure"):
        where = data_dir.with_name(f"{data_dir.name}-{chunking}")
        *_, more = _search_in(
            where, dataset, connection, api_key, of(chunking), chunking, record, exclude_in_search
        )
        ranked.update(more)
    if mark is not None:
        mark[0].write_text(mark[1], encoding="utf-8")
    per_mode = {m.name: ranked[m.name] for m in modes}
    db_path = data_dir / "goodbuddy-kb.sqlite3"
    per_mode[BASELINE] = _baseline(
        db_path, library_id, prefixes, dataset.queries, "unicode61 remove_diacritics 2"
    )
    per_mode[PORTER_BASELINE] = _baseline(
        db_path, library_id, prefixes, dataset.queries, "porter unicode61 remove_diacritics 2"
    )
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        (chunks,) = conn.execute(
            "SELECT count(*) FROM chunks WHERE role != 'parent' AND library_id = ?", (library_id,)
        ).fetchone()
    by_language: dict[str, dict[str, Summary]] = {}
    by_tag: dict[str, dict[str, Summary]] = {}
    for mode_name, judged in per_mode.items():
        for lang, items in _group(dataset.queries, judged, "lang").items():
            by_language.setdefault(lang, {})[mode_name] = summarise(items, NO_ANSWER_THRESHOLD)
        for tag, items in _group(dataset.queries, judged, "tags").items():
            by_tag.setdefault(tag, {})[mode_name] = summarise(items, NO_ANSWER_THRESHOLD)
    return DatasetResult(dataset.name, documents, int(chunks), by_language, by_tag)
