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
from goodbuddy_kb.bridge.waiting import wait_for_library
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.limits import MAX_EXCLUDED_DOCUMENTS, MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    EMBEDDING_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_LIST,
    RETRIEVE,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_LIST,
)
from goodbuddy_kb.contracts.models import EmbeddingConnection, EmbeddingUpdateRequest
from goodbuddy_kb.contracts.settings import (
    DEFAULT_MINIMUM_RELEVANCE,
    ChunkingMode,
    FusionMethod,
    KnowledgeChunkingSettings,
)
from goodbuddy_kb.evaluation.chunk_texts import ChunkTexts
from goodbuddy_kb.evaluation.dataset import Dataset, DatasetError, Query
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


def corpus_sources(corpus: Path) -> list[tuple[Path, str]]:
    """The folders to import, each with the path prefix of its documents inside the corpus:
    the corpus itself, or, past one source's file limit, each top-level subfolder."""
    files = sum(1 for p in corpus.rglob("*") if p.is_file())
    if files <= src.MAX_FILES_PER_SOURCE:
        return [(corpus, "")]
    loose = [p.name for p in corpus.iterdir() if p.is_file()]
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    if loose or not folders:
        raise DatasetError(
            f"{corpus} holds {files} files (one source takes at most"
            f" {src.MAX_FILES_PER_SOURCE}); put them in subfolders, each becomes a source"
        )
    for folder in folders:
        count = sum(1 for p in folder.rglob("*") if p.is_file())
        if count > src.MAX_FILES_PER_SOURCE:
            raise DatasetError(
                f"subfolder {folder.name} holds {count} files (at most {src.MAX_FILES_PER_SOURCE})"
            )
    return [(folder, folder.name + "/") for folder in folders]


def _extract_graph(session: Session, library_id: str) -> None:
    """The local knowledge graph of the library (the "hybrid + graph" mode uses it)."""
    client = session.client
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    if info.settings.strategy != "local":
        settings = info.settings.model_copy(update={"strategy": "local"})
        client.call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))
    elif not info.needs_rebuild and info.entities:
        return
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    wait_for_library(session, library_id, [task.task_id])


def _import(
    session: Session,
    dataset: Dataset,
    connection: EmbeddingConnection,
    api_key: str | None,
    chunking: ChunkingMode = "structure",
) -> str:
    client = session.client
    client.call(EMBEDDING_UPDATE, EmbeddingUpdateRequest(connection=connection, api_key=api_key))
    name = dataset.name[:80] + ("" if chunking == "structure" else f" [{chunking}]")
    for existing in client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries:
        if existing.name == name:
            wait_for_library(session, existing.id, [])
            return existing.id
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
    if chunking != "structure":
        client.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id, chunking=KnowledgeChunkingSettings(mode=chunking)
            ),
        )
    tasks = []
    for folder, _prefix in corpus_sources(dataset.corpus):
        added = client.call(
            SOURCE_ADD,
            src.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(folder), watch=False
            ),
        )
        tasks += [added.task_id] if added.task_id else []
    wait_for_library(session, library_id, tasks)
    return library_id


def _prefixes(session: Session, dataset: Dataset, library_id: str) -> dict[str, str]:
    corpus = dataset.corpus.resolve()
    out = {}
    for source in session.client.call(
        SOURCE_LIST, src.SourceListRequest(library_id=library_id)
    ).sources:
        location = Path(source.location).resolve()
        try:
            inner = location.relative_to(corpus).as_posix()
        except ValueError:  # imported from another copy of the dataset: same layout
            inner = location.name if location.name != "corpus" else "."
        out[source.id] = "" if inner == "." else inner + "/"
    return out


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
    """``mark``: where to write what, once the libraries are imported (a work directory's)."""
    backend = BackendProcess.start(data_dir)
    try:
        client = BlockingClient(
            backend.endpoint.server_name, backend.endpoint.secret, "eval"
        ).open()
        session = Session(client, backend.endpoint, None)
        library_id = _import(session, dataset, connection, api_key)
        if any(mode.name == GRAPH_MODE for mode in modes):
            _extract_graph(session, library_id)
        libraries = {"structure": library_id}
        for chunking in dict.fromkeys(m.chunking for m in modes if m.chunking != "structure"):
            libraries[chunking] = _import(session, dataset, connection, api_key, chunking)
        if mark is not None:
            mark[0].write_text(mark[1], encoding="utf-8")
        prefixes = _prefixes(session, dataset, library_id)
        for other in libraries.values():
            prefixes.update(_prefixes(session, dataset, other))
        documents = client.call(
            DOCUMENTS_LIST, src.DocumentListRequest(library_id=library_id, limit=1)
        ).total
        per_mode: dict[str, list[Judged]] = {}
        texts = ChunkTexts(data_dir / "goodbuddy-kb.sqlite3")
        try:
            for mode in modes:
                searched = libraries[mode.chunking]
                by_path = texts.documents(searched, prefixes) if exclude_in_search else None
                per_mode[mode.name] = [
                    _retrieve(session, searched, prefixes, q, mode, texts, record, by_path)
                    for q in dataset.queries
                ]
        finally:
            texts.close()
        client.close()
    finally:
        backend.stop()
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
