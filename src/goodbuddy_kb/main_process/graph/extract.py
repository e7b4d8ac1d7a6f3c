"""A local extraction run over a library: discovery over every retrievable chunk, entity
resolution, then matching of every known name and alias, pattern and co-occurrence relations,
and evidence spans — one transaction per document, so retrieval sees a document's graph
evidence whole. Cancellable between documents."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.local import (
    boundaries,
    compile_patterns,
    discover,
    relations_in,
)
from goodbuddy_kb.main_process.graph.matching import Matcher
from goodbuddy_kb.main_process.storage.db import transaction

Progress = Callable[[int, int], None]


@dataclass
class ExtractReport:
    documents: int = 0
    entities: int = 0
    relations: int = 0
    evidence: int = 0
    chunks: int = 0
    #: Evidence spans written for entity mentions and for relations.
    mentions: int = 0
    relation_mentions: int = 0


def _chunks(conn: sqlite3.Connection, library_id: str) -> dict[str, list[sqlite3.Row]]:
    by_document: dict[str, list[sqlite3.Row]] = {}
    for row in conn.execute(
        "SELECT seq, id, document_id, content, heading FROM chunks WHERE library_id = ?"
        " AND enabled = 1 AND role != 'parent' ORDER BY document_id, ordinal",
        (library_id,),
    ):
        by_document.setdefault(row["document_id"], []).append(row)
    return by_document


def extract_library(
    conn: sqlite3.Connection,
    library_id: str,
    cancel: CancelToken,
    progress: Progress | None = None,
) -> ExtractReport:
    settings = store.settings(conn, library_id)
    ontology = store.ontology(conn, library_id)
    report = ExtractReport()
    documents = _chunks(conn, library_id)
    total = len(documents)
    # 1. discovery: the names the ontology's cues find, resolved by type and name
    stops = boundaries(ontology)
    with transaction(conn):
        for rows in documents.values():
            for row in rows:
                for mention in discover(row["content"], ontology, row["heading"], stops):
                    entity_id = store.resolve(
                        conn, library_id, mention.type_key, mention.name, "local"
                    )
                    for alias in mention.aliases:
                        store.add_alias(conn, library_id, entity_id, alias)
    cancel.check()
    # 2. matching: every known name and alias in every chunk, relations and evidence
    known = store.names(conn, [library_id])
    type_of = {entity_id: type_key for _name, entity_id, type_key in known}
    matcher = Matcher((name, entity_id) for name, entity_id, _type in known)
    patterns = compile_patterns(ontology)
    for done, (document_id, rows) in enumerate(documents.items(), start=1):
        cancel.check()
        with transaction(conn):
            seqs = [r["seq"] for r in rows]
            conn.execute(
                f"DELETE FROM graph_evidence WHERE extractor = 'local' AND chunk_seq IN ({','.join('?' for _ in seqs)})",
                seqs,
            )
            for row in rows:
                text = row["content"]
                mentions = matcher.find(text)[: settings.max_entities_per_chunk]
                conn.executemany(
                    "INSERT INTO graph_evidence (library_id, chunk_seq, entity_id, start,"
                    ' "end", confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, 1.0,'
                    " 'local', '{\"match\": \"name\"}')",
                    [(library_id, row["seq"], m.payload[0], m.start, m.end) for m in mentions],
                )
                report.evidence += len(mentions)
                report.mentions += len(mentions)
                report.chunks += 1
                found = relations_in(text, mentions, type_of, patterns, ontology)
                for rel in found[: settings.max_relations_per_chunk]:
                    relation = store.relation_id(
                        conn,
                        library_id,
                        rel.type_key,
                        rel.head.payload[0],
                        rel.tail.payload[0],
                        rel.confidence,
                        "local",
                    )
                    conn.execute(
                        "INSERT INTO graph_evidence (library_id, chunk_seq, relation_id, start,"
                        ' "end", confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, ?,'
                        " 'local', ?)",
                        (
                            library_id,
                            row["seq"],
                            relation,
                            rel.start,
                            rel.end,
                            rel.confidence,
                            json.dumps({"pattern": rel.pattern[:100]}),
                        ),
                    )
                    report.evidence += 1
                    report.relation_mentions += 1
            conn.execute(
                "UPDATE documents SET graph_status = 'done', graph_error = NULL WHERE id = ?",
                (document_id,),
            )
        report.documents += 1
        if progress is not None:
            progress(done, total)
    with transaction(conn):
        store.prune(conn, library_id)
        conn.execute(
            "UPDATE graph_settings SET needs_rebuild = 0 WHERE library_id = ?", (library_id,)
        )
    counts = store.info(conn, library_id)
    report.entities, report.relations = counts.entities, counts.relations
    return report
