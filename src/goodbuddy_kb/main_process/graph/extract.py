"""A local extraction run over a library: discovery over every retrievable chunk, entity
resolution, then matching of every known name and alias, pattern and co-occurrence relations,
and evidence spans — whole documents per transaction (a batch of them), so retrieval sees a
document's graph evidence whole. Cancellable between documents."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.discovery import (
    DISCOVERY_CONFIDENCE,
    WEAK_CONFIDENCE,
    Cues,
    Mention,
)
from goodbuddy_kb.main_process.graph.entity_index import Entities
from goodbuddy_kb.main_process.graph.library_names import (
    business_title,
    cjk_systems,
    joined_title,
)
from goodbuddy_kb.main_process.graph.local import compile_patterns, prepare
from goodbuddy_kb.main_process.graph.matching import Matcher, fold, normalise_name
from goodbuddy_kb.main_process.graph.names import BARE_TYPES, coordinated, find
from goodbuddy_kb.main_process.graph.referents import by_given_name
from goodbuddy_kb.main_process.graph.segment import HAN, Readings, nouns
from goodbuddy_kb.main_process.graph.sentences import relations_in
from goodbuddy_kb.main_process.graph.slots import frames
from goodbuddy_kb.main_process.graph.units import same_thing, units_across_scripts
from goodbuddy_kb.main_process.storage import graph_rows
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
    """The library's retrievable chunks by document, documents in path order: the same files
    give the same graph whatever ids their import drew (the first document to name something
    decides how it is resolved)."""
    by_document: dict[str, list[sqlite3.Row]] = {}
    for row in conn.execute(
        "SELECT c.seq, c.id, c.document_id, c.content, c.heading FROM chunks c"
        " JOIN documents d ON d.id = c.document_id WHERE c.library_id = ? AND c.enabled = 1"
        " AND c.role != 'parent' ORDER BY d.relative_path, d.source_id, c.ordinal",
        (library_id,),
    ):
        by_document.setdefault(row["document_id"], []).append(row)
    return by_document


class _Relations:
    """The library's relations by (type, head, tail), read once; a run's new relations and
    raised confidences are written per document in batches."""

    def __init__(self, conn: sqlite3.Connection, library_id: str) -> None:
        self._library_id = library_id
        self._known: dict[tuple[str, str, str], tuple[str, float]] = {
            (r[1], r[2], r[3]): (r[0], r[4])
            for r in conn.execute(
                "SELECT id, type_key, head_id, tail_id, confidence FROM graph_relations"
                " WHERE library_id = ?",
                (library_id,),
            )
        }
        self._new: list[tuple[str, str, str, str, str, float]] = []
        self._raised: dict[str, float] = {}

    def id(self, type_key: str, head: str, tail: str, confidence: float) -> str:
        known = self._known.get((type_key, head, tail))
        if known is None:
            relation_id = uuid.uuid4().hex
            self._known[(type_key, head, tail)] = (relation_id, confidence)
            self._new.append((relation_id, self._library_id, type_key, head, tail, confidence))
            return relation_id
        if confidence > known[1]:
            self._known[(type_key, head, tail)] = (known[0], confidence)
            self._raised[known[0]] = confidence
        return known[0]

    def write(self, conn: sqlite3.Connection) -> dict[str, str]:
        """Writes the new relations; returns the ids that another run (the model's) had given
        the same relation meanwhile (new id → its id)."""
        inserted = conn.executemany(
            "INSERT OR IGNORE INTO graph_relations (id, library_id, type_key, head_id, tail_id,"
            " confidence, extractor) VALUES (?, ?, ?, ?, ?, ?, 'local')",
            self._new,
        ).rowcount
        moved: dict[str, str] = {}
        # a relation another run (the model's) created meanwhile keeps its id (when every row
        # went in, none did)
        for relation_id, _lib, type_key, head, tail, confidence in (
            [] if inserted == len(self._new) else self._new
        ):
            row = conn.execute(
                "SELECT id FROM graph_relations WHERE library_id = ? AND type_key = ?"
                " AND head_id = ? AND tail_id = ?",
                (self._library_id, type_key, head, tail),
            ).fetchone()
            if row is not None and row[0] != relation_id:
                moved[relation_id] = row[0]
                self._known[(type_key, head, tail)] = (row[0], confidence)
        conn.executemany(
            "UPDATE graph_relations SET confidence = ? WHERE id = ? AND locked = 0",
            [(c, i) for i, c in self._raised.items()],
        )
        self._new, self._raised = [], {}
        return moved


_EVIDENCE = (
    'INSERT INTO graph_evidence (library_id, chunk_seq, entity_id, relation_id, start, "end",'
    " confidence, extractor, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, 'local', ?)"
)
_NAME_MATCH = '{"match": "name"}'
#: A batch of documents is written when it holds this many evidence rows, or after this long.
BATCH_ROWS = 20_000
BATCH_SECONDS = 0.5


class _Batch:
    """Whole documents' evidence written together: one transaction per batch of documents
    (at most `BATCH_ROWS` evidence rows or `BATCH_SECONDS` of work), so retrieval always sees
    a document's graph whole, while the indexes' pages are written once per batch rather than
    once per document."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        library_id: str,
        relations: _Relations,
        report: ExtractReport,
        progress: Progress | None,
        total: int,
    ) -> None:
        self._conn, self._library_id, self._relations = conn, library_id, relations
        self._report, self._progress, self._total = report, progress, total
        self._documents: list[str] = []
        self._seqs: list[int] = []
        self._evidence: list[tuple[object, ...]] = []
        self._since = time.monotonic()

    def add(self, document_id: str, seqs: list[int], evidence: list[tuple[object, ...]]) -> None:
        self._documents.append(document_id)
        self._seqs.extend(seqs)
        self._evidence.extend(evidence)
        if len(self._evidence) >= BATCH_ROWS or time.monotonic() - self._since >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if not self._documents:
            return
        conn, evidence = self._conn, self._evidence
        with transaction(conn):
            conn.executemany(
                "DELETE FROM graph_evidence WHERE extractor = 'local' AND chunk_seq = ?",
                [(seq,) for seq in self._seqs],
            )
            moved = self._relations.write(conn)
            if moved:
                evidence = [(*e[:3], moved.get(str(e[3]), e[3]), *e[4:]) for e in evidence]
            conn.executemany(_EVIDENCE, evidence)
            conn.executemany(
                "UPDATE documents SET graph_status = 'done', graph_error = NULL WHERE id = ?",
                [(d,) for d in self._documents],
            )
        self._report.documents += len(self._documents)
        self._documents, self._seqs, self._evidence = [], [], []
        self._since = time.monotonic()
        if self._progress is not None:
            self._progress(self._report.documents, self._total)


