"""The model run's writes, one document per transaction (``write_document``), and the rule that
an empty run never wipes the graph (``Writes``): while no answer of the run has named anything,
documents whose answers all came back empty wait; if the whole run names nothing and those
chunks had model evidence, their writes are dropped and the run fails with the reason
(``graph.run_empty``), so a model that suddenly finds nothing leaves the previous graph."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.matching import normalise_name
from goodbuddy_kb.main_process.graph.model_answer import Accepted, Counts
from goodbuddy_kb.main_process.storage.db import transaction

ENTITY_CONFIDENCE = 0.8
RELATION_CONFIDENCE = 0.75


@dataclass
class Chunk:
    seq: int
    document_id: str
    content: str
    checksum: str


def run_empty(count: int) -> str:
    return f"the chat model named nothing in the {count} chunks it read; the previous graph is kept"


@dataclass
class _Waiting:
    document_id: str
    answers: list[tuple[Chunk, Accepted]]
    failed: str | None


@dataclass
class Writes:
    """The run's document writes, holding back empty ones until the run names something."""

    conn: sqlite3.Connection
    library_id: str
    summary: Counts
    ontology_key: str
    named: bool = False
    waiting: list[_Waiting] = field(default_factory=list)

    def add(
        self, document_id: str, answers: list[tuple[Chunk, Accepted]], failed: str | None
    ) -> None:
        if any(accepted.mentions for _chunk, accepted in answers):
            self.named = True
            self._flush()
        elif answers and not self.named:
            self.waiting.append(_Waiting(document_id, answers, failed))
            return
        self._write(document_id, answers, failed)

    def finish(self) -> str | None:
        """Writes what waits, unless the run named nothing and writing would erase model
        evidence: then the chunks keep it and the documents say why (the reason returned)."""
        seqs = [chunk.seq for w in self.waiting for chunk, _accepted in w.answers]
        if not seqs:
            return None
        (had,) = self.conn.execute(
            "SELECT count(*) FROM graph_evidence WHERE extractor = 'model'"
            " AND chunk_seq IN (SELECT value FROM json_each(?))",
            (json.dumps(seqs),),
        ).fetchone()
        if not had:
            self._flush()
            return None
        reason = run_empty(len(seqs))
        with transaction(self.conn):
            self.conn.executemany(
                "UPDATE documents SET graph_status = 'failed', graph_error = ? WHERE id = ?",
                [(w.failed or reason, w.document_id) for w in self.waiting],
            )
        self.waiting = []
        return reason

    def _flush(self) -> None:
        waiting, self.waiting = self.waiting, []
        for w in waiting:
            self._write(w.document_id, w.answers, w.failed)

    def _write(
        self, document_id: str, answers: list[tuple[Chunk, Accepted]], failed: str | None
    ) -> None:
        write_document(
            self.conn,
            self.library_id,
            document_id,
            answers,
            failed,
            self.summary,
            self.ontology_key,
        )


def write_document(
    conn: sqlite3.Connection,
    library_id: str,
    document_id: str,
    answers: list[tuple[Chunk, Accepted]],
    failed: str | None,
    summary: Counts,
    ontology_key: str,
) -> None:
    """One document's accepted answers as entities, relations and evidence, in one
    transaction; the answered chunks' previous model evidence is replaced and the chunks are
    remembered as read (from this text, by this model, with this ontology). A chunk whose
    request failed or whose answer was rejected is not among them: it keeps its evidence, and
    the document's graph status says ``failed`` with the reason."""
    model = summary.model or ""
    provenance = json.dumps({"model": model[:100], "run": summary.run_id})
    with transaction(conn):
        for chunk, accepted in answers:
            current = conn.execute(
                "SELECT content, enabled FROM chunks WHERE seq = ?", (chunk.seq,)
            ).fetchone()
            if current is None or not current[1] or current[0] != chunk.content:
                continue  # edited, disabled or deleted while the model read it
            conn.execute(
                "DELETE FROM graph_evidence WHERE chunk_seq = ? AND extractor = 'model'",
                (chunk.seq,),
            )
            ids: dict[tuple[str, str], str] = {}
            for type_key, name, start, end in accepted.mentions:
                entity_id = ids.get((type_key, normalise_name(name)))
                if entity_id is None:
                    entity_id = store.resolve(conn, library_id, type_key, name, "model")
                    ids[(type_key, normalise_name(name))] = entity_id
                conn.execute(
                    "INSERT INTO graph_evidence (library_id, chunk_seq, entity_id, start,"
                    ' "end", confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, ?,'
                    " 'model', ?)",
                    (library_id, chunk.seq, entity_id, start, end, ENTITY_CONFIDENCE, provenance),
                )
            summary.entities += len(accepted.mentions)
            for type_key, head, tail, start, end in accepted.relations:
                relation = store.relation_id(
                    conn,
                    library_id,
                    type_key,
                    ids[(head[0], normalise_name(head[1]))],
                    ids[(tail[0], normalise_name(tail[1]))],
                    RELATION_CONFIDENCE,
                    "model",
                )
                conn.execute(
                    "INSERT INTO graph_evidence (library_id, chunk_seq, relation_id, start,"
                    ' "end", confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, ?,'
                    " 'model', ?)",
                    (library_id, chunk.seq, relation, start, end, RELATION_CONFIDENCE, provenance),
                )
            summary.relations += len(accepted.relations)
            summary.chunks += 1
            conn.execute(
                "INSERT INTO graph_model_done (chunk_seq, library_id, checksum, model,"
                " ontology_hash, run_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chunk_seq) DO"
                " UPDATE SET checksum = excluded.checksum, model = excluded.model,"
                " ontology_hash = excluded.ontology_hash, run_id = excluded.run_id",
                (chunk.seq, library_id, chunk.checksum, model, ontology_key, summary.run_id),
            )
        if failed is not None:
            conn.execute(
                "UPDATE documents SET graph_status = 'failed', graph_error = ? WHERE id = ?",
                (failed, document_id),
            )
        else:
            conn.execute(
                "UPDATE documents SET graph_status = 'done', graph_error = NULL WHERE id = ?",
                (document_id,),
            )
