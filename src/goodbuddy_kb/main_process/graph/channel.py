"""The graph channel of retrieval: find the query's entities (folded alias match over the
query, then full text over entity names, aliases and descriptions for near misses —
`nearmiss.py`), expand at most one hop along relations above the library's confidence floor (bounded
fan-out), and rank the chunks that carry evidence for them. A library whose graph strategy is
"off" takes no part; its reason is reported, never a silent empty result."""

from __future__ import annotations

import re
import sqlite3
import threading
from dataclasses import dataclass, field

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.main_process.graph import hop, recency, store
from goodbuddy_kb.main_process.graph.matching import Matcher, fold
from goodbuddy_kb.main_process.graph.nearmiss import NearMissIndex

MAX_NEIGHBOURS = 20
MAX_ENTITIES = 12
ENTITY_WEIGHT = 1.0
RELATION_WEIGHT = 1.5
NEIGHBOUR_WEIGHT = 0.5
#: A near miss counts for less than a name the question spells out.
NEAR_WEIGHT = 0.8
#: …and for less again beside a name the question spells out
NEAR_BESIDE_NAME = 0.3
#: A neighbour's relation of a type the question asks about ("在哪个城市" → located in) and
#: the named entity's own relations do not answer: it is the answer, above the bridge to it.
CUED_WEIGHT = 3.0
#: A relation of a matched entity whose type the question does not ask about, when it asks.
UNCUED_WEIGHT = 0.75
#: Chunks read per kind of evidence: this many per result asked for, at least the minimum.
EVIDENCE_PER_RESULT = 4
MIN_EVIDENCE_ROWS = 100
NOT_ENABLED = "the knowledge graph is not enabled for this library"
NO_ENTITIES = "no entity of the graph was found in the question"


@dataclass
class GraphHit:
    chunk_id: str
    library_id: str
    score: float
    reasons: list[str] = field(default_factory=list)
    #: The chunk's stable key: ties rank in document order, the same on every run.
    seq: int = 0
    #: Whether the chunk states a relation that reaches what the question asks for.
    answers: bool = False
    #: Whether it states an answer on the path to a deeper one (the team, in "哪个组管？这个组
    #: 所在的部门在哪栋楼？"): part of the answer, listed below the deeper one.
    on_way: bool = False


@dataclass
class GraphResult:
    hits: list[GraphHit] = field(default_factory=list)
    enabled: bool = False
    matched: list[str] = field(default_factory=list)
    relations_used: int = 0
    degraded: list[str] = field(default_factory=list)
    #: The matched entities (in ``matched``) that the near-miss step found, not a spelled name.
    near_misses: list[str] = field(default_factory=list)
    #: The paths of two hops that answer the question (A —owned_by→ B —led_by→ C).
    paths: list[str] = field(default_factory=list)
    #: Whether the paths reached everything the question asks for (a person, a place…).
    answered: bool = False


@dataclass(frozen=True)
class _Lookup:
    matcher: Matcher
    near: NearMissIndex


_cache: dict[str, tuple[tuple[object, ...], _Lookup]] = {}
_cache_lock = threading.Lock()


def _lookup(conn: sqlite3.Connection, library_id: str) -> _Lookup:
    """One automaton and one near-miss index per library, rebuilt only when its entity names,
    aliases or descriptions change (a rename or a description edit changes their lengths or the
    sum of their first, middle and last characters)."""
    version = conn.execute(
        "SELECT count(*), coalesce(max(rowid), 0), total(length(name) + length(description)),"
        " total(unicode(name) + unicode(substr(name, -1)) + unicode(substr(name, length(name) / 2 + 1))"
        " + coalesce(unicode(description), 0)),"
        " (SELECT count(*) FROM graph_aliases WHERE library_id = ?)"
        " FROM graph_entities WHERE library_id = ?",
        (library_id, library_id),
    ).fetchone()
    key = tuple(version)
    with _cache_lock:
        cached = _cache.get(library_id)
        if cached is not None and cached[0] == key:
            return cached[1]
    names = store.names(conn, [library_id])
    descriptions = dict(
        conn.execute(
            "SELECT id, description FROM graph_entities WHERE library_id = ? AND description != ''",
            (library_id,),
        ).fetchall()
    )
    lookup = _Lookup(
        Matcher((name, entity_id) for name, entity_id, _t in names),
        NearMissIndex(
            (entity_id, name, descriptions.get(entity_id, "")) for name, entity_id, _t in names
        ),
    )
    with _cache_lock:
        _cache[library_id] = (key, lookup)
    return lookup


_cues: dict[str, tuple[g.Ontology, dict[str, frozenset[str]]]] = {}
_CUE_STOP = frozenset(["must", "from", "with", "that", "this", "than", "into"])