def _within(m: Mention, business: Mention) -> bool:
    """Whether ``m`` is the title itself or the end of it read as a name of its own (响应流程
    in 信息安全事件响应流程, 审批流程 in 生产环境发布审批流程)."""
    return m.type_key in ("policy", "process") and any(
        n.endswith(m.name) for n in (business.name, *business.aliases)
    )


def _listed(
    documents: dict[str, list[sqlite3.Row]],
    folded: dict[int, str],
    entities: Entities,
    systems: bool,
) -> None:
    """Names only the whole library shows: Chinese names of systems by the slots they stand in
    across documents (`names.cjk_systems`), and capitalised names listed with a system or a
    place that another document named ("Jira (issue tracking) and Confluence (wiki)" where only
    Jira was found on its own): of the same type, as in one text (`names.coordinated`)."""
    named = entities.names()
    texts = (row["content"] for rows in documents.values() for row in rows)
    for name in cjk_systems(texts, named) if systems else []:
        entities.resolve("system", name)
    known = entities.latin_names(BARE_TYPES)
    if not known:
        return
    matcher = Matcher(known)
    for rows in documents.values():
        for row in rows:
            text = row["content"]
            if " and " not in text and " or " not in text and ", " not in text:
                continue
            mentions = [
                Mention(m.payload[0], text[m.start : m.end], m.start, m.end, DISCOVERY_CONFIDENCE)
                for m in matcher.find(text, folded[row["seq"]])
            ]
            for mention in coordinated(text, mentions):
                key = normalise_name(mention.name)
                if not any(entities.known(t, key) for t in BARE_TYPES):
                    entities.resolve(mention.type_key, mention.name, key)


def _framed(text: str, mention: Mention, framing: tuple[tuple[str, str], ...]) -> bool:
    """Whether the mention stands between the words of a pattern (须经…审批), as something
    other than a place."""
    before, after = text[max(0, mention.start - 4) : mention.start], text[mention.end :]
    return mention.type_key != "location" and any(
        before.endswith(b) and after.startswith(a) for b, a in framing
    )


def _discover(
    documents: dict[str, list[sqlite3.Row]],
    folded: dict[int, str],
    ontology: Ontology,
    cues: Cues,
    entities: Entities,
) -> set[tuple[str, str]]:
    """Resolves the names the ontology's cues find in every title and chunk; a Chinese name is
    read in its sentence first (`segment.Readings`). Returns the (type, name) of those that
    stay only where the library relates them (`segment` "provisional")."""
    # names kept only when the library repeats them: (mentions of a weak cue, documents of a
    # "weak" reading, the name)
    weak: dict[tuple[str, str], tuple[int, set[str], str]] = {}
    readings = Readings()
    framing = frames(ontology)
    # names another rule than a cue found (a title, a table, a bracket): never provisional
    direct: set[tuple[str, str]] = set()
    # Latin names only a slot any noun fits found (`names` "provisional")
    loose: set[tuple[str, str]] = set()
    try:
        for document_id, rows in documents.items():
            # the names in the document's title: the topic of its sentences that name no subject
            heading = rows[0]["heading"] or ""
            business = (
                business_title(heading, ontology, "\n".join(row["content"] for row in rows[:3]))
                if heading
                else None
            )
            named = find(heading, ontology, None, cues=cues) if heading else []
            if business is not None:  # the title names the business, not a rule of its own
                named = [m for m in named if not _within(m, business)] + [business]
            elif (whole := joined_title(heading, named, cues)) is not None:
                named = [m for m in named if not _within(m, whole)] + [whole]
                business = whole  # (read whole, as the title it is)
            for mention in named:
                key = normalise_name(mention.name)
                verdict = "whole"
                if mention is not business and HAN.search(mention.name) is not None:
                    verdict = readings.read(heading, mention, key)
                    if verdict == "broken":
                        continue
                if verdict != "provisional":
                    direct.add((mention.type_key, key))
                entities.resolve_with(mention.type_key, mention.name, mention.aliases)
            for row in rows:
                text = folded[row["seq"]]
                for mention in find(
                    row["content"], ontology, row["heading"], cues=cues, folded=text
                ):
                    key = " ".join(text[mention.start : mention.end].split())
                    verdict = "whole"
                    if HAN.search(mention.name) is not None:
                        verdict = readings.read(row["content"], mention, key)
                        if verdict == "broken":
                            continue
                        if verdict == "provisional" and _framed(row["content"], mention, framing):
                            direct.add((mention.type_key, key))
                    elif mention.provisional:
                        loose.add((mention.type_key, key))
                    else:
                        direct.add((mention.type_key, key))
                    if mention.confidence <= WEAK_CONFIDENCE or verdict == "weak":
                        seen, docs, _name = weak.get((mention.type_key, key), (0, set(), ""))
                        if verdict == "weak":  # (one document repeating it is one use)
                            docs.add(document_id)
                        else:
                            seen += 1
                        weak[(mention.type_key, key)] = (seen, docs, mention.name)
                        continue
                    entities.resolve_with(mention.type_key, mention.name, mention.aliases, key)
    finally:
        readings.close()
    for (type_key, key), (seen, docs, name) in weak.items():
        if seen > 1 or len(docs) > 1 or entities.known(type_key, key):
            entities.resolve(type_key, name, key)
    return (readings.provisional() | loose) - direct


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
    folded = {row["seq"]: fold(row["content"]) for rows in documents.values() for row in rows}
    # 1. discovery: the names the ontology's cues find, resolved by type and name
    cues = prepare(ontology)
    process_cues = [c for t in ontology.entity_types if t.key == "process" for c in t.suffixes]
    cues = replace(cues, action_nouns=nouns(fold(c) for c in process_cues))
    entities = Entities(conn, library_id)
    doubtful = _discover(documents, folded, ontology, cues, entities)
    _listed(documents, folded, entities, any(t.key == "system" for t in ontology.entity_types))
    with transaction(conn):
        entities.write(conn)
    said_same = entities.said_same()
    cancel.check()
    # 2. matching: every known name and alias in every chunk, relations and evidence
    known = store.names(conn, [library_id])
    type_of = {entity_id: type_key for _name, entity_id, type_key in known}
    matcher = Matcher((name, entity_id) for name, entity_id, _type in known)
    patterns = compile_patterns(ontology)
    relations = _Relations(conn, library_id)
    provenances: dict[str, str] = {}

    def provenance(pattern: str) -> str:
        text = provenances.get(pattern)
        if text is None:
            text = provenances[pattern] = json.dumps({"pattern": pattern[:100]})
        return text

    batch = _Batch(conn, library_id, relations, report, progress, total)
    for document_id, rows in documents.items():
        try:
            cancel.check()
        except CancelledError:
            batch.flush()  # the documents read so far keep their graph
            raise
        evidence: list[tuple[object, ...]] = []
        # the entity the document's title names: the topic of sentences that name no subject
        heading = rows[0]["heading"] or ""
        title = next(iter(matcher.find(heading)), None) if heading else None
        given: dict[str, tuple[str, ...]] = {}  # the document's people by their given name
        for row in rows:
            text = row["content"]
            mentions = matcher.find(text, folded[row["seq"]])[: settings.max_entities_per_chunk]
            mentions = by_given_name(text, mentions, type_of, given)
            evidence.extend(
                (library_id, row["seq"], m.payload[0], None, m.start, m.end, 1.0, _NAME_MATCH)
                for m in mentions
            )
            report.mentions += len(mentions)
            report.chunks += 1
            found = relations_in(
                text, mentions, type_of, patterns, ontology, folded[row["seq"]], title
            )
            for rel in found[: settings.max_relations_per_chunk]:
                relation = relations.id(
                    rel.type_key, rel.head.payload[0], rel.tail.payload[0], rel.confidence
                )
                evidence.append(
                    (
                        library_id,
                        row["seq"],
                        None,
                        relation,
                        rel.start,
                        rel.end,
                        rel.confidence,
                        provenance(rel.pattern),
                    )
                )
                report.relation_mentions += 1
        report.evidence += len(evidence)
        batch.add(document_id, [r["seq"] for r in rows], evidence)
    batch.flush()
    provisional = (
        {
            entity_id
            for name, entity_id, type_key in known
            if (type_key, normalise_name(name)) in doubtful
        }
        if doubtful
        else set()
    )
    with transaction(conn):
        same_thing(conn, library_id, said_same)
        units_across_scripts(conn, library_id)
        store.nothing_to_read(conn, library_id)
        store.drop_unrelated(conn, library_id, provisional)
        graph_rows.prune(conn, library_id)
        conn.execute(
            "UPDATE graph_settings SET needs_rebuild = 0 WHERE library_id = ?", (library_id,)
        )
    counts = store.info(conn, library_id)
    report.entities, report.relations = counts.entities, counts.relations
    return report