def relation_cues(ontology: g.Ontology) -> dict[str, frozenset[str]]:
    """The words that cue each relation type in a question: its names and aliases (the
    starter's include question words: 在哪、几楼、where, owner), the Chinese words of its
    patterns (位于、隶属于) and their longer English words (located, approved)."""
    found: dict[str, frozenset[str]] = {}
    for relation in ontology.relation_types:
        words = {fold(w).strip() for w in [relation.name_zh, relation.name_en, *relation.aliases]}
        for pattern in relation.patterns:
            for piece in re.split(r"\{head\}|\{tail\}", fold(pattern)):
                words.update(w for w in re.findall(r"[\u4e00-\u9fff]{2,}", piece) if w != "负责人")
                words.update(w for w in re.findall(r"[a-z]{4,}", piece) if w not in _CUE_STOP)
        found[relation.key] = frozenset(w for w in words if len(w) >= 2)
    return found


def _ontology(
    conn: sqlite3.Connection, library_id: str
) -> tuple[g.Ontology | None, dict[str, frozenset[str]]]:
    """The library's ontology and its relation cues, parsed once per ontology text."""
    row = conn.execute(
        "SELECT ontology FROM graph_settings WHERE library_id = ?", (library_id,)
    ).fetchone()
    if row is None:
        return None, {}
    with _cache_lock:
        cached = _cues.get(row[0])
    if cached is None:
        ontology = g.Ontology.model_validate_json(row[0])
        cached = (ontology, relation_cues(ontology))
        with _cache_lock:
            if len(_cues) > 16:
                _cues.clear()
            _cues[row[0]] = cached
    return cached


def ontology_of(conn: sqlite3.Connection, library_id: str) -> g.Ontology | None:
    """The library's ontology (parsed once per ontology text), None without graph settings."""
    return _ontology(conn, library_id)[0]


def _cue_groups(cues: dict[str, frozenset[str]], query: str) -> list[frozenset[str]]:
    """For each cue word the question holds, the relation types it cues ("负责" cues both owns
    and led_by, "谁负责" owns alone)."""
    folded = fold(query)
    latin = set(re.findall(r"[a-z]+", folded))
    by_word: dict[str, set[str]] = {}
    for key, words in cues.items():
        for w in words:
            if (w in latin or (" " in w and w in folded)) if w.isascii() else w in folded:
                by_word.setdefault(w, set()).add(key)
    # a word right after an interrogative (哪位领导, 哪个负责人) is the noun of what is asked,
    # not the question's verb: where the question has a verb that cues too (向哪位领导汇报:
    # reports_to), the noun does not cue led_by
    nouns = {w for w in by_word if not w.isascii() and _only_after_which(folded, w)}
    if nouns and set(by_word) - nouns:
        by_word = {w: t for w, t in by_word.items() if w not in nouns}
    return [frozenset(types) for _word, types in sorted(by_word.items())]


_WHICH_BEFORE = re.compile(r"(?:哪一?[位个些名]|什么|何)$")


def _only_after_which(text: str, word: str) -> bool:
    at = text.find(word)
    found = False
    while at >= 0:
        if not _WHICH_BEFORE.search(text, 0, at):
            return False
        found = True
        at = text.find(word, at + 1)
    return found


def _unexplained(query: str, spans: list[tuple[int, int]]) -> str:
    """The query with the names it spells out blanked: what a near miss may still explain."""
    parts, last = [], 0
    for start, end in spans:
        parts.append(query[last:start])
        last = end
    parts.append(query[last:])
    return " ".join(parts)


def _same_names(conn: sqlite3.Connection, library_id: str, entity_ids: list[str]) -> list[str]:
    """The matched entities and the entities of other types with the same name: a question
    that says 北极星 (the alias of the term 客户数据平台) also means the system 客户数据平台.
    Resolution never merges across types; retrieval follows both."""
    marks = ",".join("?" for _ in entity_ids)
    more = [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT o.id FROM graph_entities e JOIN graph_entities o"
            " ON o.library_id = e.library_id AND o.normalized = e.normalized AND o.id != e.id"
            f" WHERE e.id IN ({marks}) AND e.library_id = ? ORDER BY o.type_key LIMIT ?",
            (*entity_ids, library_id, MAX_ENTITIES),
        )
    ]
    return list(dict.fromkeys(entity_ids + more))[: 2 * MAX_ENTITIES]


EVIDENCE_SQL = (
    "SELECT c.id, agg.keys, agg.score, c.seq FROM (SELECT chunk_seq,"
    " group_concat(DISTINCT {col}) AS keys, {agg}(confidence) AS score"
    " FROM graph_evidence WHERE {col} IN ({marks}) AND confidence >= ?"
    " GROUP BY chunk_seq ORDER BY score DESC, chunk_seq LIMIT ?) agg"
    " JOIN chunks c ON c.seq = agg.chunk_seq WHERE c.enabled = 1 AND c.role != 'parent'"
)


def search(conn: sqlite3.Connection, library_ids: list[str], query: str, pool: int) -> GraphResult:
    result = GraphResult()
    scores: dict[str, GraphHit] = {}
    for library_id in library_ids:
        settings = store.settings(conn, library_id)
        if settings.strategy == "off":
            result.degraded.append(NOT_ENABLED)
            continue
        result.enabled = True
        lookup = _lookup(conn, library_id)
        matches = lookup.matcher.find(query)
        entity_ids = list(dict.fromkeys(e for m in matches for e in m.payload))[:MAX_ENTITIES]
        if entity_ids:
            entity_ids = _same_names(conn, library_id, entity_ids)
        # what the names the question spells out leave unexplained
        rest = _unexplained(query, [(m.start, m.end) for m in matches])
        near = [n.entity_id for n in lookup.near.search(rest, exclude=entity_ids)]
        if not entity_ids and not near:
            continue
        entity_ids = entity_ids + [e for e in near if e not in entity_ids]
        names = dict(
            conn.execute(
                f"SELECT id, name FROM graph_entities WHERE id IN ({','.join('?' for _ in entity_ids)})",
                entity_ids,
            ).fetchall()
        )
        result.matched.extend(dict.fromkeys(names[e] for e in entity_ids if e in names))
        result.near_misses.extend(dict.fromkeys(names[e] for e in near if e in names))
        spelled = [e for e in entity_ids if e not in near]
        # beside a name the question spells out, a near miss is most often the question's
        # other words (CRM账号…开通 ≈ 账号开通): what it brings counts for much less
        near_weight = NEAR_WEIGHT * (NEAR_BESIDE_NAME if spelled else 1.0)
        marks = ",".join("?" for _ in entity_ids)
        relations = conn.execute(
            "SELECT r.id, r.type_key, r.head_id, r.tail_id, h.name, t.name FROM graph_relations r"
            " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
            f" WHERE (r.head_id IN ({marks}) OR r.tail_id IN ({marks})) AND r.confidence >= ?"
            " ORDER BY r.confidence DESC, h.normalized, t.normalized, r.type_key"
            f" LIMIT {MAX_NEIGHBOURS * len(entity_ids)}",
            (*entity_ids, *entity_ids, settings.min_confidence),
        ).fetchall()
        result.relations_used += len(relations)
        # a thing's owner or head that a later-dated document replaced is no answer (now): the
        # path follows the newer one, and the older relation's evidence counts as a neighbour's
        old = recency.superseded(conn, relations)
        relations = [r for r in relations if r[0] not in old]
        relation_label = {r[0]: f"{r[4]} —{r[1]}→ {r[5]}" for r in relations}
        neighbours = {
            other: names_pair
            for r in relations
            for other, names_pair in ((r[3], r[5]), (r[2], r[4]))
            if other not in entity_ids
        }

        def add(
            rows: list[sqlite3.Row],
            weight: float,
            label_of: dict[str, str],
            library_id: str = library_id,
            first: bool = False,
            on_way: bool = False,
        ) -> None:
            for chunk_id, keys, score, seq in rows:
                hit = scores.setdefault(chunk_id, GraphHit(chunk_id, library_id, 0.0, seq=seq))
                hit.score += weight * score
                for key in keys.split(",")[:3]:
                    label = label_of.get(key)
                    if label and label not in hit.reasons:
                        # a path that answers comes before the names that brought the chunk
                        hit.reasons.insert(0 if first else len(hit.reasons), label)
                del hit.reasons[6:]
                hit.answers = hit.answers or first
                hit.on_way = hit.on_way or on_way

        # Each kind of evidence is summed per chunk (names: a chunk naming more of them is
        # more about them) or its best taken (relations: a chunk listing many relations of
        # the named entity does not outweigh the one stating what the question asks), and cut to the best chunks inside SQLite:
        # a name mentioned in thousands of chunks costs one aggregate, not thousands of rows
        # in Python (bounded fan-out). Evidence never points at a disabled or parent chunk
        # (the triggers drop it), the join only finds the chunk's id.
        limit = max(pool * EVIDENCE_PER_RESULT, MIN_EVIDENCE_ROWS)

        def gather(
            col: str,
            ids: list[str],
            weight: float,
            labels: dict[str, str],
            first: bool = False,
            on_way: bool = False,
            library_id: str = library_id,
            min_confidence: float = settings.min_confidence,
            limit: int = limit,
        ) -> None:
            """Adds the best chunks of the evidence of ``ids`` (entities summed, relations their
            best), ``weight`` times their confidence."""
            if not ids:
                return
            sql = EVIDENCE_SQL.format(
                col=col, agg="sum" if col == "entity_id" else "max", marks=",".join("?" * len(ids))
            )
            add(
                conn.execute(sql, (*ids, min_confidence, limit)).fetchall(),
                weight,
                labels,
                library_id,
                first,
                on_way,
            )

        gather("entity_id", spelled, ENTITY_WEIGHT, names)
        gather("entity_id", near, near_weight, {e: f"≈ {names[e]}" for e in near if e in names})
        ontology, cues = _ontology(conn, library_id)
        spans = [(m.start, m.end) for m in matches]
        question = hop.read(ontology, rest, query, spans, _cue_groups(cues, rest))
        cued = question.cued
        answers = hop.follow(conn, settings.min_confidence, entity_ids, relations, question)
        direct = {a.relation_id for a in answers if a.hops == 1}
        named = set(spelled)
        # the relations only a near miss reached (when the question also spells a name)
        guessing = (
            {r[0] for r in relations if r[2] not in named and r[3] not in named}
            if near and spelled
            else set()
        )
        # only a path from a name the question spells out is sure enough to lead the fusion (a
        # near miss — 账号…开通 for 账号开通 — is a guess at what the question is about)
        sure = (
            hop.follow(
                conn,
                settings.min_confidence,
                spelled,
                [r for r in relations if r[0] not in guessing],
                question,
            )
            if near and spelled
            else answers
        )
        result.answered = result.answered or hop.complete(sure, set(question.final))
        pointed = bool(cued) or bool(answers)
        if relations:
            # a question that asks for some relation types ("在哪" → located in) or for an
            # answer of some type ("谁" → a person) weighs the others less
            for group, weight in (
                (
                    [
                        r[0]
                        for r in relations
                        if (not pointed or r[1] in cued) and r[0] not in direct
                    ],
                    RELATION_WEIGHT,
                ),
                (
                    [
                        r[0]
                        for r in relations
                        if pointed and r[1] not in cued and r[0] not in direct
                    ],
                    UNCUED_WEIGHT,
                ),
            ):
                # a relation only a near miss reached counts as a near miss does
                named_ids = [r for r in group if r not in guessing]
                gather("relation_id", named_ids, weight, relation_label)
                guessed_ids = [r for r in group if r in guessing]
                gather("relation_id", guessed_ids, weight * near_weight, relation_label)
        gather("relation_id", sorted(old), NEIGHBOUR_WEIGHT, {})
        if neighbours:
            through_names = {
                other for r in relations if r[0] not in guessing for other in (r[2], r[3])
            }
            near_only = [n for n in neighbours if n not in through_names]
            gather(
                "entity_id",
                [n for n in neighbours if n in through_names],
                NEIGHBOUR_WEIGHT,
                neighbours,
            )
            gather("entity_id", near_only, NEIGHBOUR_WEIGHT * near_weight, neighbours)
        # "费控系统登不进去联系谁": the system's owner is a team, the person is that team's
        # head: the neighbours' relations that reach what the question asks for carry the
        # answer, above the bridge to it, and name the path
        result.relations_used += sum(1 for a in answers if a.hops > 1)
        if answers:
            result.paths.extend(dict.fromkeys(a.path for a in answers))
            # a path from a near miss (when the question also spells a name) is a guess: it
            # counts like a near miss's evidence and is not lifted above the rest
            known = {a.relation_id for a in sure}
            guessed = [a for a in answers if a.relation_id not in known]
            paths = {a.relation_id: a.path for a in answers}
            # an answer on the path to a deeper one ("OA系统归哪个团队管？这个团队所在的部门在哪栋
            # 楼？": the team, on the way to its department's building) is stated, not lifted
            ends = hop.ends(sure)
            gather("relation_id", [a.relation_id for a in ends], CUED_WEIGHT, paths, first=True)
            on_way = [a.relation_id for a in sure if a not in ends]
            gather("relation_id", on_way, CUED_WEIGHT, paths, on_way=True)
            gather("relation_id", [a.relation_id for a in guessed], near_weight, paths)
    if result.enabled and not result.matched:
        result.degraded.append(NO_ENTITIES)
    # the chunks stating what the question asks for rank above those that only name its
    # entities (the bridge): their scores are lifted above the others' best
    lift = max((h.score for h in scores.values() if not h.answers), default=0.0)
    for hit in scores.values():
        if hit.answers:
            hit.score += lift
    ranked = sorted(scores.values(), key=lambda h: (-round(h.score, 9), h.library_id, h.seq))
    result.hits = ranked[:pool]
    return result
